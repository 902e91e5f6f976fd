import type { SimLimiter } from '../../src/sim';
import { formatCount } from '../../src/viz/format';
import { run, stripCountsFromColumns } from '../ui/sim-fixtures';
import { expect, open, test } from './fixtures';

/**
 * The request-flow strip at 1,000 requests a second: the page hands each view only the newest rows
 * (a fast stream holds more than a frame should draw), yet every strip says what the whole lane
 * says for its window. It used to say "0 passed · 0 rejected · 400 on the way".
 */

/** The frame bench's compare page (each limiter tuned to 100 r/s), at five times its traffic. */
const LIMITERS: SimLimiter[] = [
  { kind: 'token-bucket', maxTokens: 100, tokensPerFill: 100, fillIntervalMs: 1000 },
  { kind: 'leaky-bucket', rate: 100, rateUnit: 'r/s', burst: 20, delay: 10 },
  { kind: 'fixed-window', limit: 100, windowMs: 1000 },
  { kind: 'sliding-log', limit: 100, windowMs: 1000 },
  { kind: 'sliding-window-counter', limit: 100, windowMs: 1000 },
  { kind: 'gcra', count: 100, periodMs: 1000, burst: 20 },
];
const UNTIL_MS = 60_000;
const T_MS = 33_333;
/** The same, as `encodeConfig` writes it (the link a user would share). */
const LINK =
  './?v=1&l=envoy:max_tokens=100,tokens_per_fill=100,fill_interval=1s' +
  '&l=nginx:rate=100r/s,burst=20,delay=10&l=fixed-window:limit=100,window=1s' +
  '&l=sliding-log:limit=100,window=1s&l=sliding-window-counter:limit=100,window=1s' +
  '&l=gcra:max_burst=20,count=100,period=1s&src=constant:rate=1000r/s&until=1m' +
  `&t=${T_MS}ms&paused&mode=compare`;

test('six limiters at 1,000 r/s, paused: each strip shows the counts its lane’s columns give', async ({
  page,
}) => {
  const result = run(
    LIMITERS,
    [{ kind: 'constant', ratePerSec: 1000, startMs: 0, endMs: UNTIL_MS }],
    UNTIL_MS,
  );
  await page.setViewportSize({ width: 1280, height: 900 });
  await open(page, LINK);
  const strips = page.getByTestId('request-flow');
  await expect(strips).toHaveCount(6);
  for (let lane = 0; lane < 6; lane += 1) {
    const want = stripCountsFromColumns(result, lane, T_MS);
    expect(want.passed).toBeGreaterThan(0);
    expect(want.rejected).toBeGreaterThan(0);
    const strip = strips.nth(lane);
    await expect(strip.getByTestId('flow-passed')).toHaveText(`${formatCount(want.passed)} passed`);
    await expect(strip.getByTestId('flow-rejected')).toHaveText(
      `${formatCount(want.rejected)} rejected`,
    );
    await expect(strip.getByTestId('flow-waiting')).toHaveText(
      `${formatCount(want.waiting)} waiting`,
    );
    await expect(strip.getByTestId('flow-incoming')).toHaveText(
      `${formatCount(want.incoming)} on the way`,
    );
  }
});
