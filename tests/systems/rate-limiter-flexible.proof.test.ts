/**
 * Proof: the rate-limiter-flexible model (src/systems/rate-limiter-flexible.ts on the core's
 * anchored-window) against the real RateLimiterMemory 11.4.0, consume() by consume() on a fake
 * clock (vi.useFakeTimers: Date, and setTimeout, which the store uses to delete expired records and
 * execEvenly uses to delay). Compared per decision: resolved / delayed / rejected, the execEvenly
 * delay (the setTimeout it schedules), msBeforeNext, remainingPoints and consumedPoints (the
 * model's count, which includes rejected requests).
 */
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLimiter } from '../../src/core';
import type { AnchoredWindowInspection } from '../../src/core';
import type { RateLimiterFlexibleOptions } from '../../src/systems/rate-limiter-flexible';
import { rateLimiterFlexibleConfig } from '../../src/systems/rate-limiter-flexible';
import { int, seeded } from '../export/gen';
import type { Rng } from '../export/gen';

interface Res {
  msBeforeNext: number;
  remainingPoints: number;
  consumedPoints: number;
}

interface Real {
  outcome: 'admit' | 'delay' | 'reject';
  delayMs: number;
  res: Res;
}

/** The execEvenly delays scheduled: setTimeout(resolve, delay, res) — three arguments. */
let delays: number[] = [];

async function consume(rl: RateLimiterMemory, key: string): Promise<Real> {
  delays = [];
  pendingRes = undefined;
  let settled: { ok: boolean; res: Res } | undefined;
  const p = rl.consume(key).then(
    (res: Res) => {
      settled = { ok: true, res };
    },
    (res: Res) => {
      settled = { ok: false, res };
    },
  );
  void p;
  for (let i = 0; i < 5 && settled === undefined; i++) await Promise.resolve();
  if (settled !== undefined) {
    return { outcome: settled.ok ? 'admit' : 'reject', delayMs: 0, res: settled.res };
  }
  const delay = delays[0];
  if (delay === undefined) throw new Error('consume neither settled nor scheduled a delay');
  // The delayed Promise resolves later with the res handed to setTimeout; its msBeforeNext is
  // already reduced by the delay (RateLimiterMemory.consume).
  if (pendingRes === undefined) throw new Error('no res scheduled with the delay');
  return { outcome: 'delay', delayMs: delay, res: pendingRes };
}

/** The res object handed to the delayed resolve (third setTimeout argument). */
let pendingRes: Res | undefined;

function randomOptions(rng: Rng): RateLimiterFlexibleOptions {
  const o: RateLimiterFlexibleOptions = {
    points: int(rng, 1, 8),
    durationMs: [1000, 1500, 2000, 5000, 60_000, 3_600_000][int(rng, 0, 5)] as number,
    blockDurationMs:
      rng() < 0.4 ? ([500, 1000, 3000, 10_000, 120_000][int(rng, 0, 4)] as number) : 0,
    execEvenly: rng() < 0.35,
  };
  if (o.execEvenly && rng() < 0.5) o.execEvenlyMinDelayMs = int(rng, 0, 500);
  return o;
}

describe('rate-limiter-flexible 11.4.0 RateLimiterMemory (real) = model', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'] });
    const fakeSetTimeout = globalThis.setTimeout;
    vi.spyOn(globalThis, 'setTimeout').mockImplementation(((
      fn: () => void,
      ms?: number,
      ...args: unknown[]
    ) => {
      if (args.length === 1) {
        delays.push(ms ?? 0);
        pendingRes = args[0] as Res;
      }
      return fakeSetTimeout(fn, ms, ...args);
    }) as typeof setTimeout);
  });
  afterEach(() => {
    vi.restoreAllMocks();
    vi.useRealTimers();
  });

  it('decides exactly like the model, consume by consume', async () => {
    const rng = seeded(13_002);
    let compared = 0;
    const seen = { admit: 0, delay: 0, reject: 0 };
    for (let run = 0; run < 80; run++) {
      const o = randomOptions(rng);
      vi.clearAllTimers();
      const start = [0, 1_700_000_000_000 + int(rng, 0, 1e6)][int(rng, 0, 1)] as number;
      vi.setSystemTime(start);
      const opts: {
        points: number;
        duration: number;
        blockDuration: number;
        execEvenly: boolean;
        execEvenlyMinDelayMs?: number;
      } = {
        points: o.points,
        duration: o.durationMs / 1000,
        blockDuration: o.blockDurationMs / 1000,
        execEvenly: o.execEvenly,
      };
      if (o.execEvenlyMinDelayMs !== undefined) opts.execEvenlyMinDelayMs = o.execEvenlyMinDelayMs;
      const rl = new RateLimiterMemory(opts);
      const model = createLimiter(rateLimiterFlexibleConfig(o));
      let t = start;
      for (let i = 0; i < 40; i++) {
        const r = rng();
        const step =
          r < 0.35
            ? 0
            : r < 0.75
              ? int(rng, 1, Math.ceil(o.durationMs / 3))
              : r < 0.85
                ? o.durationMs + int(rng, -1, 1)
                : int(rng, 1, 2 * Math.max(o.durationMs, o.blockDurationMs));
        vi.advanceTimersByTime(step); // fires the store's expiry timers (and releases delays)
        t += step;
        const key = rng() < 0.8 ? 'alice' : 'bob';
        const real = await consume(rl, key);
        const d = model.decide(t, key);
        const count = (model.inspect(t, key) as AnchoredWindowInspection).count;
        const want = {
          outcome: d.outcome,
          delayMs: d.delayMs,
          msBeforeNext:
            d.outcome === 'reject' ? d.retryAfterMs : Math.max(d.resetMs - d.delayMs, 0),
          consumedPoints: count,
          remainingPoints: Math.max(o.points - count, 0),
        };
        expect({ t, key, ...want }).toEqual({
          t,
          key,
          outcome: real.outcome,
          delayMs: real.delayMs,
          msBeforeNext: real.res.msBeforeNext,
          consumedPoints: real.res.consumedPoints,
          remainingPoints: real.res.remainingPoints,
        });
        if (!o.execEvenly && d.outcome === 'admit') {
          expect(d.remaining).toBe(real.res.remainingPoints);
        }
        compared += 1;
        seen[d.outcome] += 1;
      }
    }
    console.info(
      `rate-limiter-flexible vs model: ${compared} decisions compared (${JSON.stringify(seen)}), 0 disagreements`,
    );
    expect(seen.admit).toBeGreaterThan(100);
    expect(seen.delay).toBeGreaterThan(50);
    expect(seen.reject).toBeGreaterThan(100);
  });
});
