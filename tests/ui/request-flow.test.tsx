// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { RequestFlow } from '../../src/viz';
import type { VizRequest } from '../../src/viz';
import { frame } from './fixtures';

afterEach(cleanup);

// A fixed window of 1 per second: at t = 1000 the first request passes, the second gets
// 429 with Retry-After: 1 (the window ends at 2000); one more is on its way at 1300.
const f = frame({ kind: 'fixed-window', limit: 1, windowMs: 1000 }, [1000, 1000, 1300], 1100);

function draw(nowMs: number, reducedMotion: boolean, requests: readonly VizRequest[] = f.requests) {
  return render(<RequestFlow nowMs={nowMs} requests={requests} reducedMotion={reducedMotion} />);
}

const translate = (id: number) => screen.getByTestId(`request-${id}`).getAttribute('transform');

describe('RequestFlow', () => {
  it('admitted requests pass, rejected ones bounce, their status and Retry-After shown', () => {
    draw(1100, false);
    expect(screen.getByTestId('request-1')).toHaveAttribute('data-phase', 'to-backend');
    const rejected = screen.getByTestId('request-2');
    expect(rejected).toHaveAttribute('data-phase', 'bounce');
    expect(rejected).toHaveAttribute('data-outcome', 'reject');
    // The status rides over the client ← limiter gap, not on the moving mark.
    expect(rejected).not.toHaveTextContent('429');
    expect(screen.getByTestId('flow-bounce-status')).toHaveTextContent('← 429');
    expect(screen.getByTestId('flow-detail')).toHaveTextContent(
      'last rejection: 429 · retry in 1 s',
    );
    expect(screen.getByTestId('flow-passed')).toHaveTextContent('1 passed');
    expect(screen.getByTestId('flow-rejected')).toHaveTextContent('1 rejected');
  });

  it('a request on its way in shows no outcome before it reaches the limiter', () => {
    draw(1100, false);
    expect(screen.getByTestId('request-3')).toHaveAttribute('data-phase', 'incoming');
    expect(screen.getByTestId('request-3')).toHaveAttribute('data-outcome', 'pending');
    expect(screen.getByTestId('flow-incoming')).toHaveTextContent('1 on the way');
  });

  it('positions follow the virtual clock: the same time draws the same frame, a later one moves', () => {
    const { container, unmount } = draw(1100, false);
    const first = container.innerHTML;
    const before = translate(2);
    unmount();
    const again = draw(1100, false);
    expect(again.container.innerHTML).toBe(first);
    again.unmount();
    draw(1150, false);
    expect(translate(2)).not.toBe(before);
  });

  it('reduced motion: no travel, the same information', () => {
    const { unmount } = draw(1100, true);
    const at1100 = [translate(1), translate(2)];
    expect(screen.getByTestId('flow-detail')).toHaveTextContent(
      'last rejection: 429 · retry in 1 s',
    );
    expect(screen.getByTestId('request-2')).toHaveAttribute('data-outcome', 'reject');
    unmount();
    draw(1150, true);
    expect([translate(1), translate(2)]).toEqual(at1100);
    expect(screen.getByTestId('flow-rejected')).toHaveTextContent('1 rejected');
  });

  it('delayed requests wait in the limiter until their release', () => {
    const g = frame(
      { kind: 'leaky-bucket', rate: 10, rateUnit: 'r/s', burst: 3, delay: 0 },
      [1000, 1000, 1000],
      1050,
    );
    render(<RequestFlow nowMs={1050} requests={g.requests} reducedMotion={false} />);
    expect(screen.getByTestId('request-2')).toHaveAttribute('data-phase', 'waiting');
    expect(screen.getByTestId('request-3')).toHaveAttribute('data-phase', 'waiting');
    expect(screen.getByTestId('flow-waiting')).toHaveTextContent('2 waiting');
    expect(screen.getByTestId('flow-detail')).toHaveTextContent('next out in 50 ms');
  });

  it('requests can be selected by click and keyboard', () => {
    const onSelect = vi.fn();
    render(
      <RequestFlow
        nowMs={1100}
        requests={f.requests}
        reducedMotion={false}
        onSelectRequest={onSelect}
      />,
    );
    const button = screen.getByRole('button', {
      name: 'Request #3, rejected: 429, Retry-After 1 s',
    });
    fireEvent.click(button);
    fireEvent.keyDown(button, { key: 'Enter' });
    expect(onSelect.mock.calls).toEqual([[2], [2]]);
    // With focusable marks the root is a labelled group, not an image that hides them.
    expect(screen.getByRole('group')).toHaveAccessibleName(/Request flow/);
  });

  it('given counts (the requests were cut), shows them: the queue says how many it cannot draw', () => {
    // The one waiting request handed over, of 40 waiting; 700 passed, 3 rejected, 250 incoming.
    const waiting = { ...(f.requests[0] as VizRequest), id: 9, outcome: 'delay' as const };
    const requests = [{ ...waiting, delayMs: 500, releaseMs: waiting.arrivalMs + 500 }];
    render(
      <RequestFlow
        nowMs={1100}
        requests={requests}
        reducedMotion={false}
        counts={{ passed: 700, waiting: 40, rejected: 3, incoming: 250, nextOutInMs: 12 }}
      />,
    );
    expect(screen.getByTestId('flow-passed')).toHaveTextContent('700 passed');
    expect(screen.getByTestId('flow-waiting')).toHaveTextContent('40 waiting');
    expect(screen.getByTestId('flow-rejected')).toHaveTextContent('3 rejected');
    expect(screen.getByTestId('flow-incoming')).toHaveTextContent('250 on the way');
    expect(screen.getByText('+39')).toBeInTheDocument();
    expect(screen.getByTestId('flow-detail')).toHaveTextContent('next out in 12 ms');
    expect(screen.getByTestId('request-flow')).toHaveAccessibleName(
      /40 requests waiting in the limiter; in the last 700 ms 700 passed to the backend and 3 rejected/,
    );
  });
});
