import fs from 'node:fs';
import type { Page } from '@playwright/test';
import { expect, open, test } from './fixtures';

/** Clicks a Download menu item and reads the file the browser saved. */
async function download(page: Page, item: RegExp): Promise<{ name: string; body: Buffer }> {
  const toggle = page.getByRole('button', { name: 'Download', exact: true });
  await toggle.click();
  const [file] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('group', { name: 'Downloads' }).getByRole('button', { name: item }).click(),
  ]);
  await expect(toggle).toHaveAttribute('aria-expanded', 'false');
  return { name: file.suggestedFilename(), body: fs.readFileSync(await file.path()) };
}

/** What the browser makes of an SVG file: parse errors, root, marks, colours and fonts. */
async function readSvg(page: Page, text: string) {
  return page.evaluate((svg) => {
    const doc = new DOMParser().parseFromString(svg, 'image/svg+xml');
    const root = doc.documentElement;
    const admit = doc.querySelector('[data-testid="timeline-counts"] .rl-mark--admit');
    return {
      error: doc.querySelector('parsererror')?.textContent ?? null,
      root: `${root.namespaceURI} ${root.localName}`,
      size: [root.getAttribute('width'), root.getAttribute('height'), root.getAttribute('viewBox')],
      background: root.querySelector(':scope > rect')?.getAttribute('style') ?? '',
      title: root.querySelector(':scope > title')?.textContent ?? '',
      timelineMarks: doc.querySelectorAll('[data-testid="timeline"] .rl-mark').length,
      tokens: [
        doc.querySelectorAll('[data-testid="token"]').length,
        doc.querySelectorAll('[data-testid="token-partial"]').length,
      ],
      flowMarks: doc.querySelectorAll('.rl-flow .rl-mark').length,
      admitStyle: admit?.getAttribute('style') ?? '',
      fontFaces: (doc.querySelector('defs style')?.textContent ?? '').match(
        /font-family:"[^"]+";font-style:normal;font-weight:\d+;src:url\(data:font\/woff2;base64,/g,
      ),
      hasVar: svg.includes('var(--'),
    };
  }, text);
}

test('downloads the decision log (CSV, JSON) and the view (SVG, PNG) of a paused moment', async ({
  page,
  errors,
}) => {
  await open(page, './?v=1&t=2.5s&paused');
  // The decisions shown: the timeline's per-outcome counts of the lane (the timeline is drawn once
  // its width is measured, a task after the page has opened).
  await expect(page.getByTestId('timeline-counts').first()).toBeVisible();
  const counts = await page.getByTestId('timeline-counts').locator('text').allTextContents();
  const shown = counts.reduce((n, c) => n + Number(c.replace(/,/g, '')), 0);
  expect(shown).toBeGreaterThan(50);

  const csv = await download(page, /Decision log \(CSV\)/);
  expect(csv.name).toBe('rate-limit-lab-envoy-decisions.csv');
  const lines = csv.body.toString('utf8').split('\r\n');
  expect(lines[0]).toBe(
    'lane,request,row,attempt,arrival_ms,key,client,instance,outcome,delay_ms,release_ms,' +
      'retry_after_ms,remaining,reset_ms,status,retry_after',
  );
  expect(lines.at(-1)).toBe('');
  expect(lines.length - 2).toBe(shown);
  const rejected = await page
    .getByTestId('timeline-counts')
    .locator('[data-outcome="reject"] text')
    .textContent();
  expect(lines.filter((l) => l.includes(',reject,') && l.endsWith(',429,1')).length).toBe(
    Number(rejected),
  );

  const json = await download(page, /Decision log \(JSON\)/);
  expect(json.name).toBe('rate-limit-lab-envoy-decisions.json');
  const log = JSON.parse(json.body.toString('utf8')) as {
    generatedBy: string;
    link: string;
    lanes: Array<{ requests: unknown[]; metrics: { offered: number } }>;
  };
  expect(log.generatedBy).toBe('Rate Limit Lab');
  expect(log.link).toMatch(/\/\?v=1&t=2\.5s&paused$/);
  expect(log.lanes[0]?.requests).toHaveLength(shown);
  expect(log.lanes[0]?.metrics.offered).toBe(shown);

  const svgFile = await download(page, /View \(SVG\)/);
  expect(svgFile.name).toBe('rate-limit-lab-envoy-t2.5s.svg');
  const svg = await readSvg(page, svgFile.body.toString('utf8'));
  expect(svg.error).toBeNull();
  expect(svg.root).toBe('http://www.w3.org/2000/svg svg');
  const [w, h, viewBox] = svg.size;
  expect(viewBox).toBe(`0 0 ${w} ${h}`);
  expect(svg.title).toBe('Rate Limit Lab · Envoy · t = 2.5 s');
  // The same marks as on the page: the timeline's, the bucket's tokens (1.9 of 10 at 2.5 s: one
  // whole, one partly refilled) and the requests in flight.
  expect(svg.timelineMarks).toBe(await page.locator('[data-testid="timeline"] .rl-mark').count());
  expect(svg.tokens).toEqual([1, 1]);
  expect(svg.flowMarks).toBe(await page.locator('.rl-flow .rl-mark').count());
  expect(svg.flowMarks).toBeGreaterThan(5);
  expect(svg.hasVar).toBe(false);
  // Colours are the theme's, resolved: the admitted mark is the page's light --admit (#0072b2).
  expect(svg.admitStyle).toContain('fill:rgb(0, 114, 178)');
  expect(svg.background).toContain('fill:rgb(247, 247, 245)');
  // Inter 400 and 600 and JetBrains Mono 400, latin only, embedded.
  expect(svg.fontFaces).toHaveLength(3);

  const png = await download(page, /View \(PNG\)/);
  expect(png.name).toBe('rate-limit-lab-envoy-t2.5s.png');
  expect([...png.body.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  expect(png.body.length).toBeGreaterThan(50_000);
  // IHDR: width and height at 2×.
  expect([png.body.readUInt32BE(16), png.body.readUInt32BE(20)]).toEqual([
    2 * Number(w),
    2 * Number(h),
  ]);
  expect(errors).toEqual([]);
});

test('the exported view follows the dark theme', async ({ page }) => {
  await open(page, './?v=1&t=2.5s&paused');
  await page.getByRole('button', { name: 'Switch to dark theme' }).click();
  const svg = await readSvg(page, (await download(page, /View \(SVG\)/)).body.toString('utf8'));
  expect(svg.background).toContain('fill:rgb(21, 22, 26)'); // dark --bg #15161a
  expect(svg.admitStyle).toContain('fill:rgb(86, 180, 233)'); // dark --admit #56b4e9
  expect(svg.hasVar).toBe(false);
});

test('a view saved while the clock plays draws the moment it stopped at, strip and all, and plays on', async ({
  page,
}) => {
  // Playing, the request-flow strip is a worker's canvas, which an SVG cannot hold.
  await open(page, './?v=1&t=2.5s');
  await expect(page.getByTestId('request-flow-painted')).toBeVisible();
  const file = await download(page, /View \(SVG\)/);
  const svg = await readSvg(page, file.body.toString('utf8'));
  expect(svg.error).toBeNull();
  const t = /^Rate Limit Lab · Envoy · t = ([\d.]+) s$/.exec(svg.title);
  expect(t).not.toBeNull();
  // The strip as SVG, with its marks.
  expect(svg.flowMarks).toBeGreaterThan(5);
  // And the clock plays on from there. On a fast machine the readout may not have drawn a later
  // frame yet when the download ends, so it is read until it moves past the saved moment.
  await expect(page.getByRole('button', { name: 'Pause' })).toBeVisible();
  await expect(page.getByTestId('request-flow-painted')).toBeVisible();
  const readout = page.getByLabel('Virtual time');
  await expect
    .poll(async () => Number(/t = ([\d.]+) s/.exec((await readout.textContent()) ?? '')?.[1]))
    .toBeGreaterThan(Number(t?.[1]));
});
