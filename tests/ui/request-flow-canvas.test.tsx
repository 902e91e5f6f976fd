// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { RequestFlow } from '../../src/viz';
import { preloadMarksCanvas } from '../../src/viz/RequestFlow';
import { canvasMarksAsSvg } from '../../src/viz/MarksCanvas';
import { frame } from './fixtures';

afterEach(cleanup);

// A leaky bucket (nginx, 10 r/s, burst 3, delay 1) and a stream of 12 requests 20 ms apart: at
// t = 1150 some travel to the backend, some wait in the limiter, some bounce back, some come in.
const arrivals = Array.from({ length: 12 }, (_, i) => 900 + i * 20);
const f = frame(
  { kind: 'leaky-bucket', rate: 10, rateUnit: 'r/s', burst: 3, delay: 1 },
  arrivals,
  1150,
);

/** The marks the SVG drawing shows for moving requests: outcome class and centre. */
function svgMarks(root: Element) {
  return [...root.querySelectorAll('.rl-request')]
    .filter((g) => g.getAttribute('data-phase') !== 'waiting')
    .map((g) => {
      const [, x, y] =
        /translate\(([-\d.]+),([-\d.]+)\)/.exec(g.getAttribute('transform') ?? '') ?? [];
      return {
        outcome: g.getAttribute('data-outcome') ?? undefined,
        x: Number(x),
        y: Number(y),
        opacity: g.getAttribute('opacity') ?? '1',
      };
    });
}

describe('RequestFlow while the clock plays (marks on a canvas)', () => {
  it('draws the moving marks on one canvas, and its SVG copy is the still drawing at the same time', async () => {
    // jsdom has no 2D context: the canvas stays blank here, the copy is made from what it was given.
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const still = render(<RequestFlow nowMs={1150} requests={f.requests} reducedMotion={false} />);
    const expected = svgMarks(still.container);
    const waiting = still.container.querySelectorAll('[data-phase="waiting"]').length;
    expect(expected.length).toBeGreaterThan(3);
    expect(waiting).toBeGreaterThan(0);
    still.unmount();

    // The canvas is a chunk of its own: until it has arrived, a playing strip draws SVG marks.
    await preloadMarksCanvas();
    const playing = render(
      <RequestFlow nowMs={1150} requests={f.requests} reducedMotion={false} animating />,
    );
    const canvas = screen.getByTestId('marks-canvas');
    expect(canvas).toHaveAttribute('data-count', String(expected.length));
    expect(canvas).toHaveAttribute('aria-hidden', 'true');
    // Only the waiting requests (they do not move) stay SVG elements.
    expect(playing.container.querySelectorAll('.rl-request')).toHaveLength(waiting);
    const copy = canvasMarksAsSvg(canvas, document);
    expect(copy).not.toBeNull();
    // Each shape's centre (a square's from its corner, a cross's from its first stroke).
    const drawn = [...(copy as Element).children].map((el) => {
      const outcome = /rl-mark--(\w+)/.exec(el.getAttribute('class') ?? '')?.[1];
      const n = (name: string) => Number(el.getAttribute(name));
      const opacity = el.getAttribute('opacity') ?? '1';
      if (el.localName === 'rect') {
        return { outcome, x: n('x') + n('width') / 2, y: n('y') + n('height') / 2, opacity };
      }
      if (el.localName === 'path') {
        const [, x0, y0, x1, y1] =
          /^M([-\d.]+),([-\d.]+)L([-\d.]+),([-\d.]+)/.exec(el.getAttribute('d') ?? '') ?? [];
        return {
          outcome,
          x: (Number(x0) + Number(x1)) / 2,
          y: (Number(y0) + Number(y1)) / 2,
          opacity,
        };
      }
      return { outcome, x: n('cx'), y: n('cy'), opacity };
    });
    const key = (m: { outcome?: string | undefined; x: number; y: number; opacity: string }) =>
      `${m.outcome} ${Math.round(m.x)} ${Math.round(m.y)} ${m.opacity}`;
    expect(drawn.map(key).sort()).toEqual(expected.map(key).sort());
    // The same places to the drawing's rounding (0.1 px): none is off by more.
    const sorted = (list: typeof drawn) =>
      [...list].sort((a, b) => a.x - b.x || a.y - b.y).map((m) => [m.x, m.y]);
    const want = sorted(expected);
    sorted(drawn).forEach(([x, y], i) => {
      expect(Math.abs((x as number) - (want[i]?.[0] as number))).toBeLessThanOrEqual(0.06);
      expect(Math.abs((y as number) - (want[i]?.[1] as number))).toBeLessThanOrEqual(0.06);
    });
  });

  it('a click on the strip selects the nearest moving mark', async () => {
    await preloadMarksCanvas();
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const onSelect = vi.fn();
    const { container } = render(
      <RequestFlow
        nowMs={1150}
        requests={f.requests}
        reducedMotion={false}
        animating
        onSelectRequest={onSelect}
      />,
    );
    const svg = container.querySelector('svg') as SVGSVGElement;
    // jsdom lays nothing out: the SVG's px are the client's.
    svg.getScreenCTM = () =>
      ({ inverse: () => ({ a: 1, b: 0, c: 0, d: 1, e: 0, f: 0 }) }) as unknown as DOMMatrix;
    const copy = canvasMarksAsSvg(screen.getByTestId('marks-canvas'), document) as Element;
    const first = copy.querySelector('circle') as Element;
    const cx = Number(first.getAttribute('cx'));
    const cy = Number(first.getAttribute('cy'));
    const band = container.querySelector('.rl-flow-marks > rect.rl-hit') as Element;
    fireEvent.click(band, { clientX: cx + 2, clientY: cy - 2 });
    expect(onSelect).toHaveBeenCalledTimes(1);
    // Far from every mark: nothing is selected.
    fireEvent.click(band, { clientX: -500, clientY: -500 });
    expect(onSelect).toHaveBeenCalledTimes(1);
  });
});
