// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { LeakyBucketView } from '../../src/viz';
import { AnimatingContext } from '../../src/viz/animating';
import type { LeakyBucketConfig, LeakyBucketInspection } from '../../src/core';
import { burst, frame } from './fixtures';
import type { Frame } from './fixtures';

afterEach(cleanup);

function draw(
  f: Frame<LeakyBucketConfig>,
  reducedMotion = false,
  animating = false,
  selectable: boolean | ((id: number) => void) = false,
) {
  return render(
    <AnimatingContext value={animating}>
      <LeakyBucketView
        config={f.config}
        inspection={f.inspection as LeakyBucketInspection}
        nowMs={f.nowMs}
        requests={f.requests}
        reducedMotion={reducedMotion}
        {...(selectable === false
          ? {}
          : { onSelectRequest: selectable === true ? () => {} : selectable })}
      />
    </AnimatingContext>,
  );
}

// nginx `limit_req zone=… rate=10r/s burst=5 delay=2` hit by 9 requests at once: the first passes
// with excess 0, the next two pass (excess ≤ 2), three wait 100/200/300 ms, three get 503.
const config: LeakyBucketConfig = {
  kind: 'leaky-bucket',
  rate: 10,
  rateUnit: 'r/s',
  burst: 5,
  delay: 2,
};

describe('LeakyBucketView (nginx limit_req)', () => {
  it('shows the excess, the delay= threshold, the burst slots and the queue', () => {
    const f = frame(config, burst(1000, 9), 1000);
    const i = f.inspection as LeakyBucketInspection;
    expect(i.excessNowMilli).toBe(5000);
    expect(i.releases).toEqual([1100, 1200, 1300]);
    draw(f);
    expect(screen.getByTestId('excess-value')).toHaveTextContent('5');
    expect(screen.getByTestId('delay-threshold')).toHaveTextContent('delay=2');
    expect(screen.getByTestId('burst-limit')).toHaveTextContent('burst=5');
    // One divider between each pair of the 5 burst slots.
    expect(screen.getAllByTestId('burst-slot-divider')).toHaveLength(4);
    const queue = screen.getAllByTestId('queue-item');
    expect(queue).toHaveLength(i.releases.length);
    expect(queue[0]).toHaveTextContent('out in 100 ms');
    expect(queue[0]?.querySelector('[data-testid="request-4"]')).not.toBeNull();
    expect(screen.getByRole('img')).toHaveAccessibleName(
      'nginx limit_req: excess 5 of burst=5; delay=2; 3 requests queued, next leaves in 100 ms; 3 rejected just now.',
    );
  });

  it('the queue drains at the rate: 100 ms later one request has left and the rest moved on', () => {
    const a = frame(config, burst(1000, 9), 1050);
    const b = frame(config, burst(1000, 9), 1150);
    const { unmount } = draw(a);
    const x = (el: Element | null | undefined) =>
      Number(/translate\(([-\d.]+)/.exec(el?.getAttribute('transform') ?? '')?.[1]);
    const before = x(screen.getByTestId('request-5'));
    expect(screen.getAllByTestId('queue-item')).toHaveLength(3);
    unmount();
    draw(b);
    expect(screen.getAllByTestId('queue-item')).toHaveLength(2);
    expect(x(screen.getByTestId('request-5'))).toBeGreaterThan(before);
  });

  it('rejected requests bounce with 503 and Retry-After; reduced motion keeps the label, not the bounce', () => {
    const f = frame(config, burst(1000, 9), 1100);
    const rejected = f.requests.filter((r) => r.outcome === 'reject');
    expect(rejected.map((r) => r.retryAfterMs)).toEqual([100, 100, 100]);
    const { unmount } = draw(f);
    expect(screen.getByTestId('reject-label')).toHaveTextContent('3 rejected · 503 · retry in 1 s');
    expect(document.querySelectorAll('[data-phase="bounce"]')).toHaveLength(3);
    unmount();
    draw(f, true);
    expect(screen.getByTestId('reject-label')).toHaveTextContent('3 rejected · 503 · retry in 1 s');
    expect(document.querySelectorAll('[data-phase="bounce"]')).toHaveLength(0);
  });

  it('while the clock plays, the bouncing rejects are one decorative path, not focusable marks', () => {
    const f = frame(config, burst(1000, 9), 1100);
    draw(f, false, false, true);
    // Still: three single marks a person can focus, at their place in the bounce.
    const still = [...document.querySelectorAll('[data-phase="bounce"]')];
    expect(still).toHaveLength(3);
    expect(still.every((m) => m.getAttribute('tabindex') === '0')).toBe(true);
    const at = still.map((m) => m.getAttribute('transform'));
    const opacity = still[0]?.getAttribute('opacity');
    cleanup();
    draw(f, false, true, true);
    expect(document.querySelectorAll('[data-phase="bounce"]')).toHaveLength(0);
    const moving = screen.getByTestId('moving-marks');
    expect(moving).toHaveAttribute('aria-hidden', 'true');
    expect(moving).toHaveAttribute('data-count', '3');
    const paths = moving.querySelectorAll('path');
    expect(paths).toHaveLength(1);
    expect(paths[0]).toHaveClass('rl-mark--reject');
    // The same fade, in the tenths the moving marks share paths by.
    expect(paths[0]).toHaveAttribute('opacity', String(Math.round(Number(opacity) * 10) / 10));
    // Each ✕ is two strokes, the first from its top left: where its still mark is centred, less
    // the cross's half-width (0.85 × 5 px).
    const starts = [...(paths[0]?.getAttribute('d') ?? '').matchAll(/M([\d.]+),([\d.]+)L/g)];
    expect(starts).toHaveLength(6);
    const centre = /translate\(([\d.]+),([\d.]+)\)/.exec(at[0] ?? '');
    // (Both are written in tenths of a px.)
    expect(Math.abs(Number(starts[0]?.[1]) - (Number(centre?.[1]) - 4.25))).toBeLessThan(0.11);
    expect(Math.abs(Number(starts[0]?.[2]) - (Number(centre?.[2]) - 4.25))).toBeLessThan(0.11);
    // The queue's marks stay single and focusable.
    expect(document.querySelectorAll('[data-phase="waiting"][tabindex="0"]')).toHaveLength(2);
    expect(screen.getAllByTestId('queue-item')).toHaveLength(2);
    // Reduced motion: no bounce either way.
    cleanup();
    draw(f, true, true, true);
    expect(screen.queryByTestId('moving-marks')).toBeNull();
  });

  it('while the clock plays, a click on the bouncing marks selects the nearest one', () => {
    const f = frame(config, burst(1000, 9), 1100);
    const onSelect = vi.fn();
    draw(f, false, true, onSelect);
    const svg = document.querySelector('svg') as SVGSVGElement;
    // jsdom lays nothing out: the SVG's px are the client's.
    svg.getScreenCTM = () =>
      ({ inverse: () => ({ a: 1, b: 0, c: 0, d: 1, e: 0, f: 0 }) }) as unknown as DOMMatrix;
    const d = screen.getByTestId('moving-marks').querySelector('path')?.getAttribute('d') ?? '';
    // The first ✕'s top left corner, and its centre 4.25 px in.
    const [, x, y] = /M([\d.]+),([\d.]+)L/.exec(d) ?? [];
    const band = screen.getByTestId('bounce-hit');
    fireEvent.click(band, { clientX: Number(x) + 4.25 + 2, clientY: Number(y) + 4.25 - 2 });
    const rejected = f.requests.filter((r) => r.outcome === 'reject').map((r) => r.id);
    expect(onSelect).toHaveBeenCalledTimes(1);
    expect(rejected).toContain(onSelect.mock.calls[0]?.[0]);
    // Far from every mark: nothing is selected.
    fireEvent.click(band, { clientX: -500, clientY: -500 });
    expect(onSelect).toHaveBeenCalledTimes(1);
  });

  it('requests cut short of the last travelMs: "≥" on the count, or the exact count when given', () => {
    const f = frame(config, burst(1000, 9), 1100);
    const props = {
      config: f.config,
      inspection: f.inspection as LeakyBucketInspection,
      nowMs: f.nowMs,
      requests: f.requests,
      reducedMotion: false,
      // Complete only from 1000 ms on: the last 400 ms reach back to 701.
      requestsFromMs: 1000,
    };
    const { unmount } = render(<LeakyBucketView {...props} />);
    expect(screen.getByTestId('reject-label')).toHaveTextContent('≥3 rejected · 503');
    expect(screen.getByRole('img', { name: /at least 3 rejected just now/ })).toBeInTheDocument();
    unmount();
    const asked: number[][] = [];
    render(
      <LeakyBucketView
        {...props}
        countRequests={(key, fromMs, toMs) => {
          asked.push([fromMs, toMs]);
          return key === 'default' ? { admitted: 3, delayed: 3, rejected: 7 } : null;
        }}
      />,
    );
    expect(asked).toEqual([[701, 1101]]);
    expect(screen.getByTestId('reject-label')).toHaveTextContent(/^7 rejected · 503/);
  });

  it('limit_req_status 429 is what the rejected client sees', () => {
    const f = frame({ ...config, limitReqStatus: 429 }, burst(1000, 9), 1000);
    draw(f);
    expect(screen.getByTestId('reject-label')).toHaveTextContent('429 · retry in 1 s');
  });

  it('nodelay: no threshold and no queue', () => {
    const f = frame({ ...config, delay: 'nodelay' }, burst(1000, 6), 1000);
    expect((f.inspection as LeakyBucketInspection).releases).toEqual([]);
    draw(f);
    expect(screen.queryByTestId('delay-threshold')).toBeNull();
    expect(screen.queryAllByTestId('queue-item')).toHaveLength(0);
    expect(screen.getByTestId('queue')).toHaveTextContent('nodelay');
  });
});
