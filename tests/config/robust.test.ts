/**
 * Bad input, as properties: whatever the link, decodeConfig returns (never throws) a valid config,
 * well-formed errors, and the original text; and what it returns is itself a clean link.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ALGORITHM_KINDS } from '../../src/core';
import { MAX_NAME_LENGTH, NAME_PATTERN, encodeConfig } from '../../src/config';
import { SOURCE_KINDS, isValidConfig } from '../../src/config/valibot-schema';
import { MAX_ERRORS, decodeConfig } from '../../src/config/url';
import { mergeValid, repairConfig } from '../../src/config/repair';
import type { PlaygroundConfig } from '../../src/config';
import type { DecodeResult } from '../../src/config/url';
import { limiterEntry, validConfig } from './arbitraries';

/** Properties run a few seconds; the machine may be shared. */
const PROPERTY_TIMEOUT_MS = 60_000;

function checkResult(link: string, result: DecodeResult): void {
  expect(result.original).toBe(link);
  expect(isValidConfig(result.config)).toBe(true);
  expect(result.errors.length).toBeLessThanOrEqual(MAX_ERRORS);
  for (const e of result.errors) {
    expect(typeof e.path).toBe('string');
    expect(typeof e.param).toBe('string');
    expect(e.message.length).toBeGreaterThan(0);
  }
  // No text from the link reaches the config but names that pass the rule and known tokens.
  for (const [key, text] of strings(result.config)) {
    if (key === 'name') {
      expect(text).toMatch(NAME_PATTERN);
      expect(text.length).toBeLessThanOrEqual(MAX_NAME_LENGTH);
    } else {
      expect(TOKENS_ALLOWED).toContain(text);
    }
  }
  // What was loaded is a clean link of its own: it reads back unchanged, without errors.
  const again = decodeConfig(encodeConfig(result.config));
  expect(again.errors).toEqual([]);
  expect(again.config).toStrictEqual(result.config);
}

/** Every string a config may hold besides names: kinds and the values of choice fields. */
const TOKENS_ALLOWED = [
  ...ALGORITHM_KINDS,
  ...SOURCE_KINDS,
  'r/s',
  'r/m',
  'nodelay',
  'continuous',
  'interval',
  'per-client',
  'shared',
  'round-robin',
  'random',
  'give-up',
  'immediate',
  'retry-after',
  'backoff',
  'local',
  'shared-atomic',
  'shared-racy',
  'monotonic',
  'wall',
  'single',
  'compare',
];

/** Every string in a value, with the key it sits under. */
function strings(value: unknown, key = ''): Array<[string, string]> {
  if (typeof value === 'string') return [[key, value]];
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([k, v]) => strings(v, Array.isArray(value) ? key : k));
}

/** Pieces of the grammar, so random links get past the first check now and then. */
const TOKENS = [
  'v=1',
  'v=2',
  'v=0',
  'v=',
  '&',
  '=',
  ':',
  ',',
  ';',
  '@',
  '?',
  '#',
  '%',
  '%2',
  '%E0%A4%A',
  '+',
  'l=',
  'src=',
  'clients=',
  'retry=',
  'deploy=',
  'clock=',
  'seed=',
  'w=',
  'bin=',
  'until=',
  't=',
  'paused',
  'speed=',
  'sel=',
  'mode=',
  'nginx',
  'envoy',
  'gcra',
  'fixed-window',
  'sliding-log',
  'sliding-window-counter',
  'manual',
  'burst',
  'poisson',
  'on-off',
  'boundary-burst',
  'constant',
  'rate',
  'burst',
  'delay',
  'nodelay',
  'max_tokens',
  'tokens_per_fill',
  'fill_interval',
  'refill',
  'max_delay',
  'limit_req_status',
  'max_burst',
  'count',
  'period',
  'limit',
  'window',
  'name',
  'log_rejected',
  'times',
  'lz',
  'from',
  'to',
  'at',
  'spread',
  'client',
  'jumps',
  'wall',
  'backoff',
  '10r/s',
  '1r/m',
  '1s',
  '2.5s',
  '-4',
  '0',
  '1e308',
  'NaN',
  'Infinity',
  '-0',
  '99999999999999999999',
  '0.1',
  '1.1s',
  '__proto__',
  'constructor',
  'prototype',
  '<script>alert(1)</script>',
  '"><img src=x onerror=alert(1)>',
  'javascript:alert(1)',
  '\u202e',
  '\u0000',
  'é',
  '日本',
];
const grammarish = fc.array(fc.constantFrom(...TOKENS), { maxLength: 40 }).map((t) => t.join(''));

const randomText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 300 }),
  fc.string({ unit: 'grapheme', maxLength: 300 }),
  fc.webQueryParameters(),
  grammarish,
);

type Mutation = (link: string) => string;

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.nat().map(
    (n): Mutation =>
      (s) =>
        s.slice(0, n % (s.length + 1)),
  ),
  fc
    .tuple(
      fc.nat(),
      fc.oneof(
        fc.constantFrom(...'&=:,;@%#?+ <>"\'\u0000\u202e'),
        fc.string({ unit: 'binary', maxLength: 3 }),
      ),
    )
    .map(([n, c]): Mutation => (s) => {
      const i = n % (s.length + 1);
      return s.slice(0, i) + c + s.slice(i + 1);
    }),
  fc.nat().map((n): Mutation => (s) => {
    const i = n % Math.max(1, s.length - 1);
    return s.slice(0, i) + s.charAt(i + 1) + s.charAt(i) + s.slice(i + 2);
  }),
  fc.tuple(fc.nat(), fc.string({ maxLength: 12 })).map(([n, t]): Mutation => (s) => {
    const i = n % (s.length + 1);
    return s.slice(0, i) + t + s.slice(i);
  }),
  fc.nat().map((n): Mutation => (s) => {
    const params = s.split('&');
    params.splice(n % params.length, 1);
    return params.join('&');
  }),
  fc.tuple(fc.nat(), fc.nat()).map(([n, m]): Mutation => (s) => {
    const params = s.split('&');
    params.splice(m % (params.length + 1), 0, params[n % params.length] ?? '');
    return params.join('&');
  }),
  fc.constantFrom<Mutation>(
    (s) => s.replace(/=/g, ''),
    (s) => s.replace(/,/g, ';'),
    (s) => s.toUpperCase(),
  ),
);

describe('decodeConfig on bad input', () => {
  it(
    'returns a valid config and errors for random text',
    () => {
      fc.assert(
        fc.property(randomText, (link) => checkResult(link, decodeConfig(link))),
        { numRuns: 500 },
      );
    },
    PROPERTY_TIMEOUT_MS,
  );

  it(
    'returns a valid config and errors for mutations of valid links',
    () => {
      fc.assert(
        fc.property(
          validConfig,
          fc.array(mutation, { minLength: 1, maxLength: 4 }),
          (config, ms) => {
            const link = ms.reduce((s, m) => m(s), encodeConfig(config));
            checkResult(link, decodeConfig(link));
          },
        ),
        { numRuns: 400 },
      );
    },
    PROPERTY_TIMEOUT_MS,
  );

  it(
    'keeps every other part when one limiter option is corrupted',
    () => {
      fc.assert(
        fc.property(
          validConfig,
          fc.nat(),
          fc.nat(),
          fc.constantFrom('-4', 'NaN', '1e308', '', 'x', '<b>', '99999999999999999999', '0.5'),
          (config, laneSeed, optionSeed, garbage) => {
            const link = encodeConfig(config);
            const params = link.split('&');
            const lIndexes = params.flatMap((p, i) => (p.startsWith('l=') ? [i] : []));
            fc.pre(lIndexes.length > 0);
            const lane = laneSeed % lIndexes.length;
            const at = lIndexes[lane] as number;
            const [head, rest = ''] = (params[at] as string).split(/:(.*)/s);
            const options = rest
              .split(',')
              .filter((o) => o.includes('=') && !o.startsWith('name='));
            fc.pre(options.length > 0);
            const target = options[optionSeed % options.length] as string;
            const key = target.slice(0, target.indexOf('='));
            params[at] = `${head}:${rest
              .split(',')
              .map((o) => (o === target ? `${key}=${garbage}` : o))
              .join(',')}`;
            const result = decodeConfig(params.join('&'));
            checkResult(params.join('&'), result);
            expect(result.errors.length).toBeGreaterThan(0);
            // Everything but that limiter is exactly as linked…
            const others = (c: PlaygroundConfig) => ({
              ...c,
              limiters: c.limiters.filter((_, i) => i !== lane),
            });
            expect(others(result.config)).toStrictEqual(others(config));
            // …and so is the limiter's name and kind.
            const got = result.config.limiters[lane];
            const want = config.limiters[lane];
            expect(got?.name).toBe(want?.name);
            expect(got?.config.kind).toBe(want?.config.kind);
          },
        ),
        { numRuns: 300 },
      );
    },
    PROPERTY_TIMEOUT_MS,
  );
});

describe('repairConfig and mergeValid on any value', () => {
  it(
    'return a valid config for any JSON value or any value at all',
    () => {
      fc.assert(
        fc.property(
          fc.oneof(fc.jsonValue(), fc.anything({ withNullPrototype: true, withMap: true })),
          (value) => {
            const { config } = repairConfig(value);
            expect(isValidConfig(config)).toBe(true);
          },
        ),
        { numRuns: 300 },
      );
    },
    PROPERTY_TIMEOUT_MS,
  );

  it(
    'return a valid config for configs with one leaf replaced by anything',
    () => {
      fc.assert(
        fc.property(validConfig, fc.nat(), fc.anything(), (config, seed, value) => {
          const leaves = leafPaths(config);
          const path = leaves[seed % leaves.length] as Array<string | number>;
          const broken = setAt(structuredClone(config), path, value);
          const { config: repaired, issues } = repairConfig(broken);
          expect(isValidConfig(repaired)).toBe(true);
          if (isValidConfig(broken)) expect(issues).toEqual([]);
          else expect(issues.length).toBeGreaterThan(0);
        }),
        { numRuns: 300 },
      );
    },
    PROPERTY_TIMEOUT_MS,
  );

  it(
    'mergeValid keeps a valid patch and reverts an invalid one to the base',
    () => {
      fc.assert(
        fc.property(validConfig, limiterEntry, (config, entry) => {
          // A selection on a lane the patch removes would be reset (and reported): none here.
          const base = { ...config, view: { ...config.view, selected: null } };
          const merged = mergeValid(base, { limiters: [entry] });
          expect(merged.issues).toEqual([]);
          expect(merged.config.limiters).toStrictEqual([structuredClone(entry)]);
          const bad = mergeValid(base, { view: { speed: -1 }, scenario: { seed: 'x' } });
          expect(bad.config.view.speed).toBe(base.view.speed);
          expect(bad.config.scenario.seed).toBe(base.scenario.seed);
          expect(bad.config.limiters).toStrictEqual(base.limiters);
          expect(bad.issues.map((i) => i.path.join('.')).sort()).toEqual([
            'scenario.seed',
            'view.speed',
          ]);
        }),
        { numRuns: 100 },
      );
    },
    PROPERTY_TIMEOUT_MS,
  );
});

function leafPaths(
  value: unknown,
  path: Array<string | number> = [],
): Array<Array<string | number>> {
  if (typeof value !== 'object' || value === null) return [path];
  const entries = Array.isArray(value)
    ? value.map((v, i) => [i, v] as const)
    : Object.entries(value);
  const inner = entries.flatMap(([k, v]) => leafPaths(v, [...path, k]));
  return inner.length === 0 ? [path] : inner;
}

function setAt<T>(root: T, path: ReadonlyArray<string | number>, value: unknown): T {
  if (path.length === 0) return value as T;
  let node = root as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  node[path[path.length - 1] as string | number] = value;
  return root;
}
