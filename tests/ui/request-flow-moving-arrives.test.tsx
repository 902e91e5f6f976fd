// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render, screen, waitFor } from '@testing-library/react';
import { RequestFlow } from '../../src/viz';
import { frame } from './fixtures';

afterEach(cleanup);

// A file of its own, so the moving marks' chunk is not yet loaded when the strip first plays.
const f = frame(
  { kind: 'leaky-bucket', rate: 10, rateUnit: 'r/s', burst: 3, delay: 1 },
  Array.from({ length: 12 }, (_, i) => 900 + i * 20),
  1150,
);

describe('RequestFlow when the moving marks chunk arrives', () => {
  it('a playing strip that is not rendered again from outside (a lane off screen) draws paths once the chunk is in', async () => {
    const view = render(
      <RequestFlow nowMs={1150} requests={f.requests} reducedMotion={false} animating />,
    );
    expect(screen.queryByTestId('moving-marks')).toBeNull();
    const singles = view.container.querySelectorAll('.rl-flow-marks > .rl-request').length;
    expect(singles).toBeGreaterThan(3);
    // No new props: the strip draws again by itself when the chunk has arrived.
    await waitFor(() => expect(screen.getByTestId('moving-marks')).toBeInTheDocument());
    const moving = Number(screen.getByTestId('moving-marks').getAttribute('data-count'));
    const waiting = view.container.querySelectorAll('.rl-flow-marks > .rl-request').length;
    // The marks that moved are now paths; only the waiting ones stay single marks.
    expect(moving).toBeGreaterThan(0);
    expect(moving + waiting).toBe(singles);
  });

  it('a still strip does not fetch or draw paths', async () => {
    render(<RequestFlow nowMs={1150} requests={f.requests} reducedMotion={false} />);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(screen.queryByTestId('moving-marks')).toBeNull();
  });
});
