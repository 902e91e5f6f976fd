import type { Page } from '@playwright/test';

/** One clash found on the page: two texts, or a text over an outcome mark. */
export interface Clash {
  kind: 'text-text' | 'text-mark';
  /** Where: the test id or class of the SVG the two are in. */
  svg: string;
  a: string;
  b: string;
}

/**
 * Every pair of visible texts in the stage's SVGs whose boxes intersect by more than `tolerancePx`
 * in both directions, and every text that covers an outcome mark (●, ■, ✕ or a pending ring) in the
 * same SVG, as the browser lays them out. Text boxes are the glyph boxes the browser reports
 * (getBoundingClientRect of each `<text>`), which include the font's ascent and descent, so the
 * tolerance is about the font's internal leading, not a licence to overlap.
 */
export async function findClashes(page: Page, tolerancePx = 1.5): Promise<Clash[]> {
  return page.evaluate((tol) => {
    interface Box {
      x0: number;
      y0: number;
      x1: number;
      y1: number;
      what: string;
      owner: Element | null;
    }
    const visible = (el: Element): boolean => {
      for (let e: Element | null = el; e !== null && e.tagName !== 'svg'; e = e.parentElement) {
        const s = getComputedStyle(e);
        if (s.display === 'none' || s.visibility === 'hidden' || Number(s.opacity) === 0)
          return false;
      }
      const r = el.getBoundingClientRect();
      return r.width > 0 && r.height > 0;
    };
    const boxOf = (el: Element, what: string): Box => {
      const r = el.getBoundingClientRect();
      return {
        x0: r.left,
        y0: r.top,
        x1: r.right,
        y1: r.bottom,
        what,
        // A request mark's own label sits beside its own mark: they are one thing.
        owner: el.closest('.rl-request'),
      };
    };
    const overlap = (a: Box, b: Box): boolean =>
      Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0) > tol &&
      Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0) > tol;
    const clashes: {
      kind: 'text-text' | 'text-mark';
      svg: string;
      a: string;
      b: string;
    }[] = [];
    const stage = document.querySelector('#stage');
    if (stage === null) throw new Error('no #stage on the page');
    for (const svg of stage.querySelectorAll('svg')) {
      // Only outermost SVGs (an icon inside a view would be counted twice).
      if (
        svg.parentElement?.closest('svg') !== null &&
        svg.parentElement?.closest('svg') !== undefined
      )
        continue;
      const name =
        svg.getAttribute('data-testid') ??
        [...svg.classList].find((c) => c !== 'rl-viz') ??
        svg.getAttribute('class') ??
        'svg';
      const texts = [...svg.querySelectorAll('text')]
        .filter((t) => (t.textContent ?? '').trim() !== '' && visible(t))
        .map((t) => boxOf(t, JSON.stringify((t.textContent ?? '').trim())));
      const marks = [...svg.querySelectorAll('.rl-mark')]
        .filter((m) => visible(m))
        .map((m) => {
          const req = m.closest('.rl-request');
          const id = req?.getAttribute('data-testid') ?? 'legend';
          return boxOf(m, `${m.getAttribute('class') ?? 'mark'} (${id})`);
        });
      for (let i = 0; i < texts.length; i += 1) {
        const a = texts[i]!;
        for (let j = i + 1; j < texts.length; j += 1) {
          const b = texts[j]!;
          if (overlap(a, b)) clashes.push({ kind: 'text-text', svg: name, a: a.what, b: b.what });
        }
        for (const m of marks) {
          if (a.owner !== null && a.owner === m.owner) continue;
          if (overlap(a, m)) clashes.push({ kind: 'text-mark', svg: name, a: a.what, b: m.what });
        }
      }
    }
    return clashes;
  }, tolerancePx);
}
