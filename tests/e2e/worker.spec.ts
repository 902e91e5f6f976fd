/**
 * a large re-simulation runs in the worker. The page keeps drawing the previous result
 * with a quiet "updating" note, then draws the new one; the worker also loads when the site is
 * served from a sub-path.
 */
import { expect, test } from './fixtures';

/**
 * The default token bucket (max_tokens 10), 400,000 arrivals (2,000/s for 200 s: ten times what is
 * simulated in place), paused at 150 s.
 */
const BIG = 'v=1&src=constant:rate=2000r/s,from=0,to=200s&until=200s&t=150s&paused';

for (const prefix of ['/', '/tools/rll/']) {
  test(`an edit to a large run is simulated in the worker (served at ${prefix})`, async ({
    page,
  }) => {
    if (prefix !== '/') {
      // The built site under a sub-path: every request below it is answered from the root.
      await page.context().route(`**${prefix}**`, async (route) => {
        const url = new URL(route.request().url());
        url.pathname = url.pathname.replace(prefix, '/');
        await route.fulfill({ response: await route.fetch({ url: url.href }) });
      });
    }
    const workers: string[] = [];
    page.on('worker', (w) => workers.push(w.url()));
    await page.goto(`.${prefix}?${BIG}`);
    await page.evaluate(() => document.fonts.ready);
    const view = page.getByTestId('limiter-view').first();
    // The first run, over the main thread's budget, was computed in the worker too (the stage
    // says "Computing the simulation" meanwhile); drawn paused at t = 150 s.
    await expect(view).toContainText('/ 10 tokens');

    await page.getByLabel('max_tokens').fill('37');
    await expect(view).toContainText('/ 37 tokens', { timeout: 20_000 });
    await expect(page.locator('.sim-updating')).toHaveCount(0);
    expect(workers).toHaveLength(1);
    expect(workers[0]).toContain(`${prefix}assets/sim.worker-`);
    // A request still on its way when the page closes (a chunk the page prefetches) must not fail
    // the test: its handler's fulfill throws once the context is gone (seen in a CI run).
    await page.context().unrouteAll({ behavior: 'ignoreErrors' });
  });
}

test('the page shows the previous result and "updating" while the worker computes', async ({
  page,
}) => {
  await page.goto(`./?${BIG}`);
  await page.evaluate(() => document.fonts.ready);
  const view = page.getByTestId('limiter-view').first();
  await expect(view).toContainText('/ 10 tokens');
  // What the view says when "updating" first shows, read in the same task (the worker, warm from
  // computing the first run, may answer within a few hundred ms: two reads could straddle it).
  const shownWhileUpdating = page.evaluate(
    () =>
      new Promise<string>((resolve) => {
        const look = (): boolean => {
          const updating = [...document.querySelectorAll('[role="status"]')].some((e) =>
            e.textContent?.includes('Updating the simulation'),
          );
          if (updating)
            resolve(document.querySelector('[data-testid="limiter-view"]')?.textContent ?? '');
          return updating;
        };
        const watch = new MutationObserver(() => {
          if (look()) watch.disconnect();
        });
        watch.observe(document.body, { childList: true, subtree: true, characterData: true });
      }),
  );
  await page.getByLabel('max_tokens').fill('38');
  // Right after the input, before the worker could answer a 400,000-arrival run: the old result.
  expect(await shownWhileUpdating).toContain('/ 10 tokens');
  await expect(page.getByLabel('max_tokens')).toHaveValue('38');
  await expect(view).toContainText('/ 38 tokens', { timeout: 20_000 });
  await expect(page.locator('.sim-updating')).toHaveCount(0);
});
