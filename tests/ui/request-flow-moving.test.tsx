// @vitest-environment jsdom
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { RequestFlow } from '../../src/viz';
import { preloadMovingMarks } from '../../src/viz/RequestFlow';
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

interface Drawn {
  outcome: string | undefined;
  x: number;
  y: number;
  opacity: number;
}

/** The marks the still drawing shows for moving requests: outcome, centre, opacity. */
function svgMarks(root: Element): Drawn[] {
  return [...root.querySelectorAll('.rl-request')]
    .filter((g) => g.getAttribute('data-phase') !== 'waiting')
    .map((g) => {
      const [, x, y] =
        /translate\(([-\d.]+),([-\d.]+)\)/.exec(g.getAttribute('transform') ?? '') ?? [];
      const pending = g.querySelector('.rl-mark--pending') !== null;
      return {
        outcome: pending ? 'pending' : (g.getAttribute('data-outcome') ?? undefined),
        x: Number(x),
        y: Number(y),
        opacity: Number(g.getAttribute('opacity') ?? '1'),
      };
    });
}

/** Each mark in the playing strip's paths, back from its path commands: outcome, centre, opacity. */
function pathMarks(root: Element): Drawn[] {
  const out: Drawn[] = [];
  for (const path of root.querySelectorAll('[data-testid="moving-marks"] path')) {
    const outcome = /rl-mark--(\w+)/.exec(path.getAttribute('class') ?? '')?.[1];
    const opacity = Number(path.getAttribute('opacity') ?? '1');
    const d = path.getAttribute('d') ?? '';
    const num = '(-?[\\d.]+)';
    if (outcome === 'admit' || outcome === 'pending') {
      // M(x − r),y a r,r 0 1,0 2r,0 …
      for (const m of d.matchAll(new RegExp(`M${num},${num}a${num},`, 'g')))
        out.push({ outcome, x: Number(m[1]) + Number(m[3]), y: Number(m[2]), opacity });
    } else if (outcome === 'delay') {
      // M(x − s),(y − s) h 2s …
      for (const m of d.matchAll(new RegExp(`M${num},${num}h${num}`, 'g')))
        out.push({
          outcome,
          x: Number(m[1]) + Number(m[3]) / 2,
          y: Number(m[2]) + Number(m[3]) / 2,
          opacity,
        });
    } else {
      // Two strokes per cross: the centre of the first.
      for (const m of d.matchAll(new RegExp(`M${num},${num}L${num},${num}M`, 'g')))
        out.push({
          outcome,
          x: (Number(m[1]) + Number(m[3])) / 2,
          y: (Number(m[2]) + Number(m[4])) / 2,
          opacity,
        });
    }
  }
  return out;
}

describe('RequestFlow while the clock plays (moving marks as a few paths)', () => {
  // The paths are a chunk of their own, fetched when a strip first plays (see the last test).
  beforeAll(preloadMovingMarks);

  it('draws the moving marks as paths, one per outcome and opacity, where the still drawing puts them', () => {
    const still = render(<RequestFlow nowMs={1150} requests={f.requests} reducedMotion={false} />);
    const expected = svgMarks(still.container);
    const waiting = still.container.querySelectorAll('[data-phase="waiting"]').length;
    expect(expected.length).toBeGreaterThan(3);
    expect(waiting).toBeGreaterThan(0);
    expect(new Set(expected.map((m) => m.outcome)).size).toBeGreaterThan(2);
    still.unmount();

    const playing = render(
      <RequestFlow nowMs={1150} requests={f.requests} reducedMotion={false} animating />,
    );
    const group = screen.getByTestId('moving-marks');
    expect(group).toHaveAttribute('data-count', String(expected.length));
    expect(group).toHaveAttribute('aria-hidden', 'true');
    // Only the waiting requests (they do not move) stay single elements.
    expect(playing.container.querySelectorAll('.rl-request')).toHaveLength(waiting);
    // Fewer paths than marks: marks of one outcome and opacity share one.
    const paths = group.querySelectorAll('path');
    expect(paths.length).toBeLessThan(expected.length);
    const keys = [...paths].map((p) => `${p.getAttribute('class')} ${p.getAttribute('opacity')}`);
    expect(new Set(keys).size).toBe(keys.length);

    const drawn = pathMarks(playing.container);
    const byPlace = (list: Drawn[]) =>
      [...list].sort(
        (a, b) => a.x - b.x || a.y - b.y || (a.outcome ?? '').localeCompare(b.outcome ?? ''),
      );
    const want = byPlace(expected);
    const got = byPlace(drawn);
    expect(got).toHaveLength(want.length);
    got.forEach((m, i) => {
      const e = want[i] as Drawn;
      expect(m.outcome).toBe(e.outcome);
      // The same places to the drawing's rounding (0.1 px).
      expect(Math.abs(m.x - e.x)).toBeLessThanOrEqual(0.06);
      expect(Math.abs(m.y - e.y)).toBeLessThanOrEqual(0.06);
      // Opacity in steps of 0.1: within 0.05 of the single mark's.
      expect(Math.abs(m.opacity - e.opacity)).toBeLessThanOrEqual(0.05 + 1e-9);
    });
  });

  it('at every moment of the stream (marks coming in, fading out): the same marks, places and opacities', () => {
    const seen = new Set<string>();
    for (let t = 700; t <= 2000; t += 25) {
      const still = render(<RequestFlow nowMs={t} requests={f.requests} reducedMotion={false} />);
      const want = svgMarks(still.container);
      still.unmount();
      const playing = render(
        <RequestFlow nowMs={t} requests={f.requests} reducedMotion={false} animating />,
      );
      const got = pathMarks(playing.container);
      playing.unmount();
      const key = (m: Drawn) => `${m.outcome} ${Math.round(m.x)} ${Math.round(m.y)}`;
      expect(got.map(key).sort()).toEqual(want.map(key).sort());
      const opacities = (list: Drawn[]) => list.map((m) => `${key(m)} ${m.opacity}`).sort();
      opacities(got).forEach((g, i) => {
        const w = opacities(want)[i] as string;
        expect(
          Math.abs(Number(g.split(' ').at(-1)) - Number(w.split(' ').at(-1))),
        ).toBeLessThanOrEqual(0.05 + 1e-9);
      });
      for (const m of want) seen.add(m.opacity < 1 ? 'fading' : (m.outcome ?? ''));
    }
    // The walk saw each kind of mark: coming in, admitted, delayed, rejected, and fading out.
    expect([...seen].sort()).toEqual(['admit', 'delay', 'fading', 'pending', 'reject']);
  });

  it('a click on the strip selects the nearest moving mark', () => {
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
    const first = pathMarks(container)[0] as Drawn;
    const band = container.querySelector('.rl-flow-marks > rect.rl-hit') as Element;
    fireEvent.click(band, { clientX: first.x + 2, clientY: first.y - 2 });
    expect(onSelect).toHaveBeenCalledTimes(1);
    // Far from every mark: nothing is selected.
    fireEvent.click(band, { clientX: -500, clientY: -500 });
    expect(onSelect).toHaveBeenCalledTimes(1);
  });
});
