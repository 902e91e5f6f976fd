// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import { RequestFlow } from '../../src/viz';
import { preloadMovingMarks } from '../../src/viz/RequestFlow';
import { frame } from './fixtures';

afterEach(cleanup);

// The moving marks' paths are a chunk of their own (initial JavaScript). A file of its
// own, so the chunk is not yet loaded when the first strip plays.
const f = frame(
  { kind: 'leaky-bucket', rate: 10, rateUnit: 'r/s', burst: 3, delay: 1 },
  Array.from({ length: 12 }, (_, i) => 900 + i * 20),
  1150,
);

describe('RequestFlow before the moving marks chunk has arrived', () => {
  it('draws the playing strip as the still drawing does, then as paths once the chunk is in', async () => {
    const still = render(<RequestFlow nowMs={1150} requests={f.requests} reducedMotion={false} />);
    const stillMarks = still.container.querySelectorAll('.rl-request').length;
    const stillHtml = still.container.innerHTML;
    still.unmount();
    expect(stillMarks).toBeGreaterThan(3);

    // The first playing render asks for the chunk and draws single marks meanwhile.
    const first = render(
      <RequestFlow nowMs={1150} requests={f.requests} reducedMotion={false} animating />,
    );
    expect(screen.queryByTestId('moving-marks')).toBeNull();
    expect(first.container.innerHTML).toBe(stillHtml);
    first.unmount();

    await preloadMovingMarks();
    render(<RequestFlow nowMs={1150} requests={f.requests} reducedMotion={false} animating />);
    expect(screen.getByTestId('moving-marks')).toHaveAttribute('data-count');
  });
});
