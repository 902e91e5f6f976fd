/**
 * createLimiter validation (DESIGN.md, "Core contract"): whole numbers in range, or an Error whose
 * message names the field and the accepted range. And decide/inspect with a time that is not a
 * whole number of ms within ±2^51 throw a RangeError that says so.
 */
import { describe, expect, it } from 'vitest';
import { createLimiter, MAX_TIME_MS, RANGES } from '../../src/core';
import type { AlgorithmConfig, AlgorithmKind } from '../../src/core';

/** The accepted ranges as documented in src/core/types.ts (and the README table). */
const DOCUMENTED: Record<AlgorithmKind, Record<string, readonly [number, number]>> = {
  'fixed-window': { limit: [1, 1_000_000], windowMs: [1, 86_400_000] },
  'sliding-log': { limit: [1, 1_000_000], windowMs: [1, 86_400_000] },
  'sliding-window-counter': { limit: [1, 1_000_000], windowMs: [1, 86_400_000] },
  'token-bucket': {
    maxTokens: [1, 1_000_000],
    tokensPerFill: [1, 1_000_000],
    fillIntervalMs: [1, 86_400_000],
    maxDelayMs: [0, 86_400_000],
    maxDelayNs: [0, 86_400_000_000_000],
    idleResetS: [1, 86_400],
  },
  'leaky-bucket': { rate: [1, 1_000_000], burst: [0, 1_000_000], limitReqStatus: [400, 599] },
  gcra: { count: [1, 1_000_000], periodMs: [1, 86_400_000], burst: [0, 1_000_000] },
  'anchored-window': {
    limit: [1, 1_000_000],
    // 0: the record never expires (rate-limiter-flexible duration 0).
    windowMs: [0, 86_400_000],
    blockMs: [0, 86_400_000],
    execEvenlyMinDelayMs: [0, 86_400_000],
    cost: [1, 1_000_000],
  },
  'calendar-windows': {
    second: [1, 1_000_000_000],
    minute: [1, 1_000_000_000],
    hour: [1, 1_000_000_000],
    day: [1, 1_000_000_000],
    month: [1, 1_000_000_000],
    year: [1, 1_000_000_000],
  },
};

/** A valid config of each kind, to break one field at a time. */
const VALID: Record<AlgorithmKind, AlgorithmConfig> = {
  'fixed-window': { kind: 'fixed-window', limit: 10, windowMs: 1000 },
  'sliding-log': { kind: 'sliding-log', limit: 10, windowMs: 1000 },
  'sliding-window-counter': { kind: 'sliding-window-counter', limit: 10, windowMs: 1000 },
  'token-bucket': { kind: 'token-bucket', maxTokens: 10, tokensPerFill: 1, fillIntervalMs: 100 },
  'leaky-bucket': { kind: 'leaky-bucket', rate: 10, rateUnit: 'r/s', burst: 5, delay: 'nodelay' },
  gcra: { kind: 'gcra', count: 10, periodMs: 1000, burst: 5 },
  // A limit at its maximum, so that every cost in its range (at most the limit) is valid.
  'anchored-window': { kind: 'anchored-window', limit: 1_000_000, windowMs: 1000 },
  'calendar-windows': { kind: 'calendar-windows', second: 10, minute: 100, hour: 1000 },
};

const KINDS = Object.keys(VALID) as AlgorithmKind[];

/** VALID[kind] with one field replaced: typed as a config on purpose, to reach the run-time check. */
const withField = (kind: AlgorithmKind, field: string, value: unknown): AlgorithmConfig => ({
  ...VALID[kind],
  [field]: value,
});

/** The thrown Error (failing the test when nothing is thrown). */
function thrown(f: () => unknown): Error {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(Error);
    return e as Error;
  }
  throw new Error('expected a throw');
}

describe('the documented ranges are the enforced ones', () => {
  it('RANGES matches the ranges documented on the config types', () => {
    for (const kind of KINDS) {
      const enforced = Object.fromEntries(
        Object.entries(RANGES[kind] as Record<string, { min: number; max: number }>).map(
          ([f, r]) => [f, [r.min, r.max]],
        ),
      );
      expect(enforced, kind).toEqual(DOCUMENTED[kind]);
    }
  });
});

describe.each(KINDS)('%s', (kind) => {
  it('accepts its example config and every field at both ends of its range', () => {
    expect(() => createLimiter(VALID[kind])).not.toThrow();
    for (const [field, [min, max]] of Object.entries(DOCUMENTED[kind])) {
      expect(() => createLimiter(withField(kind, field, min)), `${field}=${min}`).not.toThrow();
      expect(() => createLimiter(withField(kind, field, max)), `${field}=${max}`).not.toThrow();
    }
  });

  const bad: ReadonlyArray<readonly [string, (min: number, max: number) => unknown]> = [
    ['NaN', () => NaN],
    ['Infinity', () => Infinity],
    ['-Infinity', () => -Infinity],
    ['below the minimum', (min) => min - 1],
    ['negative', () => -5],
    ['a fraction', (min) => min + 0.5],
    ['above the maximum', (_, max) => max + 1],
    ['absurdly large', () => 1e300],
    ['MAX_SAFE_INTEGER', () => Number.MAX_SAFE_INTEGER],
    ['a numeric string', (min) => String(min + 1)],
    ['null', () => null],
    ['a boolean', () => true],
    ['an object', () => ({ value: 5 })],
  ];

  it.each(bad)('rejects a field that is %s, naming the field and its range', (_, make) => {
    for (const [field, [min, max]] of Object.entries(DOCUMENTED[kind])) {
      const e = thrown(() => createLimiter(withField(kind, field, make(min, max))));
      expect(e.message, `${field}`).toContain(
        `${field} must be a whole number from ${min} to ${max}`,
      );
    }
  });

  it('rejects a missing required field, and accepts a missing optional one', () => {
    for (const field of Object.keys(DOCUMENTED[kind])) {
      const config = { ...VALID[kind] } as Record<string, unknown>;
      delete config[field];
      const optional =
        (RANGES[kind] as Record<string, { optional?: boolean }>)[field]?.optional === true;
      if (optional) expect(() => createLimiter(config as unknown as AlgorithmConfig)).not.toThrow();
      else {
        const e = thrown(() => createLimiter(config as unknown as AlgorithmConfig));
        expect(e.message).toContain(`${field} must be a whole number`);
        expect(e.message).toContain('got undefined');
      }
    }
  });

  it.runIf(kind === 'calendar-windows')('calendar-windows needs at least one limit', () => {
    const e = thrown(() => createLimiter({ kind: 'calendar-windows' }));
    expect(e.message).toContain('at least one limit: second, minute, hour, day, month or year');
  });

  it('names every bad field at once', () => {
    const fields = Object.keys(DOCUMENTED[kind]);
    const config = Object.fromEntries(fields.map((f) => [f, -0.5]));
    const e = thrown(() => createLimiter({ kind, ...config } as unknown as AlgorithmConfig));
    for (const f of fields) expect(e.message).toContain(`${f} must be`);
  });
});

describe('enumerations and flags', () => {
  const cases: ReadonlyArray<readonly [AlgorithmKind, string, unknown, string]> = [
    ['token-bucket', 'refill', 'sometimes', "refill must be 'continuous' or 'interval'"],
    ['token-bucket', 'refill', 1, "refill must be 'continuous' or 'interval'"],
    ['leaky-bucket', 'rateUnit', 'r/h', "rateUnit must be 'r/s' or 'r/m'"],
    ['leaky-bucket', 'rateUnit', undefined, "rateUnit must be 'r/s' or 'r/m'"],
    ['leaky-bucket', 'delay', 'yes', "delay must be a whole number from 0 to 1000000 or 'nodelay'"],
    ['leaky-bucket', 'delay', undefined, "or 'nodelay'"],
    ['leaky-bucket', 'delay', -1, 'delay must be a whole number from 0 to 1000000'],
    ['leaky-bucket', 'delay', 2.5, 'delay must be a whole number from 0 to 1000000'],
    ['leaky-bucket', 'delay', NaN, 'delay must be a whole number from 0 to 1000000'],
    ['sliding-log', 'logRejected', 'yes', 'logRejected must be true or false'],
    ['sliding-log', 'logRejected', 1, 'logRejected must be true or false'],
  ];
  it.each(cases)('%s %s = %o is rejected', (kind, field, value, message) => {
    expect(thrown(() => createLimiter(withField(kind, field, value))).message).toContain(message);
  });

  it('accepts every documented value', () => {
    for (const refill of ['continuous', 'interval']) {
      expect(() => createLimiter(withField('token-bucket', 'refill', refill))).not.toThrow();
    }
    for (const rateUnit of ['r/s', 'r/m']) {
      expect(() => createLimiter(withField('leaky-bucket', 'rateUnit', rateUnit))).not.toThrow();
    }
    for (const delay of [0, 3, 1_000_000, 'nodelay']) {
      expect(() => createLimiter(withField('leaky-bucket', 'delay', delay))).not.toThrow();
    }
    for (const logRejected of [true, false]) {
      expect(() =>
        createLimiter(withField('sliding-log', 'logRejected', logRejected)),
      ).not.toThrow();
    }
  });
});

describe('the kind and the config itself', () => {
  it.each([['leaky'], ['Token-Bucket'], [''], [undefined], [42]])(
    'an unknown kind %o is rejected with the list of kinds',
    (kind) => {
      const e = thrown(() =>
        createLimiter({ kind, limit: 1, windowMs: 1 } as unknown as AlgorithmConfig),
      );
      expect(e.message).toContain('kind must be one of fixed-window, sliding-log');
    },
  );

  it.each([[null], [undefined], [5], ['fixed-window'], [[]]])('a config of %o is rejected', (c) => {
    expect(thrown(() => createLimiter(c as unknown as AlgorithmConfig)).message).toContain(
      'config must be an object',
    );
  });

  it("a running limiter is not affected by later changes to the caller's config object", () => {
    const config = { kind: 'fixed-window', limit: 1, windowMs: 1000 } as AlgorithmConfig & {
      limit: number;
    };
    const l = createLimiter(config);
    config.limit = 100;
    expect(l.decide(0).outcome).toBe('admit');
    expect(l.decide(0).outcome).toBe('reject');
  });
});

describe('times given to a limiter', () => {
  const l = createLimiter(VALID.gcra);
  it.each([
    [NaN],
    [Infinity],
    [-Infinity],
    [0.5],
    [-1.25],
    [MAX_TIME_MS + 1],
    [-MAX_TIME_MS - 1],
    [Number.MAX_SAFE_INTEGER],
  ])('decide(%o) throws a RangeError naming nowMs and the accepted range', (t) => {
    for (const f of [
      () => l.decide(t),
      () => l.inspect(t),
      () => l.stateSize(t),
      () => l.prune(t),
    ]) {
      const e = thrown(f);
      expect(e).toBeInstanceOf(RangeError);
      expect(e.message).toContain('nowMs must be a whole number of milliseconds');
      expect(e.message).toContain(`from -${MAX_TIME_MS} to ${MAX_TIME_MS}`);
    }
  });

  it('accepts both ends of ±2^51 ms', () => {
    expect(() => l.decide(MAX_TIME_MS)).not.toThrow();
    expect(() => l.decide(-MAX_TIME_MS)).not.toThrow();
    expect(MAX_TIME_MS).toBe(2 ** 51);
  });
});

describe('anchored-window cost', () => {
  it('is refused above the limit, naming both (such a request could never pass)', () => {
    const e = thrown(() =>
      createLimiter({ kind: 'anchored-window', limit: 3, windowMs: 1000, cost: 4 }),
    );
    expect(e.message).toContain('cost must be at most limit (3)');
    expect(e.message).toContain('got 4');
    expect(() =>
      createLimiter({ kind: 'anchored-window', limit: 3, windowMs: 1000, cost: 3 }),
    ).not.toThrow();
  });
});
