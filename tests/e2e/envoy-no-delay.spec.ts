import { expect, open, test } from './fixtures';

/**
 * Envoy's local_ratelimit never makes a request wait (src/systems/envoy-local.ts): its form has no
 * max_delay, and a link or saved settings that carry one open as Envoy without it, with a message
 * naming the field, the value and why. A burst of 20 past a bucket of 5 refilled 2 per second
 * would have had requests waiting up to 500 ms; Envoy answers them 429.
 */
const TRAFFIC = 'src=burst:count=20,at=1s&until=5s&paused&t=5s';
const KEY = 'rate-limit-lab.settings';

test('a link with envoy max_delay opens as Envoy without it, says why, and delays nothing', async ({
  page,
  errors,
}) => {
  await open(
    page,
    `./?v=1&l=envoy:max_tokens=5,tokens_per_fill=2,fill_interval=1s,max_delay=500ms&${TRAFFIC}`,
  );
  const problems = page.getByTestId('link-problems');
  await expect(problems).toContainText(
    'l[0] max_delay: Envoy local_ratelimit never delays a request (local_rate_limit.proto has no such option; local_ratelimit.cc answers 429 at once); max_delay=500 ms was dropped',
  );
  await expect(problems).toContainText("Traefik's RateLimit makes a request wait");
  await expect(page.getByLabel('System', { exact: true })).toHaveValue('envoy');
  const limiter = page.getByRole('region', { name: 'Limiter', exact: true });
  await expect(limiter.getByLabel('max_tokens')).toHaveValue('5');
  await expect(limiter.getByLabel('max_delay')).toHaveCount(0);
  await expect(page.getByTestId('summary-offered')).toHaveText('20');
  await expect(page.getByTestId('summary-delayed')).toHaveText('0');
  await expect(page.getByTestId('summary-admitted')).toHaveText('5');
  expect(errors).toEqual([]);
});

test('saved settings with maxDelayMs under Envoy open without it, saying so', async ({
  page,
  context,
}) => {
  const record = JSON.stringify({
    config: {
      version: 1,
      limiters: [
        {
          config: {
            kind: 'token-bucket',
            maxTokens: 5,
            tokensPerFill: 2,
            fillIntervalMs: 1000,
            maxDelayMs: 500,
          },
        },
      ],
      scenario: { sources: [{ kind: 'burst', atMs: 1000, count: 20 }] },
      view: { untilMs: 5000, tMs: 5000, paused: true },
    },
    experiment: null,
  });
  await context.addInitScript(
    ([key, value]) => {
      if (window.sessionStorage.getItem('planted') === null) {
        window.localStorage.setItem(key, value);
        window.sessionStorage.setItem('planted', '1');
      }
    },
    [KEY, record] as const,
  );
  await open(page, './');
  const problems = page.getByTestId('link-problems');
  await expect(problems).toContainText(
    'saved settings: limiters[0].config.maxDelayMs: Envoy local_ratelimit never delays a request',
  );
  await expect(problems).toContainText('max_delay=500 ms was dropped');
  await expect(page.getByLabel('System', { exact: true })).toHaveValue('envoy');
  await expect(page.getByTestId('summary-delayed')).toHaveText('0');
  await expect(page.getByTestId('summary-admitted')).toHaveText('5');
});
