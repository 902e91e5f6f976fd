// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { exportViewSvg, matchWeight } from '../../src/ui/share/viewExport';

describe('matchWeight (CSS Fonts 4, §5.2: the face a browser picks for a weight)', () => {
  // The bundled faces: Inter 400 and 600.
  const inter = [400, 600];
  it('takes an exact match', () => {
    expect(matchWeight(400, inter)).toBe(400);
    expect(matchWeight(600, inter)).toBe(600);
  });
  it('above 500: heavier first, then lighter (bold 700 draws with 600)', () => {
    expect(matchWeight(700, inter)).toBe(600);
    expect(matchWeight(550, inter)).toBe(600);
    expect(matchWeight(900, [100, 300])).toBe(300);
  });
  it('400–500: up to 500 first, then lighter, then heavier', () => {
    expect(matchWeight(500, inter)).toBe(400);
    expect(matchWeight(450, [500, 300, 600])).toBe(500);
    expect(matchWeight(450, [600])).toBe(600);
  });
  it('below 400: lighter first, then heavier', () => {
    expect(matchWeight(300, inter)).toBe(400);
    expect(matchWeight(300, [200, 400])).toBe(200);
  });
  it('none available: nothing', () => {
    expect(matchWeight(400, [])).toBeUndefined();
  });
});

/** Lays elements out where a browser would have put them (jsdom does no layout). */
function place(el: Element, left: number, top: number, width: number, height: number) {
  vi.spyOn(el, 'getBoundingClientRect').mockReturnValue(
    DOMRect.fromRect({ x: left, y: top, width, height }),
  );
}

afterEach(() => {
  document.body.innerHTML = '';
  vi.restoreAllMocks();
});

describe('exportViewSvg', () => {
  it('clones the drawings where the page lays them out, without what only the live page needs', async () => {
    document.body.innerHTML = `
      <main class="stage">
        <section class="panel timeline-panel">
          <svg class="rl-viz rl-timeline" data-testid="timeline" width="300" height="60">
            <title>Timeline</title>
            <g role="slider" tabindex="0" aria-valuenow="2500" data-testid="timeline-handle">
              <path class="rl-timeline-now" d="M10,0V50"></path>
            </g>
            <rect style="display:none" data-testid="hidden"></rect>
          </svg>
        </section>
        <section class="lanes">
          <article class="lane">
            <header class="lane-header"><h3>Token bucket <span class="muted">· Envoy</span></h3></header>
            <svg class="rl-viz rl-token-bucket" width="200" height="100">
              <g class="rl-request" role="button" tabindex="0" data-testid="request-3">
                <circle class="rl-mark rl-mark--admit" r="5"></circle>
              </g>
            </svg>
          </article>
        </section>
      </main>`;
    const q = (s: string) => document.querySelector(s) as Element;
    place(q('.timeline-panel'), 400, 100, 320, 80);
    place(q('.rl-timeline'), 410, 110, 300, 60);
    place(q('.lane'), 400, 200, 320, 160);
    place(q('.lane-header'), 412, 212, 296, 22);
    place(q('h3'), 412, 212, 296, 22);
    place(q('.rl-token-bucket'), 412, 240, 100, 50); // drawn at half size by CSS

    const view = await exportViewSvg(q('.stage'), {
      title: 'Rate Limit Lab · Token bucket · t = 2.5 s',
      link: `http://example.test/?v=1&${'x'.repeat(100)}`,
    });
    const doc = new DOMParser().parseFromString(view.svg, 'image/svg+xml');
    expect(doc.querySelector('parsererror')).toBeNull();
    const root = doc.documentElement;
    expect(root.namespaceURI).toBe('http://www.w3.org/2000/svg');
    // 320 px of stage and 16 px of padding either side.
    expect(view.width).toBe(352);
    expect(root.getAttribute('viewBox')).toBe(`0 0 ${view.width} ${view.height}`);
    expect(root.querySelector(':scope > title')?.textContent).toBe(
      'Rate Limit Lab · Token bucket · t = 2.5 s',
    );

    // The link wraps (a URL has no spaces) and stays one link.
    const link = root.querySelector('a');
    expect(link?.getAttribute('href')).toBe(`http://example.test/?v=1&${'x'.repeat(100)}`);
    expect(
      Array.from(link?.querySelectorAll('text') ?? [])
        .map((t) => t.textContent)
        .join(''),
    ).toBe(`http://example.test/?v=1&${'x'.repeat(100)}`);

    const timeline = root.querySelector('[data-testid="timeline"]') as Element;
    const bucket = root.querySelector('.rl-token-bucket') as Element;
    expect(timeline.localName).toBe('g');
    const timelineY = Number(
      /translate\(26,(\d+(?:\.\d+)?)\)/.exec(timeline.getAttribute('transform') ?? '')?.[1],
    );
    expect(bucket.getAttribute('transform')).toBe(`translate(28,${timelineY + 130}) scale(0.5)`);
    // Focus and roles belong to the live page; hidden parts are left out; marks keep their hooks.
    const handle = root.querySelector('[data-testid="timeline-handle"]') as Element;
    expect([handle.getAttribute('role'), handle.getAttribute('tabindex')]).toEqual([null, null]);
    expect(handle.getAttribute('aria-valuenow')).toBeNull();
    expect(root.querySelector('[data-testid="hidden"]')).toBeNull();
    expect(root.querySelector('[data-testid="request-3"] .rl-mark--admit')).not.toBeNull();
    expect(root.querySelector('[data-testid="request-3"]')?.getAttribute('tabindex')).toBeNull();
    // The lane heading is redrawn as text, in its parts.
    expect(
      Array.from(root.querySelectorAll('[data-testid="export-stage"] > text tspan')).map(
        (t) => t.textContent,
      ),
    ).toEqual(['Token bucket ', '· Envoy']);
  });

  it('refuses a stage with nothing to draw', async () => {
    document.body.innerHTML = '<main class="stage"></main>';
    await expect(
      exportViewSvg(document.querySelector('.stage') as Element, { title: 't', link: '' }),
    ).rejects.toThrow('Nothing to export');
  });
});
