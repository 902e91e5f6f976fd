import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  attemptsOf,
  decisionAt,
  nextEventAfter,
  requestAt,
  responseAt,
  rowRange,
  rowsDecidedBy,
  simulate,
} from '../../src/sim';
import { scenario } from './helpers';

describe('rows by time', () => {
  const result = simulate(
    [{ kind: 'fixed-window', limit: 5, windowMs: 1000 }],
    scenario({ sources: [{ kind: 'poisson', ratePerSec: 40, startMs: 0, endMs: 5000 }] }),
    5000,
  );
  const c = result.lanes[0]!.columns;
  const arrivals = Array.from(c.arrivalMs.subarray(0, c.rows));

  it('rowRange is the rows with from ≤ arrival < to', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -10, max: 5010 }),
        fc.integer({ min: 0, max: 2000 }),
        (from, span) => {
          const [start, end] = rowRange(c, from, from + span);
          const want = arrivals
            .map((t, i) => [t, i] as const)
            .filter(([t]) => t >= from && t < from + span);
          expect(end - start).toBe(want.length);
          if (want.length > 0) expect(start).toBe(want[0]![1]);
        },
      ),
    );
  });

  it('rowsDecidedBy counts the rows at or before t', () => {
    fc.assert(
      fc.property(fc.integer({ min: -10, max: 5010 }), (t) => {
        expect(rowsDecidedBy(c, t)).toBe(arrivals.filter((a) => a <= t).length);
      }),
    );
  });
});

describe('nextEventAfter', () => {
  it('steps through every arrival, release and clock jump, then returns null', () => {
    const result = simulate(
      [
        { kind: 'leaky-bucket', rate: 10, rateUnit: 'r/s', burst: 3, delay: 0 },
        { kind: 'fixed-window', limit: 2, windowMs: 1000 },
      ],
      scenario({
        sources: [{ kind: 'manual', timesMs: [10, 10, 10, 500] }],
        clock: { mode: 'wall', jumps: [{ atMs: 250, byMs: 1000 }] },
      }),
      2000,
    );
    const steps: number[] = [];
    for (let t: number | null = -1; t !== null; t = nextEventAfter(result, t)) steps.push(t);
    // Arrivals 10 and 500; nginx releases at 110 and 210 (delays 100 and 200 ms); the jump at 250.
    expect(steps).toEqual([-1, 10, 110, 210, 250, 500]);
  });
});

describe('one request', () => {
  const result = simulate(
    [
      { name: 'api', config: { kind: 'fixed-window', limit: 2, windowMs: 1000 } },
      { kind: 'leaky-bucket', rate: 1, rateUnit: 'r/s', burst: 0, delay: 'nodelay' },
    ],
    scenario({
      sources: [{ kind: 'manual', timesMs: [0, 0, 400] }],
      retry: {
        onReject: 'retry-after',
        maxAttempts: 3,
        backoffBaseMs: 100,
        backoffCapMs: 1000,
        turnaroundMs: 0,
      },
    }),
    5000,
  );

  it('tells its whole fate', () => {
    // The third request (400 ms) is rejected by the fixed window until 1000 ms: Retry-After 1 s.
    const info = requestAt(result, 0, 2);
    expect(info).toMatchObject({
      origin: 2,
      arrivalMs: 400,
      releaseMs: -1,
      key: 'client-1',
      attempt: 1,
      isRetry: false,
      status: 429,
    });
    expect(info.decision).toEqual({
      outcome: 'reject',
      delayMs: 0,
      retryAfterMs: 600,
      remaining: 0,
      limit: 2,
      resetMs: 600,
    });
    // It retries after ⌈600 / 1000⌉ = 1 s, at 1400 ms, and passes.
    expect(attemptsOf(result, 0, 2)).toEqual([2, 3]);
    expect(requestAt(result, 0, 3)).toMatchObject({
      arrivalMs: 1400,
      attempt: 2,
      isRetry: true,
      status: 200,
    });
  });

  it('builds the response headers on demand', () => {
    const response = responseAt(result, 0, 2);
    expect(response.statusLine).toBe('HTTP/1.1 429 Too Many Requests');
    expect(response.headers).toEqual([
      ['Retry-After', '1'],
      ['RateLimit-Policy', '"api";q=2;w=1'],
      ['RateLimit', '"api";r=0;t=1'],
      ['X-RateLimit-Limit', '2'],
      ['X-RateLimit-Remaining', '0'],
      ['X-RateLimit-Reset', '1'],
    ]);
    // nginx rejects with 503 by default.
    expect(responseAt(result, 1, 1).status).toBe(503);
    expect(result.lanes[1]!.name).toBe('leaky-bucket');
  });

  it('refuses a row that does not exist', () => {
    expect(() => decisionAt(result, 0, 99)).toThrow(RangeError);
    expect(() => decisionAt(result, 5, 0)).toThrow(RangeError);
  });
});
