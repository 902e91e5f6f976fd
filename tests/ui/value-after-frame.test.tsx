// @vitest-environment jsdom
import { act, cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { stubFrames } from './frames';
import { OFF_SCREEN_SETTLE_MS, useValueAfterFrame } from '../../src/ui/stage/hooks';

afterEach(cleanup);

/** Frames run only when the test says so. */
const { runFrame } = stubFrames();

function Shown({ value }: { value: string }) {
  return <p data-testid="shown">{useValueAfterFrame(value)}</p>;
}

describe('useValueAfterFrame (the charts take a new result after the frame that draws it)', () => {
  it('has the first value at once: a page opened paused draws its exact result', () => {
    render(<Shown value="a" />);
    expect(screen.getByTestId('shown')).toHaveTextContent('a');
  });

  it('hands a new value over only after the next frame, in a task of its own', () => {
    const { rerender } = render(<Shown value="a" />);
    rerender(<Shown value="b" />);
    // The render that commits the new value elsewhere still shows the old one here.
    expect(screen.getByTestId('shown')).toHaveTextContent('a');
    act(() => {
      vi.runAllTimers();
    });
    expect(screen.getByTestId('shown')).toHaveTextContent('a');
    runFrame();
    // The frame has run, but the hand-over is a task after it.
    expect(screen.getByTestId('shown')).toHaveTextContent('a');
    act(() => {
      vi.runAllTimers();
    });
    expect(screen.getByTestId('shown')).toHaveTextContent('b');
  });

  it('the newest value wins when several arrive before a frame', () => {
    const { rerender } = render(<Shown value="a" />);
    rerender(<Shown value="b" />);
    rerender(<Shown value="c" />);
    runFrame();
    act(() => {
      vi.runAllTimers();
    });
    expect(screen.getByTestId('shown')).toHaveTextContent('c');
    // Nothing else pending: it stays.
    runFrame();
    act(() => {
      vi.runAllTimers();
    });
    expect(screen.getByTestId('shown')).toHaveTextContent('c');
  });
});

function Hidden({ value, offScreen }: { value: string; offScreen: boolean }) {
  return <p data-testid="shown">{useValueAfterFrame(value, offScreen)}</p>;
}

describe('useValueAfterFrame off screen (charts below the fold)', () => {
  it('waits for edits to pause, then hands the newest value over', () => {
    const { rerender } = render(<Hidden value="a" offScreen />);
    rerender(<Hidden value="b" offScreen />);
    runFrame();
    act(() => {
      vi.advanceTimersByTime(OFF_SCREEN_SETTLE_MS - 1);
    });
    expect(screen.getByTestId('shown')).toHaveTextContent('a');
    // Another edit before it settled: the wait starts again.
    rerender(<Hidden value="c" offScreen />);
    act(() => {
      vi.advanceTimersByTime(OFF_SCREEN_SETTLE_MS - 1);
    });
    expect(screen.getByTestId('shown')).toHaveTextContent('a');
    act(() => {
      vi.advanceTimersByTime(1);
    });
    expect(screen.getByTestId('shown')).toHaveTextContent('c');
  });

  it('catches up after the next frame when it comes on screen', () => {
    const { rerender } = render(<Hidden value="a" offScreen />);
    rerender(<Hidden value="b" offScreen />);
    rerender(<Hidden value="b" offScreen={false} />);
    expect(screen.getByTestId('shown')).toHaveTextContent('a');
    runFrame();
    act(() => {
      vi.advanceTimersByTime(0);
    });
    expect(screen.getByTestId('shown')).toHaveTextContent('b');
  });
});
