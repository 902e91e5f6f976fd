// @vitest-environment jsdom
import { act, cleanup, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { useValueAfterFrame } from '../../src/ui/stage/hooks';

afterEach(cleanup);

/** Frames run only when the test says so. */
let frames: Array<FrameRequestCallback | null> = [];
beforeEach(() => {
  frames = [];
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  vi.stubGlobal('requestAnimationFrame', (cb: FrameRequestCallback) => frames.push(cb));
  vi.stubGlobal('cancelAnimationFrame', (id: number) => {
    frames[id - 1] = null;
  });
  return () => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  };
});

function runFrame(): void {
  const now = frames;
  frames = [];
  act(() => now.forEach((cb) => cb?.(0)));
}

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
