import { clearTraffic, expect, open, test } from './fixtures';

test('a copied link reopened in a fresh page draws the same pixels', async ({
  page,
  context,
  browser,
}) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  // Tall enough that nothing scrolls: the sticky clock bar never overlaps what is compared.
  const viewport = { width: 1280, height: 2400 };
  await page.setViewportSize(viewport);
  await open(
    page,
    './?v=1&l=nginx:rate=2r/s,burst=5,delay=2&l=fixed-window:limit=5,window=1s&mode=compare&paused',
  );
  const limiter = page.getByRole('region', { name: 'Limiters' });
  await limiter.getByLabel('burst', { exact: true }).fill('3');
  // Scrub to 2.7 s with the keyboard (Shift+→ 1 s, → 100 ms).
  await page.getByRole('slider', { name: 'Timeline' }).focus();
  for (const key of [
    'Shift+ArrowRight',
    'Shift+ArrowRight',
    ...Array<string>(7).fill('ArrowRight'),
  ])
    await page.keyboard.press(key);
  await expect(page.getByLabel('Virtual time')).toHaveText('t = 2.7 s / 20 s');
  await page.getByRole('button', { name: 'Copy link' }).click();
  const link = await page.evaluate(() => navigator.clipboard.readText());
  expect(link).toContain('burst=3');
  expect(link).toContain('t=2.7s');
  expect(link).toContain('paused');
  // No hover and no focus ring in the picture: the reopened page has neither.
  await page.mouse.move(0, 0);
  await page.locator(':focus').blur();
  await expect(page.locator('.charts-panel svg')).toHaveCount(3);

  // The reopened page draws its exact result in its first render.
  const fresh = await browser.newPage({ viewport });
  const freshErrors: string[] = [];
  fresh.on('pageerror', (e) => freshErrors.push(String(e)));
  await fresh.goto(link);
  await fresh.evaluate(() => document.fonts.ready);
  await expect(fresh.getByLabel('Virtual time')).toHaveText('t = 2.7 s / 20 s');
  await expect(fresh.locator('.charts-panel svg')).toHaveCount(3);
  const after = await fresh.locator('.stage').screenshot();
  await test.info().attach('reopened', { body: after, contentType: 'image/png' });
  // The edited page's charts take the edit's result in a task after the frame that drew it
  // elsewhere (useValueAfterFrame), and no mark says when: its picture is read until it is the
  // reopened one, byte for byte (a deep-equality diff of two PNG buffers would take minutes to
  // print). One read taken at once could catch the charts before they had taken the edit.
  let before: Buffer = Buffer.alloc(0);
  try {
    await expect
      .poll(async () => {
        before = await page.locator('.stage').screenshot();
        return before.equals(after);
      })
      .toBe(true);
  } finally {
    await test.info().attach('original', { body: before, contentType: 'image/png' });
  }
  expect(freshErrors).toEqual([]);
  await fresh.close();
});

test('Back undoes an edit, Forward redoes it', async ({ page }) => {
  await open(page);
  const maxTokens = page.getByRole('region', { name: 'Limiter' }).getByLabel('max_tokens');
  await maxTokens.fill('20');
  await expect(page).toHaveURL(/max_tokens=20/);
  await expect(page.getByTestId('limiter-view')).toContainText('/ 20 tokens');
  await page.goBack();
  await expect(maxTokens).toHaveValue('10');
  await expect(page.getByTestId('limiter-view')).toContainText('/ 10 tokens');
  await page.goForward();
  await expect(maxTokens).toHaveValue('20');
});

test('the link decoder is fetched only for a link: never by the bare page, before a link draws, for Back to one', async ({
  page,
  errors,
}) => {
  // The link decoder and the repair of untrusted input are chunks of their own (src/ui/share/
  // openLink.ts; src/config/url.ts with repair.ts), outside the first load.
  const decoders: string[] = [];
  page.on('request', (r) => {
    const path = new URL(r.url()).pathname;
    if (/\/assets\/(openLink|url)-[\w-]+\.js$/.test(path)) decoders.push(path);
  });
  const maxTokens = page.getByRole('region', { name: 'Limiter' }).getByLabel('max_tokens');
  await open(page, './');
  await expect(maxTokens).toHaveValue('10');
  expect(decoders).toEqual([]);

  // An edit pushes a link: the decoder is fetched then, ready for Back and Forward.
  await maxTokens.fill('20');
  await expect(page).toHaveURL(/max_tokens=20/);
  await expect.poll(() => decoders.length).toBe(2);
  await page.goBack();
  await expect(maxTokens).toHaveValue('10');
  await page.goForward();
  await expect(maxTokens).toHaveValue('20');
  await expect(page.getByTestId('limiter-view')).toContainText('/ 20 tokens');

  // A link opened in a fresh page: the decoder comes before the first render, which is the link's.
  decoders.length = 0;
  await open(page, './?v=1&l=gcra:max_burst=2,count=3,period=1s&paused');
  expect(decoders).toHaveLength(2);
  await expect(page.getByRole('region', { name: 'Limiter' }).getByLabel('count')).toHaveValue('3');
  await expect(page.getByTestId('link-problems')).toHaveCount(0);
  expect(errors).toEqual([]);
});

test('the last settings survive a reload; opening a link does not overwrite them until an edit', async ({
  page,
}) => {
  await open(page);
  await page.getByRole('region', { name: 'Limiter' }).getByLabel('max_tokens').fill('7');
  await expect(page).toHaveURL(/max_tokens=7/);
  await page.goto('./');
  await expect(page.getByRole('region', { name: 'Limiter' }).getByLabel('max_tokens')).toHaveValue(
    '7',
  );

  // A link opens what it says…
  await page.goto('./?v=1&l=gcra:max_burst=2,count=3,period=1s&paused');
  await expect(page.getByRole('region', { name: 'Limiter' }).getByLabel('count')).toHaveValue('3');
  // …and the saved settings are still the ones edited last.
  await page.goto('./');
  await expect(page.getByRole('region', { name: 'Limiter' }).getByLabel('max_tokens')).toHaveValue(
    '7',
  );

  await page.getByRole('button', { name: 'Reset to defaults' }).click();
  await expect(page.getByRole('region', { name: 'Limiter' }).getByLabel('max_tokens')).toHaveValue(
    '10',
  );
  await page.goto('./');
  await expect(page.getByRole('region', { name: 'Limiter' }).getByLabel('max_tokens')).toHaveValue(
    '10',
  );
});

/** Broken and hostile links: each opens the page with a message saying what and where. */
const BAD_LINKS: ReadonlyArray<readonly [what: string, query: string, says: RegExp]> = [
  ['truncated', 'v=1&l=nginx:rate=10r/s,bur', /l\[0\]/],
  ['malformed', 'v=1&src=poisson:rate=abc,from=0,to=10s&until=%E0%A4%A', /src\[0\] rate/],
  ['from an unknown version', 'v=99&l=nginx:rate=10r/s', /version/i],
  ['too long', `v=1&seed=${'9'.repeat(9000)}`, /8000/],
  ['absurd numbers', 'v=1&l=nginx:rate=1e308r/s,burst=-4&until=NaN', /burst/],
  [
    'script in a name',
    'v=1&l=envoy:name=%3Cimg%20src%3Dx%20onerror%3Dwindow.__pwned%3D1%3E,max_tokens=5',
    /name/,
  ],
  [
    'prototype pollution',
    'v=1&__proto__=1&constructor=2&l=__proto__:limit=1',
    /__proto__|unknown/i,
  ],
];

for (const [what, query, says] of BAD_LINKS) {
  test(`a link that is ${what} opens anyway, says what is wrong, and runs nothing`, async ({
    page,
  }) => {
    const dialogs: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    await open(page, `./?${query}`);
    const problems = page.getByTestId('link-problems');
    await expect(problems).toBeVisible();
    await expect(problems).toContainText(says);
    await expect(problems.getByLabel('The link as it came')).toHaveValue(query);
    // The nearest valid settings run: a limiter view is drawn and nothing is NaN.
    await expect(page.getByTestId('limiter-view').first()).toBeVisible();
    // (The message may quote a NaN from the link; the playground itself never shows one.)
    await expect(page.locator('.lanes')).not.toContainText('NaN');
    await expect(page.locator('.sidebar')).not.toContainText('NaN');
    expect(
      await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned),
    ).toBeUndefined();
    expect(
      await page.evaluate(() => Object.prototype.hasOwnProperty.call(Object.prototype, 'limit')),
    ).toBe(false);
    expect(await page.locator('img[src="x"]').count()).toBe(0);
    expect(dialogs).toEqual([]);
  });
}

test('what was wrong with a link is the first thing shown: above the controls on a phone, atop the stage on a wide screen', async ({
  page,
}) => {
  const top = async (selector: string) => (await page.locator(selector).boundingBox())?.y ?? -1;
  await page.setViewportSize({ width: 390, height: 844 });
  await open(page, './?v=1&l=nginx:rate=abc&paused');
  const problems = page.getByTestId('link-problems');
  await expect(problems).toBeInViewport();
  expect(await top('[data-testid="link-problems"]')).toBeLessThan(await top('.sidebar'));
  // Dismissed, the page is as it would be without problems.
  await problems.getByRole('button', { name: 'Dismiss' }).click();
  await expect(problems).toHaveCount(0);
  await page.setViewportSize({ width: 1280, height: 800 });
  expect(await top('#stage')).toBe(await top('.sidebar'));
  await open(page, './?v=1&l=nginx:rate=abc&paused');
  expect(await top('[data-testid="link-problems"]')).toBe(await top('.sidebar'));
  expect(await top('#stage')).toBeGreaterThan(await top('[data-testid="link-problems"]'));
});

test('a docs link to an experiment opens it at its moment with its measured answer', async ({
  page,
}) => {
  await open(page, './?x=boundary-burst');
  await expect(page.getByTestId('experiment-card')).toHaveAttribute('data-id', 'boundary-burst');
  await expect(page.getByTestId('experiment-headline')).toContainText('fixed window passes 20');
  await expect(page.getByTestId('limiter-view')).toHaveCount(3);
});

test('fire a request into a quiet scenario and see its decision', async ({ page }) => {
  await open(page);
  await clearTraffic(page);
  await page.keyboard.press('f');
  // The request just fired is selected: the inspector shows its decision and response at once.
  await expect(page.getByTestId('inspector').getByTestId('rule')).toHaveText(
    'tokens 10 ≥ 1 → admit',
  );
  await expect(page.getByTestId('http-response')).toContainText('HTTP/1.1 200 OK');
});

test('embed mode shows the stage alone, in the system theme, with a way out', async ({ page }) => {
  await page.emulateMedia({ colorScheme: 'dark' });
  await open(page, './?v=1&l=nginx:rate=2r/s,burst=5&t=3s&paused&embed');
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await expect(page.getByTestId('limiter-view')).toBeVisible();
  await expect(page.getByRole('slider', { name: 'Timeline' })).toBeVisible();
  await expect(page.getByRole('complementary', { name: 'Settings' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Copy link' })).toHaveCount(0);
  const out = page.getByRole('link', { name: /Open in Rate Limit Lab/ });
  await expect(out).toHaveAttribute('href', /l=nginx/);
  expect(await out.getAttribute('href')).not.toContain('embed');
});

test('the theme toggle is remembered across reloads', async ({ page }) => {
  await open(page);
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
  await page.getByRole('button', { name: 'Switch to dark theme' }).click();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await page.reload();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
});

test('a run over the cap is cut at an exact moment and says so', async ({ page }) => {
  await open(page, './?v=1&src=constant:rate=100000r/s,from=0,to=20s&t=1s&paused');
  const notice = page.getByTestId('run-notice');
  await expect(notice).toContainText('This run was cut at 10 s of 20 s');
  await expect(notice).toContainText('1000000');
  await expect(page.getByTestId('limiter-view')).toBeVisible();
});
