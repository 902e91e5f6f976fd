// @vitest-environment jsdom
import { act, cleanup, render, screen } from '@testing-library/react';
import { useRef } from 'react';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { useOnScreen } from '../../src/ui/stage/hooks';

/**
 * A stand-in for the browser's IntersectionObserver with the implicit root (the viewport): it
 * applies `rootMargin` (px only, 1–4 values as CSS writes them) to a viewport `VIEWPORT_H` tall and
 * reports whether each target's rectangle (from `rects`) intersects it, as the browser does when
 * observation starts and whenever `scroll` moves the targets.
 */
const VIEWPORT_H = 800;
const rects = new Map<Element, { top: number; bottom: number }>();
const live = new Set<FakeObserver>();

class FakeObserver {
  readonly targets: Element[] = [];
  readonly top: number;
  readonly bottom: number;
  constructor(
    private readonly callback: IntersectionObserverCallback,
    options: IntersectionObserverInit = {},
  ) {
    const m = (options.rootMargin ?? '0px').trim().split(/\s+/).map(parseFloat);
    this.top = m[0] ?? 0;
    this.bottom = m[2] ?? m[0] ?? 0;
    live.add(this);
  }
  observe(target: Element) {
    this.targets.push(target);
    this.report(target);
  }
  report(target: Element) {
    const r = rects.get(target) ?? { top: 0, bottom: 100 };
    // The root's box grown by the margins: [−top, VIEWPORT_H + bottom].
    const isIntersecting = r.bottom > -this.top && r.top < VIEWPORT_H + this.bottom;
    const entry = { target, isIntersecting } as IntersectionObserverEntry;
    act(() => this.callback([entry], this as unknown as IntersectionObserver));
  }
  unobserve() {}
  disconnect() {
    live.delete(this);
  }
}

/** Moves `target` to [top, bottom] in viewport px and lets the live observers report it. */
function scroll(target: Element, top: number, bottom: number): void {
  rects.set(target, { top, bottom });
  for (const o of [...live]) if (o.targets.includes(target)) o.report(target);
}

function setBarHeight(px: number | null): void {
  act(() => {
    if (px === null) document.documentElement.style.removeProperty('--clock-bar-height');
    else document.documentElement.style.setProperty('--clock-bar-height', `${px}px`);
  });
}

function Probe() {
  const ref = useRef<HTMLDivElement>(null);
  const onScreen = useOnScreen(ref);
  return (
    <div ref={ref} data-testid="probe">
      {onScreen ? 'drawing' : 'still'}
    </div>
  );
}

beforeAll(() => {
  globalThis.IntersectionObserver = FakeObserver as unknown as typeof IntersectionObserver;
});

afterEach(() => {
  cleanup();
  setBarHeight(null);
  rects.clear();
});

/** MutationObserver callbacks run as microtasks: let them. */
async function settle(): Promise<void> {
  await act(async () => {
    await Promise.resolve();
  });
}

describe('useOnScreen and the sticky clock bar', () => {
  it('does not count a lane whose only visible part is under the bar', async () => {
    setBarHeight(60);
    render(<Probe />);
    await settle();
    const probe = screen.getByTestId('probe');
    // Lane 2's last 40 px are in the viewport, under the 60 px bar: nobody sees them.
    scroll(probe, -390, 40);
    expect(probe.textContent).toBe('still');
    // 10 px below the bar: seen, and drawing again at once.
    scroll(probe, -360, 70);
    expect(probe.textContent).toBe('drawing');
    // Wholly above the viewport, and wholly below it.
    scroll(probe, -500, -70);
    expect(probe.textContent).toBe('still');
    scroll(probe, 810, 1240);
    expect(probe.textContent).toBe('still');
    scroll(probe, 790, 1220);
    expect(probe.textContent).toBe('drawing');
  });

  it('follows the bar when it grows (a phone wraps it onto three rows)', async () => {
    setBarHeight(60);
    render(<Probe />);
    await settle();
    const probe = screen.getByTestId('probe');
    scroll(probe, -330, 100);
    expect(probe.textContent).toBe('drawing');
    // At 390 px the bar is 135 px tall: the same lane is now wholly under it.
    setBarHeight(135);
    await settle();
    expect(probe.textContent).toBe('still');
    scroll(probe, -280, 150);
    expect(probe.textContent).toBe('drawing');
  });

  it('counts the whole viewport before the bar has measured itself', async () => {
    render(<Probe />);
    await settle();
    const probe = screen.getByTestId('probe');
    scroll(probe, -390, 40);
    expect(probe.textContent).toBe('drawing');
  });
});
