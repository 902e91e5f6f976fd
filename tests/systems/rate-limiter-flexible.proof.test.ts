/**
 * Proof: the rate-limiter-flexible model (src/systems/rate-limiter-flexible.ts on the core's
 * anchored-window) against the real RateLimiterMemory 11.4.0, consume() by consume() on a fake
 * clock (vi.useFakeTimers: Date, and setTimeout, which the store uses to delete expired records and
 * execEvenly uses to delay), over every option combination: execEvenly with and without
 * execEvenlyMinDelayMs, blockDuration, points per consume (costs), durations in whole and
 * fractional seconds, requests exactly `duration` after a window opened. Compared per decision:
 * resolved / delayed / rejected, the execEvenly delay (the setTimeout it schedules), msBeforeNext,
 * remainingPoints and consumedPoints. Then the exported middleware itself, run as written, against
 * what the page shows: status and every header, in order.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { NEVER_MS, createLimiter } from '../../src/core';
import type { AnchoredWindowConfig, AnchoredWindowInspection } from '../../src/core';
import { decodeConfig } from '../../src/config/url';
import { toRateLimiterFlexible } from '../../src/export';

import type { RateLimiterFlexibleOptions } from '../../src/systems/rate-limiter-flexible';
import { rateLimiterFlexibleConfig } from '../../src/systems/rate-limiter-flexible';
import { int, seeded } from '../export/gen';
import type { Rng } from '../export/gen';
import { entryResponse } from '../../src/systems/respond';
import { proofCount } from './proofCounts';

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
/** The res object handed to the delayed resolve (third setTimeout argument). */
let pendingRes: Res | undefined;

async function consume(rl: RateLimiterMemory, key: string, cost: number): Promise<Real> {
  delays = [];
  pendingRes = undefined;
  let settled: { ok: boolean; res: Res } | undefined;
  const p = rl.consume(key, cost).then(
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

/**
 * Durations in whole ms whose seconds the library turns back into the same ms (duration · 1000 is
 * exact in floating point); 1001 ms is not (1.001 · 1000 = 1000.9999999999999): see the last test.
 */
const DURATIONS_MS = [1000, 1500, 2000, 5000, 60_000, 3_600_000, 250, 1234];

/**
 * The option combinations: execEvenly (off, default min delay, own min delay) × block × cost ×
 * duration in whole seconds, fractional seconds, or 0 (points never expire).
 */
const COMBOS = [0, 1, 2].flatMap((evenly) =>
  [false, true].flatMap((block) =>
    [false, true].flatMap((cost) =>
      (['whole', 'ms', 'zero'] as const).map((dur) => ({ evenly, block, cost, dur })),
    ),
  ),
);

/** What the library's msBeforeNext is for a model wait: −1 for a record that never expires. */
function libraryMs(ms: number): number {
  return ms === NEVER_MS ? -1 : ms;
}

/** Options of one combination, with edge values. */
function randomOptions(
  rng: Rng,
  combo = COMBOS[int(rng, 0, COMBOS.length - 1)],
): RateLimiterFlexibleOptions {
  const { evenly, block, cost, dur } = combo as (typeof COMBOS)[number];
  const points = int(rng, cost ? 2 : 1, 8);
  const whole = DURATIONS_MS.filter((d) => d % 1000 === 0);
  const part = DURATIONS_MS.filter((d) => d % 1000 !== 0);
  const pool = dur === 'ms' ? part : dur === 'zero' ? [0] : whole;
  const o: RateLimiterFlexibleOptions = {
    points,
    durationMs: pool[int(rng, 0, pool.length - 1)] as number,
    blockDurationMs: block ? ([500, 1000, 3000, 10_000, 120_000][int(rng, 0, 4)] as number) : 0,
    execEvenly: evenly > 0,
  };
  if (evenly === 2) o.execEvenlyMinDelayMs = int(rng, 0, 500);
  if (cost) o.cost = int(rng, 2, points);
  return o;
}

function libraryOptions(o: RateLimiterFlexibleOptions): {
  points: number;
  duration: number;
  blockDuration: number;
  execEvenly: boolean;
  execEvenlyMinDelayMs?: number;
} {
  return {
    points: o.points,
    duration: o.durationMs / 1000,
    blockDuration: o.blockDurationMs / 1000,
    execEvenly: o.execEvenly,
    ...(o.execEvenlyMinDelayMs === undefined
      ? {}
      : { execEvenlyMinDelayMs: o.execEvenlyMinDelayMs }),
  };
}

/**
 * Steps: ties, small steps, exactly the duration (± 1 ms) after a window opened — or, with
 * duration 0, exactly the block's length after it began — and long gaps.
 */
function nextTime(rng: Rng, t: number, o: RateLimiterFlexibleOptions, opened: number[]): number {
  const r = rng();
  // With duration 0 a record ends only with a block: steps are measured on the block (or 1 s).
  const span = o.durationMs > 0 ? o.durationMs : o.blockDurationMs > 0 ? o.blockDurationMs : 1000;
  if (r < 0.3) return t;
  if (r < 0.6) return t + int(rng, 1, Math.ceil(span / 3));
  if (r < 0.85 && opened.length > 0) {
    const at = (opened[int(rng, 0, opened.length - 1)] as number) + span + int(rng, -1, 1);
    return Math.max(t, at);
  }
  return t + int(rng, 1, 2 * Math.max(span, o.blockDurationMs));
}

function fakeTimers(): void {
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
}

describe('rate-limiter-flexible 11.4.0 RateLimiterMemory (real) = model', () => {
  beforeEach(fakeTimers);
  afterEach(() => {
    vi.restoreAllMocks();
    vi.useRealTimers();
  });

  it('decides exactly like the model, consume by consume, over every option combination', async () => {
    const rng = seeded(13_002);
    let compared = 0;
    const seen = { admit: 0, delay: 0, reject: 0 };
    const combos = new Set<string>();
    let atBoundary = 0;
    let atBlockEnd = 0;
    const zero = { admit: 0, delay: 0, reject: 0 };
    for (let run = 0; run < 288; run++) {
      const o = randomOptions(rng, COMBOS[run % COMBOS.length]);
      combos.add(
        [
          o.execEvenly ? (o.execEvenlyMinDelayMs === undefined ? 'evenly' : 'evenly+min') : '',
          o.blockDurationMs > 0 ? 'block' : '',
          (o.cost ?? 1) > 1 ? 'cost' : '',
          o.durationMs % 1000 !== 0 ? 'ms' : o.durationMs === 0 ? 'zero' : '',
        ].join(','),
      );
      vi.clearAllTimers();
      const start = [0, 1_700_000_000_000 + int(rng, 0, 1e6)][int(rng, 0, 1)] as number;
      vi.setSystemTime(start);
      const rl = new RateLimiterMemory(libraryOptions(o));
      const model = createLimiter(rateLimiterFlexibleConfig(o));
      const cost = o.cost ?? 1;
      let t = start;
      const opened: number[] = [];
      for (let i = 0; i < 40; i++) {
        const next = nextTime(rng, t, o, opened);
        vi.advanceTimersByTime(next - t); // fires the store's expiry timers (and releases delays)
        t = next;
        const key = rng() < 0.8 ? 'alice' : 'bob';
        const before = model.inspect(t, key) as AnchoredWindowInspection;
        if (o.durationMs > 0 && opened.some((s) => t === s + o.durationMs)) atBoundary += 1;
        if (before.windowStartMs === null) opened.push(t);
        const real = await consume(rl, key, cost);
        // With duration 0, the block (the only end a record has) starts at the first reject.
        if (o.durationMs === 0 && before.windowStartMs !== null && !before.blocked) {
          const after = model.inspect(t, key) as AnchoredWindowInspection;
          if (after.blocked) opened.push(t);
        }
        if (o.durationMs === 0 && opened.some((s) => t === s + o.blockDurationMs)) {
          atBlockEnd += 1;
        }
        const d = model.decide(t, key);
        const count = (model.inspect(t, key) as AnchoredWindowInspection).count;
        const want = {
          outcome: d.outcome,
          delayMs: d.delayMs,
          msBeforeNext:
            d.outcome === 'reject'
              ? libraryMs(d.retryAfterMs)
              : d.resetMs === NEVER_MS
                ? -1
                : Math.max(d.resetMs - d.delayMs, 0),
          consumedPoints: count,
          remainingPoints: Math.max(o.points - count, 0),
        };
        expect({ run, t, key, ...want }).toEqual({
          run,
          t,
          key,
          outcome: real.outcome,
          delayMs: real.delayMs,
          msBeforeNext: real.res.msBeforeNext,
          consumedPoints: real.res.consumedPoints,
          remainingPoints: real.res.remainingPoints,
        });
        compared += 1;
        seen[d.outcome] += 1;
        if (o.durationMs === 0) zero[d.outcome] += 1;
      }
    }
    console.info(
      `rate-limiter-flexible vs model: ${compared} decisions compared (${JSON.stringify(seen)}; ${combos.size} option combinations; ${atBoundary} exactly duration after a window opened; duration 0: ${JSON.stringify(zero)}, ${atBlockEnd} exactly blockDuration after a block began), 0 disagreements`,
    );
    expect(zero.admit).toBeGreaterThan(50);
    expect(zero.reject).toBeGreaterThan(50);
    expect(atBlockEnd).toBeGreaterThan(10);
    expect(seen.admit).toBeGreaterThan(200);
    expect(seen.delay).toBeGreaterThan(100);
    expect(seen.reject).toBeGreaterThan(200);
    expect(atBoundary).toBeGreaterThan(100);
    // evenly / evenly+min × block × cost × whole / fractional / 0 durations: all 36 met.
    expect(combos.size).toBe(36);
    // The counts the README's proof table states.
    const row = 'rate-limiter-flexible `RateLimiterMemory`';
    expect(compared).toBe(proofCount(row, 'decisions'));
    expect(combos.size).toBe(proofCount(row, 'combinations'));
    expect(atBoundary).toBe(proofCount(row, 'atWindowEnd'));
    expect(seen).toEqual({
      admit: proofCount(row, 'admitted'),
      delay: proofCount(row, 'delayed'),
      reject: proofCount(row, 'rejected'),
    });
    expect(zero.admit + zero.delay + zero.reject).toBe(proofCount(row, 'durationZero'));
    expect(atBlockEnd).toBe(proofCount(row, 'atBlockEnd'));
  });

  it('execEvenlyMinDelayMs left out is ⌈duration / points⌉, in the library and the model', async () => {
    vi.setSystemTime(0);
    const rl = new RateLimiterMemory({ points: 3, duration: 1, execEvenly: true });
    const model = createLimiter(
      rateLimiterFlexibleConfig({
        points: 3,
        durationMs: 1000,
        blockDurationMs: 0,
        execEvenly: true,
      }),
    );
    await consume(rl, 'k', 1);
    model.decide(0, 'k');
    const real = await consume(rl, 'k', 1);
    // ⌈1000 / (1 + 2)⌉ = 334 is not below ⌈1000 / 3⌉ = 334: the min delay does not bite yet …
    expect(real.delayMs).toBe(334);
    expect(model.decide(0, 'k').delayMs).toBe(334);
    // … 900 ms on, ⌈100 / 2⌉ = 50 < 334: consumed · 334 = 1002 ms.
    vi.advanceTimersByTime(900);
    const third = await consume(rl, 'k', 1);
    expect(third.delayMs).toBe(1002);
    expect(model.decide(900, 'k').delayMs).toBe(1002);
    // A limiter made on the page (a link without execEvenlyMinDelayMs) waits as long.
    const link = decodeConfig('v=1&l=rate-limiter-flexible:points=3,duration=1s,execEvenly');
    expect(link.errors).toEqual([]);
    const page = createLimiter(
      (link.config.limiters[0] as { config: AnchoredWindowConfig }).config,
    );
    expect([0, 0, 900].map((t) => page.decide(t, 'k').delayMs)).toEqual([0, 334, 1002]);
  });

  it('a duration whose seconds are not exact (1001 ms = 1.001 s): the library drops the record at 1000 ms, and the export says so', async () => {
    vi.setSystemTime(0);
    const rl = new RateLimiterMemory({ points: 1, duration: 1.001 });
    expect((await consume(rl, 'k', 1)).res.msBeforeNext).toBe(1000.9999999999999);
    vi.advanceTimersByTime(1000);
    // The expiry timer (setTimeout of 1000.9999999999999 ms) has dropped the record: a new window.
    expect((await consume(rl, 'k', 1)).outcome).toBe('admit');
    const out = toRateLimiterFlexible({
      kind: 'anchored-window',
      limit: 1,
      windowMs: 1001,
      countRejected: true,
    });
    expect(out.ok && out.differences.join(' ')).toMatch(/1000\.9999999999999 ms/);
  });

  it('duration 0: points never expire, in the library, the model, the link and the headers', async () => {
    vi.setSystemTime(0);
    const rl = new RateLimiterMemory({ points: 1, duration: 0 });
    const back = decodeConfig('v=1&l=rate-limiter-flexible:points=1,duration=0');
    expect(back.errors).toEqual([]);
    const entry = back.config.limiters[0] as { system?: string; config: AnchoredWindowConfig };
    expect(entry.config.windowMs).toBe(0);
    const model = createLimiter(entry.config);
    const first = await consume(rl, 'k', 1);
    expect(first).toMatchObject({ outcome: 'admit', res: { msBeforeNext: -1 } });
    expect(model.decide(0, 'k')).toMatchObject({ outcome: 'admit', resetMs: NEVER_MS });
    // Thirty days on, the one point is still used: rejected, and no wait makes it pass.
    const later = 86_400_000 * 30;
    vi.advanceTimersByTime(later);
    const real = await consume(rl, 'k', 1);
    expect(real).toMatchObject({ outcome: 'reject', res: { msBeforeNext: -1 } });
    const d = model.decide(later, 'k');
    expect(d).toMatchObject({ outcome: 'reject', retryAfterMs: NEVER_MS });
    // The page sends what the exported middleware sends: no Retry-After, no X-RateLimit-Reset.
    const shown = entryResponse({ system: 'rate-limiter-flexible', config: entry.config }, d, 'x', {
      nowMs: later,
      epochMs: 0,
    });
    expect(shown.status).toBe(429);
    expect(shown.headers.map(([n, v]) => `${n}: ${v}`)).toEqual([
      'X-RateLimit-Limit: 1',
      'X-RateLimit-Remaining: 0',
    ]);
    // The export writes duration: 0 and says what it means.
    const out = toRateLimiterFlexible(entry.config);
    expect(out.ok && out.text).toMatch(/duration: 0, \/\/ points never expire/);
    // express-rate-limit's MemoryStore refuses windowMs 0 (ERR_ERL_WINDOW_MS): its link is repaired.
    const erl = decodeConfig('v=1&l=express-rate-limit:limit=1,windowMs=0');
    expect(erl.errors.map((e) => e.message)).toEqual([
      "l[0] windowMs: must be at least 1 ms (ERR_ERL_WINDOW_MS), got 0; set to 60000, express-rate-limit (MemoryStore)'s default",
    ]);
  });

  it('pointsToConsume above points is refused by name: such a request would never pass', () => {
    const back = decodeConfig('v=1&l=rate-limiter-flexible:points=4,duration=1s,pointsToConsume=5');
    expect(back.errors.map((e) => e.message)).toEqual([
      'l[0] pointsToConsume: must be at most the limit (points): a request of more points would never pass, got "5"',
    ]);
  });
});

// ---- The exported middleware, run as written --------------------------------------------------

const CACHE = path.join(process.cwd(), 'node_modules', '.cache', 'rll-export-proof');

interface FakeRes {
  statusCode: number;
  headers: Array<[string, string]>;
  set(name: string, value: string): FakeRes;
  status(code: number): FakeRes;
  send(body: string): void;
}

function fakeRes(): FakeRes {
  const res: FakeRes = {
    statusCode: 200,
    headers: [],
    set(name, value) {
      res.headers.push([name, value]);
      return res;
    },
    status(code) {
      res.statusCode = code;
      return res;
    },
    send() {},
  };
  return res;
}

describe('the exported rate-limiter-flexible middleware sends what the page shows', () => {
  beforeEach(fakeTimers);
  afterEach(() => {
    vi.restoreAllMocks();
    vi.useRealTimers();
  });
  afterAll(() => rmSync(CACHE, { recursive: true, force: true }));

  it('status and every header, in order, for every option combination', async () => {
    mkdirSync(CACHE, { recursive: true });
    const rng = seeded(13_003);
    let compared = 0;
    for (let run = 0; run < 72; run++) {
      const o = randomOptions(rng, COMBOS[run % COMBOS.length]);
      const config = rateLimiterFlexibleConfig(o);
      const out = toRateLimiterFlexible(config);
      if (!out.ok) throw new Error(out.reason);
      const file = path.join(CACHE, `run${run}.mjs`);
      writeFileSync(file, out.text);
      vi.clearAllTimers();
      const start = 1_767_225_600_000 + int(rng, 0, 1e6);
      vi.setSystemTime(start);
      const mod = (await import(/* @vite-ignore */ pathToFileURL(file).href)) as {
        limit: (req: unknown, res: FakeRes, next: (e?: unknown) => void) => Promise<void>;
      };
      const model = createLimiter(config);
      let t = start;
      const opened: number[] = [];
      for (let i = 0; i < 25; i++) {
        const next = nextTime(rng, t, o, opened);
        vi.advanceTimersByTime(next - t);
        t = next;
        const before = model.inspect(t, '203.0.113.7') as AnchoredWindowInspection;
        if (before.windowStartMs === null) opened.push(t);
        const d = model.decide(t, '203.0.113.7');
        const res = fakeRes();
        let passed = false;
        const done = mod.limit({ ip: '203.0.113.7' }, res, () => {
          passed = true;
        });
        // A delayed request resolves when its execEvenly timer fires.
        if (d.delayMs > 0) vi.advanceTimersByTime(d.delayMs);
        await done;
        const shown = entryResponse({ system: 'rate-limiter-flexible', config }, d, 'x', {
          nowMs: t,
          epochMs: 0,
          before,
        });
        expect({ run, t, status: passed ? 200 : res.statusCode, headers: res.headers }).toEqual({
          run,
          t,
          status: shown.status,
          headers: shown.headers.map(([n, v]) => [n, v]),
        });
        // The clock went on by the delay: the next request comes after it.
        t += d.delayMs;
        compared += 1;
      }
    }
    console.info(
      `rate-limiter-flexible export run as written vs the page: ${compared} responses compared (status and every header), 0 disagreements`,
    );
    // The count the README's proof table states.
    expect(compared).toBe(
      proofCount('rate-limiter-flexible `RateLimiterMemory`', 'exportResponses'),
    );
  });
});
