/**
 * A learner on a 390 px phone that asks for reduced motion, through every experiment from the
 * menu: each opens paused at its moment with the stage on the screen at once (no smooth scroll),
 * its answer is the one the simulator gives for its inputs outside the browser, nothing reads NaN,
 * nothing is logged as an error (the fixture), and axe finds nothing on four that between them show
 * every kind of stage an experiment opens (a whole-page axe run per experiment took longer than the
 * rest of the walk: a compare table of three windows, one lane with its figures, a fleet, and four
 * systems' replies). A screenshot of each is attached to the test's output; two answer cards are pixel baselines.
 */
import AxeBuilder from '@axe-core/playwright';
import { EXPERIMENTS } from '../../src/config/experiments';
import { simulate } from '../../src/sim';
import { formatTime } from '../../src/ui/common/format';
import { expect, open, test } from './fixtures';

/** The experiments whose answer card is a pixel baseline: three windows, and two systems. */
const BASELINES = new Set(['boundary-burst', 'leaving-ingress-nginx']);
/** The experiments axe checks (see above). */
const AXE = new Set(['boundary-burst', 'nat-one-key', 'fleet-store-down', 'leaving-ingress-nginx']);

test.use({ viewport: { width: 390, height: 844 } });

test('on a phone with reduced motion, all 16 experiments: stage in view, the answer measured, axe clean', async ({
  page,
}) => {
  test.setTimeout(240_000);
  await page.emulateMedia({ reducedMotion: 'reduce' });
  await open(page);
  const toggle = page.getByTestId('experiments').getByRole('button', { name: /Browse|Hide/ });
  expect(EXPERIMENTS.length).toBe(16);
  for (const e of EXPERIMENTS) {
    // The same numbers the simulator gives outside the browser.
    const result = simulate(
      e.inputs.limiters.map((l) =>
        l.name === undefined ? l.config : { name: l.name, config: l.config },
      ),
      e.inputs.scenario,
      e.inputs.untilMs,
    );
    const expected = e.measure(result).headline;
    await toggle.click();
    await page.locator(`.experiment-item[data-id="${e.id}"]`).click();
    const card = page.getByTestId('experiment-card');
    await expect(card).toHaveAttribute('data-id', e.id);
    await expect(card.getByRole('heading', { name: e.title })).toBeFocused();
    // Reduced motion: the stage is at the top of the screen in the next frame, not scrolled to.
    const top = await page.evaluate(
      () =>
        new Promise<number>((resolve) =>
          requestAnimationFrame(() =>
            resolve(document.getElementById('stage')?.getBoundingClientRect().top ?? NaN),
          ),
        ),
    );
    expect(Math.abs(top), `${e.id}: the stage's top, px from the screen's`).toBeLessThan(8);
    await expect(page.getByTestId('timeline')).toBeInViewport();
    await expect(page.getByTestId('experiment-headline')).toHaveText(expected);
    await expect(page.getByLabel('Virtual time')).toContainText(`t = ${formatTime(e.startAtMs)}`);
    await expect(page.locator('body')).not.toContainText('NaN');
    if (AXE.has(e.id)) {
      // Every rule on every element, as a plain analyze(); only the violations are reported whole
      // (axe-core's resultTypes: passes keep one node each, so no selector is built for each of the
      // thousands of marks that pass).
      const axe = await new AxeBuilder({ page }).options({ resultTypes: ['violations'] }).analyze();
      expect(axe.violations.map((v) => `${e.id}: ${v.id} (${v.nodes.length}) ${v.help}`)).toEqual(
        [],
      );
    }
    await page.screenshot({ path: test.info().outputPath(`phone-${e.id}.png`) });
    // The card with its answer as a baseline: an element's picture, which does not depend on where
    // the scroll came to rest (within the px allowed above).
    if (BASELINES.has(e.id)) await expect(card).toHaveScreenshot(`phone-card-${e.id}.png`);
  }
});
