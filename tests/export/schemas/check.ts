/**
 * Shared pieces of the schema checks: run a valibot schema and list every problem by its path,
 * read Go durations as Go reads them, and generate the configs the lab accepts.
 */
import fc from 'fast-check';
import * as v from 'valibot';
import { expect, it } from 'vitest';
import type {
  AlgorithmConfig,
  CalendarWindowsConfig,
  SlidingLogConfig,
  TokenBucketConfig,
} from '../../../src/core';
import { MAX_COUNT, MAX_DURATION_MS } from '../../../src/core';
import { MAX_CALENDAR_LIMIT } from '../../../src/core/validate';
import type { SystemExportOutcome } from '../../../src/export';

/** Every problem `schema` finds in `value`, as "path: message" ("(root)" for the whole value). */
export function problems(schema: v.GenericSchema, value: unknown): string[] {
  const result = v.safeParse(schema, value);
  if (result.success) return [];
  return result.issues.map((issue) => `${v.getDotPath(issue) ?? '(root)'}: ${issue.message}`);
}

/** Fails with the list of problems when `schema` rejects `value`. */
export function expectValid(schema: v.GenericSchema, value: unknown): void {
  expect(problems(schema, value)).toEqual([]);
}

/**
 * Asserts `schema` rejects `value` and that a problem names `path` (a dot path, e.g.
 * "typed_config.token_bucket.max_tokens"): the check can fail, and fails at the right field.
 * A whole-value check that names the path itself ("(root): a.b: …") counts too.
 */
export function expectRejectedAt(schema: v.GenericSchema, value: unknown, path: string): void {
  const found = problems(schema, value);
  expect(found.length).toBeGreaterThan(0);
  // A whole-value check reports its own path after "(root): " (e.g. a key walk over the document).
  const at = (p: string): boolean => p.startsWith(`${path}:`) || p.startsWith(`${path}.`);
  expect(found.some((p) => at(p) || at(p.replace(/^\(root\): /, '')))).toBe(true);
}

/** A deep copy with `edit` applied: the mutations the tests make to a parsed export. */
export function mutated<T>(value: T, edit: (copy: T) => void): T {
  const copy = structuredClone(value);
  edit(copy);
  return copy;
}

/**
 * One test per mutation: `good` passes `schema`, and each case's edit of a copy is rejected at
 * the path it names (so every field's check is shown to fail when it should).
 */
export function itRejectsEach<T>(
  schema: v.GenericSchema,
  good: T,
  cases: [label: string, edit: (copy: T) => void, path: string][],
): void {
  it.each(cases)('%s', (_label, edit, path) => {
    expectValid(schema, good);
    expectRejectedAt(schema, mutated(good, edit), path);
  });
}

/** The text of a successful export (fails the test with the reason otherwise). */
export function textOf(outcome: SystemExportOutcome | { ok: boolean; reason?: string }): string {
  if (!outcome.ok) throw new Error(`export refused: ${String(outcome.reason)}`);
  return (outcome as { text: string }).text;
}

/**
 * A strict object whose keys are matched after `normalize` (Spring's relaxed names, Go's
 * case-insensitive field names): a key that matches no field is an issue at that key, and each
 * value is checked against its field's schema with the issue path kept.
 */
export function namedLike(
  fields: Record<string, v.GenericSchema>,
  normalize: (name: string) => string,
): v.GenericSchema {
  const byName = new Map(Object.entries(fields).map(([k, s]) => [normalize(k), s]));
  return v.pipe(
    v.record(v.string(), v.unknown()),
    v.rawCheck(({ dataset, addIssue }) => {
      if (!dataset.typed) return;
      for (const [key, value] of Object.entries(dataset.value)) {
        const schema = byName.get(normalize(key));
        const path = [{ type: 'object', origin: 'value', input: dataset.value, key, value }];
        if (schema === undefined) {
          addIssue({ message: `unknown field "${key}"`, path: path as never });
          continue;
        }
        const result = v.safeParse(schema, value);
        if (!result.success) {
          for (const issue of result.issues) {
            addIssue({ message: issue.message, path: [...path, ...(issue.path ?? [])] as never });
          }
        }
      }
    }),
  );
}

/** Unsigned 32-bit integer (protobuf uint32, Go uint32). */
export const uint32 = v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(4_294_967_295));
/** Signed 64-bit integer as a YAML number can carry it exactly (Go int64 / Java long). */
export const int64 = v.pipe(v.number(), v.safeInteger());
/** Java int. */
export const javaInt = v.pipe(
  v.number(),
  v.integer(),
  v.minValue(-2_147_483_648),
  v.maxValue(2_147_483_647),
);

/** Nanoseconds per unit of Go's time.ParseDuration (go/src/time/format.go, unitMap). */
const GO_UNITS: Readonly<Record<string, number>> = {
  ns: 1,
  us: 1e3,
  µs: 1e3, // U+00B5 micro sign
  μs: 1e3, // U+03BC Greek mu
  ms: 1e6,
  s: 1e9,
  m: 60e9,
  h: 3600e9,
};

/**
 * Go's time.ParseDuration (go/src/time/format.go): an optional sign, then one or more decimal
 * numbers each with a unit (ns, us, µs, ms, s, m, h); "0" alone is allowed; anything else is an
 * error. Returns nanoseconds (a float: enough for the ranges here), or undefined when Go refuses
 * it. `extraUnits` adds units a product accepts on top of Go's (Caddy's "d").
 */
export function parseGoDuration(
  text: string,
  extraUnits: Readonly<Record<string, number>> = {},
): number | undefined {
  const units = { ...GO_UNITS, ...extraUnits };
  let s = text;
  let sign = 1;
  if (s.startsWith('-') || s.startsWith('+')) {
    sign = s.startsWith('-') ? -1 : 1;
    s = s.slice(1);
  }
  if (s === '0') return 0;
  if (s === '') return undefined;
  let total = 0;
  const part = /^(\d*)(?:\.(\d*))?([^\d.]+)/;
  while (s !== '') {
    const m = part.exec(s);
    if (m === null || (m[1] === '' && (m[2] ?? '') === '')) return undefined;
    const scale = units[m[3] as string];
    if (scale === undefined) return undefined;
    // Whole part and fraction apart, in integers, as Go does (no binary-fraction rounding).
    const frac = m[2] ?? '';
    total += Number(m[1] || '0') * scale + (Number(frac || '0') * scale) / 10 ** frac.length;
    s = s.slice(m[0].length);
  }
  return sign * total;
}

const count = (max: number): fc.Arbitrary<number> =>
  fc.oneof(fc.integer({ min: 1, max: 20 }), fc.integer({ min: 1, max }), fc.constant(max));
const duration = fc.oneof(
  fc.integer({ min: 1, max: 100 }),
  fc.constantFrom(1, 49, 50, 999, 1000, 1001, 60_000, 3_600_000, MAX_DURATION_MS),
  fc.integer({ min: 1, max: MAX_DURATION_MS }),
);

/** Token buckets across the lab's accepted ranges, both refill modes, with and without delays. */
export const tokenBuckets: fc.Arbitrary<TokenBucketConfig> = fc.record(
  {
    kind: fc.constant('token-bucket' as const),
    maxTokens: count(MAX_COUNT),
    tokensPerFill: count(MAX_COUNT),
    fillIntervalMs: duration,
    refill: fc.constantFrom('continuous' as const, 'interval' as const),
    maxDelayMs: fc.integer({ min: 0, max: MAX_DURATION_MS }),
  },
  { requiredKeys: ['kind', 'maxTokens', 'tokensPerFill', 'fillIntervalMs'] },
);

/** Calendar windows: any non-empty subset of the six periods, each limit 1 … MAX_CALENDAR_LIMIT. */
export const calendarWindows: fc.Arbitrary<CalendarWindowsConfig> = fc
  .record(
    {
      second: count(MAX_CALENDAR_LIMIT),
      minute: count(MAX_CALENDAR_LIMIT),
      hour: count(MAX_CALENDAR_LIMIT),
      day: count(MAX_CALENDAR_LIMIT),
      month: count(MAX_CALENDAR_LIMIT),
      year: count(MAX_CALENDAR_LIMIT),
      align: fc.constantFrom('calendar' as const, 'epoch' as const),
      countRejected: fc.boolean(),
      counterTtl: fc.boolean(),
      shadowMode: fc.boolean(),
    },
    { requiredKeys: [] },
  )
  .filter((c) => ['second', 'minute', 'hour', 'day', 'month', 'year'].some((u) => u in c))
  .map((c) => ({ kind: 'calendar-windows' as const, ...c }));

/** Sliding logs the Caddy export takes (window ≥ 2 ms). */
export const slidingLogs: fc.Arbitrary<SlidingLogConfig> = fc.record(
  {
    kind: fc.constant('sliding-log' as const),
    limit: count(MAX_COUNT),
    windowMs: fc.oneof(
      fc.constantFrom(2, 1000, 1001, 60_000, 60_001, 3_600_001, MAX_DURATION_MS),
      fc.integer({ min: 2, max: MAX_DURATION_MS }),
    ),
    logRejected: fc.boolean(),
  },
  { requiredKeys: ['kind', 'limit', 'windowMs'] },
);

/** fast-check settings for the property runs: seeded, so a failure is reproducible. */
export const RUNS = { numRuns: 300, seed: 41 } as const;

/** For tests that want a plain AlgorithmConfig type. */
export type Config = AlgorithmConfig;
