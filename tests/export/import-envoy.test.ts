import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatImportError, importEnvoy } from '../../src/export';

function errorsOf(text: string): string[] {
  const r = importEnvoy(text);
  return r.ok ? [] : r.errors.map(formatImportError);
}

const FILTER = `name: envoy.filters.http.local_ratelimit
typed_config:
  "@type": type.googleapis.com/envoy.extensions.filters.http.local_ratelimit.v3.LocalRateLimit
  stat_prefix: edge
  token_bucket:
    max_tokens: 100
    tokens_per_fill: 10
    fill_interval: 0.5s
  filter_enabled:
    runtime_key: local_rate_limit_enabled
    default_value:
      numerator: 100
      denominator: HUNDRED
  filter_enforced:
    runtime_key: local_rate_limit_enforced
    default_value:
      numerator: 100
      denominator: HUNDRED
`;

describe('importEnvoy', () => {
  it('reads a whole local_ratelimit filter', () => {
    expect(importEnvoy(FILTER)).toEqual({
      ok: true,
      config: { kind: 'token-bucket', maxTokens: 100, tokensPerFill: 10, fillIntervalMs: 500 },
      extras: { statPrefix: 'edge' },
      warnings: [],
    });
  });

  it('reads a bare token_bucket block or just its fields; tokens_per_fill defaults to 1 as in Envoy', () => {
    const block = 'token_bucket:\n  max_tokens: 3\n  fill_interval: 2s\n';
    expect(importEnvoy(block)).toMatchObject({
      ok: true,
      config: { maxTokens: 3, tokensPerFill: 1, fillIntervalMs: 2000 },
      warnings: [],
    });
    expect(importEnvoy('max_tokens: "7"\ntokens_per_fill: 2\nfill_interval: 60s')).toMatchObject({
      ok: true,
      config: { maxTokens: 7, tokensPerFill: 2, fillIntervalMs: 60_000 },
    });
    expect(importEnvoy(block, { refill: 'interval' })).toMatchObject({
      ok: true,
      config: { refill: 'interval' },
    });
  });

  it('takes the top-level bucket before the descriptors’ own, and says so', () => {
    const r = importEnvoy(`${FILTER}  descriptors:
    - entries:
        - key: client
          value: a
      token_bucket:
        max_tokens: 1
        fill_interval: 60s
`);
    expect(r.ok && r.config).toMatchObject({ maxTokens: 100 });
    expect(r.ok && r.warnings.map(formatImportError)).toEqual([
      '19:3 descriptors have token buckets of their own: only the default token_bucket was imported',
    ]);
  });

  it('warns about the classic traps: filter_enabled or filter_enforced unset or below 100 %', () => {
    const r = importEnvoy(`stat_prefix: x
token_bucket:
  max_tokens: 5
  fill_interval: 1s
filter_enforced:
  runtime_key: k
  default_value:
    numerator: 5000
    denominator: TEN_THOUSAND
`);
    expect(r.ok && r.warnings.map(formatImportError)).toEqual([
      '2:1 filter_enabled is unset: Envoy does not run the filter at all (it defaults to 0% of requests)',
      '5:1 filter_enforced is 50%: the playground limits every request',
    ]);
  });

  it('points at the line and column of what is wrong and says what was expected', () => {
    expect(errorsOf('token_bucket:\n  max_tokens: 0\n  fill_interval: 1s')).toEqual([
      '2:15 expected max_tokens: a whole number from 1 to 1000000, got 0',
    ]);
    expect(errorsOf('token_bucket:\n  max_tokens: 2\n  fill_interval: 1m')).toEqual([
      '3:18 expected fill_interval: a duration like 1s or 0.250s, got "1m"',
    ]);
    expect(errorsOf('token_bucket:\n  max_tokens: 2\n  fill_interval: 0.0005s')).toEqual([
      '3:18 expected fill_interval: a positive whole number of milliseconds, got "0.0005s"',
    ]);
    expect(errorsOf('token_bucket:\n  max_tokens: 2\n  fill_interval: 0.049s')).toEqual([
      '3:18 expected fill_interval of at least 50ms (Envoy rejects shorter: "fill timer must be >= 50ms"), got "0.049s"',
    ]);
    expect(errorsOf('token_bucket:\n  fill_interval: 1s\n  max_token: 3')).toEqual([
      '1:1 expected max_tokens: <n> in the token_bucket',
      '3:3 expected max_tokens, tokens_per_fill or fill_interval, got "max_token"',
    ]);
    expect(errorsOf('name: x')).toEqual([
      '1:1 expected a token_bucket with max_tokens, tokens_per_fill and fill_interval',
    ]);
    expect(errorsOf('token_bucket:\n  max_tokens: [1\n')[0]).toMatch(/^3:1 expected valid YAML/);
  });

  it('never throws, whatever the text', () => {
    const fragment = fc.constantFrom(
      'token_bucket:',
      'max_tokens:',
      'tokens_per_fill:',
      'fill_interval:',
      '1s',
      '0.05s',
      '3',
      '-1',
      '&a',
      '*a',
      '- ',
      '{',
      '}',
      '[',
      ']',
      '"',
      "'",
      '#',
      '\n',
      '  ',
      ': ',
      'stat_prefix: x',
      'filter_enabled:',
      'default_value:',
      '---',
    );
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ maxLength: 80 }),
          fc.array(fragment, { maxLength: 30 }).map((a) => a.join('')),
        ),
        (text) => {
          const r = importEnvoy(text);
          if (!r.ok) {
            expect(r.errors.length).toBeGreaterThan(0);
            for (const e of r.errors) expect(e.line >= 1 && e.column >= 1).toBe(true);
          }
        },
      ),
      { numRuns: 2000 },
    );
  });
});
