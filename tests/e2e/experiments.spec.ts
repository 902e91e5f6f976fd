import { EXPERIMENTS } from '../../src/config/experiments';
import { simulate } from '../../src/sim';
import { formatTime } from '../../src/ui/common/format';
import { expect, open, test } from './fixtures';

test('each experiment opens paused at its moment and shows the answer measured from its run', async ({
  page,
}) => {
  await open(page);
  const toggle = page.getByTestId('experiments').getByRole('button', { name: /Browse|Hide/ });
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
    await expect(page.getByTestId('experiment-headline')).toHaveText(expected);
    await expect(page.getByLabel('Virtual time')).toContainText(`t = ${formatTime(e.startAtMs)}`);
    await expect(page.locator('body')).not.toContainText('NaN');
  }
});
