/**
 * Properties of every limiter over random configs and traces (fast-check, fixed seed): the contract
 * of ../shared/DESIGN.md ("Core contract") checked by replay on clones, not by formula.
 */
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { calendarUnits, createLimiter, MAX_TIME_MS, quotaOf } from '../../src/core';
import type {
  AlgorithmConfig,
  AlgorithmKind,
  ConfigOf,
  Decision,
  Inspection,
  Limiter,
} from '../../src/core';
import { configArb, FC_SEED, KINDS, runs, TRACE_LIMIT_MS, traceArb } from './arbitraries';
import type { TraceEvent } from './arbitraries';

// Property runs take about a second each here; a loaded CI machine, or FC_RUNS_SCALE, needs more.
vi.setConfig({ testTimeout: 120_000 });

const opts = (numRuns: number) => ({ seed: FC_SEED, numRuns: runs(numRuns) });

/** Replays beyond this many further requests would dominate the run time; edge configs only. */
const REPLAY_CAP = 300;

/** The requests one key can pass at once from idle (windows: limit; nginx, GCRA: burst + 1). */
const nominal = (c: AlgorithmConfig): number => quotaOf(c).limit;

/**
 * What is wrong with one decision, if anything: fields that are not whole numbers ≥ 0, delayMs > 0
 * other than exactly on 'delay', retryAfterMs > 0 other than exactly on 'reject', a limit other
 * than the advertised quota, remaining > 0 on a reject, a retry wait longer than the reset.
 */
function problems(c: AlgorithmConfig, d: Decision): string[] {
  const out: string[] = [];
  const say = (what: string) => out.push(`${what}: ${JSON.stringify(d)}`);
  if (!['admit', 'delay', 'reject'].includes(d.outcome)) say('outcome');
  for (const [field, v] of Object.entries(d)) {
    if (field !== 'outcome' && !(Number.isSafeInteger(v) && (v as number) >= 0)) say(field);
  }
  if (d.delayMs > 0 !== (d.outcome === 'delay')) say('delayMs > 0 iff delay');
  if (d.retryAfterMs > 0 !== (d.outcome === 'reject')) say('retryAfterMs > 0 iff reject');
  if (d.limit !== nominal(c)) say('limit');
  if (d.outcome === 'reject' && d.remaining !== 0) say('remaining on reject');
  // A key back to idle admits, so the wait for one request never exceeds the wait for idle.
  if (d.retryAfterMs > d.resetMs) say('retryAfterMs > resetMs');
  return out;
}

/** `n` requests at one instant for one key; their decisions. */
function burst(l: Limiter, nowMs: number, key: string, n: number): Decision[] {
  return Array.from({ length: n }, () => l.decide(nowMs, key));
}

/** Decisions of `l` on `trace`. */
function run(l: Limiter, trace: readonly TraceEvent[]): Decision[] {
  return trace.map(({ nowMs, key }) => l.decide(nowMs, key));
}

/** Requests after a point: non-decreasing times (ties and bursts), one key. */
/** How long after a trace prune() runs: soon, or past nginx's 60 s expiry threshold. */
const pruneGapMs = fc.oneof(fc.nat({ max: 10_000 }), fc.integer({ min: 60_000, max: 70_000 }));

const followUpArb = fc.array(
  fc.tuple(
    fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 3000 })),
    fc.integer({ min: 1, max: 6 }),
  ),
  { minLength: 1, maxLength: 8 },
);

function followUp(startMs: number, key: string, steps: ReadonlyArray<readonly [number, number]>) {
  let t = startMs;
  return steps.flatMap(([dt, n]) => {
    t += dt;
    return Array.from({ length: n }, () => ({ nowMs: t, key }));
  });
}

/**
 * Compares the decisions of `a` and `b` on `trace`. For nginx the one difference allowed is a key
 * whose node exists in one limiter and was expired in the other (ngx_http_limit_req_expire deletes
 * LRU-tail nodes, and which nodes sit at the tail depends on every lookup, rejects included).
 */
function expectSameDecisions(
  kind: AlgorithmKind,
  a: Limiter,
  b: Limiter,
  trace: readonly TraceEvent[],
): void {
  for (const [i, { nowMs, key }] of trace.entries()) {
    const inA = [...a.keys()].includes(key);
    const inB = [...b.keys()].includes(key);
    const da = a.decide(nowMs, key);
    const db = b.decide(nowMs, key);
    if (kind === 'leaky-bucket' && inA !== inB) return; // from here on the two differ by design
    expect(db, `request #${i} at ${nowMs} for ${key}`).toEqual(da);
  }
}

describe.each(KINDS)('%s', (kind) => {
  const config = configArb[kind];
  const trace = traceArb({ keys: kind === 'leaky-bucket' ? 5 : 3 });

  it('retryAfterMs is the smallest whole wait after which the same request is not rejected', () => {
    fc.assert(
      fc.property(
        config,
        trace,
        fc.array(fc.nat(), { minLength: 3, maxLength: 3 }),
        (c, t, picks) => {
          const l = createLimiter(c);
          for (const { nowMs, key } of t) {
            const d = l.decide(nowMs, key);
            if (d.outcome !== 'reject') continue;
            const w = d.retryAfterMs;
            expect(l.clone().decide(nowMs + w, key).outcome).not.toBe('reject');
            if (w > 1) {
              expect(l.clone().decide(nowMs + w - 1, key).outcome).toBe('reject');
              for (const p of picks) {
                expect(l.clone().decide(nowMs + 1 + (p % (w - 1)), key).outcome).toBe('reject');
              }
            }
          }
        },
      ),
      opts(200),
    );
  });

  it('remaining further requests at the same instant are admitted, and the next one is not', () => {
    fc.assert(
      fc.property(config, trace, (c, t) => {
        const l = createLimiter(c);
        // Caddy's last-millisecond passes have no bound (types.ts lastMsPasses): not counted.
        if (c.kind === 'sliding-log' && c.lastMsPasses === true) return;
        for (const { nowMs, key } of t) {
          const d = l.decide(nowMs, key);
          const replay = burst(l.clone(), nowMs, key, Math.min(d.remaining, REPLAY_CAP) + 1);
          const admitted = replay.findIndex((r) => r.outcome !== 'admit');
          if (d.remaining < REPLAY_CAP) expect(admitted).toBe(d.remaining);
          else expect(admitted).toBe(-1);
        }
      }),
      opts(200),
    );
  });

  it('a rejected request changes nothing', () => {
    fc.assert(
      fc.property(config, trace, (c, t) => {
        // The one documented exception: logRejected logs rejected requests (known-answers.test.ts).
        fc.pre(!(c.kind === 'sliding-log' && c.logRejected === true));
        // Systems that count rejected requests (express-rate-limit, rate-limiter-flexible,
        // envoyproxy/ratelimit) or block on the first reject: see known-answers.test.ts.
        fc.pre(
          !(c.kind === 'anchored-window' && (c.countRejected === true || (c.blockMs ?? 0) > 0)),
        );
        fc.pre(!(c.kind === 'calendar-windows' && c.countRejected === true));
        // HAProxy counts every tracked request, denied ones too (anchor 'entry').
        fc.pre(!(c.kind === 'sliding-window-counter' && c.anchor === 'entry'));
        const l = createLimiter(c);
        let checked = 0;
        for (const [i, { nowMs, key }] of t.entries()) {
          const before = l.clone();
          const d = l.decide(nowMs, key);
          if (d.outcome !== 'reject' || checked >= 4) continue;
          checked += 1;
          expectSameDecisions(kind, before, l.clone(), t.slice(i + 1));
        }
      }),
      opts(150),
    );
  });

  it('is deterministic, and every field is a whole number in range with the right sign', () => {
    fc.assert(
      fc.property(config, trace, (c, t) => {
        const first = run(createLimiter(c), t);
        expect(run(createLimiter(c), t)).toEqual(first);
        expect(first.flatMap((d) => problems(c, d))).toEqual([]);
      }),
      opts(200),
    );
  });

  it('after resetMs the key decides as a fresh key; one ms earlier it does not', () => {
    fc.assert(
      fc.property(config, trace, followUpArb, (c, t, steps) => {
        const l = createLimiter(c);
        for (const { nowMs, key } of t) {
          const d = l.decide(nowMs, key);
          const at = nowMs + d.resetMs;
          const next = followUp(at, key, steps);
          expect(run(l.clone(), next)).toEqual(run(createLimiter(c), next));
          // Minimality: one ms earlier a burst of a full quota + 1 tells the key from a fresh one.
          // The sliding-window counter is exempt: near the end of a window the previous count can
          // weigh less than one request, and the key then already decides as a fresh one.
          const n = nominal(c) + 1;
          // Calendar windows with several units are exempt too: a burst at one instant is stopped by
          // the shortest window and cannot see the count a longer window still holds.
          const several = c.kind === 'calendar-windows' && calendarUnits(c).length > 1;
          if (d.resetMs > 0 && kind !== 'sliding-window-counter' && !several && n <= REPLAY_CAP) {
            const early = at - 1;
            expect(burst(l.clone(), early, key, n)).not.toEqual(
              burst(createLimiter(c), early, key, n),
            );
          }
        }
      }),
      opts(120),
    );
  });

  it('inspect() never changes state', () => {
    fc.assert(
      fc.property(
        config,
        trace,
        fc.array(
          fc.tuple(fc.integer({ min: -70_000, max: 70_000 }), fc.constantFrom('k0', 'k1', 'new')),
          {
            maxLength: 40,
          },
        ),
        (c, t, probes) => {
          const plain = createLimiter(c);
          const probed = createLimiter(c);
          for (const [i, { nowMs, key }] of t.entries()) {
            const [dt, k] = probes[i % Math.max(1, probes.length)] ?? [0, 'k0'];
            if (probes.length > 0) {
              const a = probed.inspect(nowMs + dt, k);
              const b = probed.inspect(nowMs + dt, k);
              expect(b).toEqual(a); // and reading twice gives the same picture
            }
            expect(probed.decide(nowMs, key)).toEqual(plain.decide(nowMs, key));
          }
        },
      ),
      opts(150),
    );
  });

  it('a key decides the same whether or not other keys have traffic', () => {
    fc.assert(
      fc.property(config, trace, (c, t) => {
        const all = createLimiter(c);
        const alone = createLimiter(c);
        for (const [i, { nowMs, key }] of t.entries()) {
          const known = [...all.keys()].includes(key) === [...alone.keys()].includes(key);
          const d = all.decide(nowMs, key);
          if (key !== 'k0') continue;
          const solo = alone.decide(nowMs, key);
          // nginx: other keys' new nodes can expire k0's node (ngx_http_limit_req_expire), even
          // one whose last request is ≥ 60 s in the future (it compares ngx_abs(now - last)).
          if (kind === 'leaky-bucket' && !known) return;
          expect(solo, `request #${i}`).toEqual(d);
        }
      }),
      opts(150),
    );
  });

  it('prune(now) leaves every decision at or after now unchanged', () => {
    fc.assert(
      fc.property(
        config,
        trace,
        followUpArb,
        pruneGapMs,
        fc.boolean(),
        (c, t, steps, gapMs, edge) => {
          const l = createLimiter(c);
          const decisions = run(l, t);
          const last = Math.max(...t.map((e) => e.nowMs));
          // Either some time after the trace, or one ms either side of the moment the last request's
          // key becomes idle (its resetMs), where an off-by-one in "idle" would show.
          const lastEvent = t[t.length - 1] as TraceEvent;
          const resetAt = lastEvent.nowMs + (decisions[decisions.length - 1] as Decision).resetMs;
          const at = edge ? Math.max(last, resetAt - 1 + (gapMs % 2)) : last + gapMs;
          const pruned = l.clone();
          pruned.prune(at);
          expect(pruned.size).toBeLessThanOrEqual(l.size);
          // New keys too: for nginx, creating a node runs the LRU expiry over the nodes left.
          const next = ['k0', 'k1', 'k2', 'new0', 'new1'].flatMap((k) => followUp(at, k, steps));
          next.sort((a, b) => a.nowMs - b.nowMs);
          expect(run(pruned, next)).toEqual(run(l.clone(), next));
        },
      ),
      opts(150),
    );
  });

  it('getState/setState carry a key over to another limiter unchanged', () => {
    fc.assert(
      fc.property(config, trace, trace, (c, t1, t2) => {
        const l = createLimiter(c);
        run(l, t1);
        const copy = createLimiter(c);
        for (const key of [...l.keys()]) copy.setState(key, l.getState(key));
        // nginx: the copy's LRU queue follows the setState order, so expiry may pick other nodes.
        expectSameDecisions(
          kind,
          l,
          copy,
          t2.map((e) => ({ ...e, nowMs: e.nowMs + 1 })),
        );
      }),
      opts(100),
    );
  });

  it('clone() is independent of its original', () => {
    fc.assert(
      fc.property(config, trace, trace, (c, t1, t2) => {
        const l = createLimiter(c);
        run(l, t1);
        const copy = l.clone();
        const reference = l.clone();
        run(l, t2); // the original moves on; the copy must not notice
        expect(run(copy, t2)).toEqual(run(reference, t2));
      }),
      opts(100),
    );
  });
});

describe('clock extremes', () => {
  const extremeTime = fc.oneof(
    fc.constantFrom(MAX_TIME_MS, -MAX_TIME_MS, 0, MAX_TIME_MS - 1, -MAX_TIME_MS + 1),
    fc.integer({ min: -MAX_TIME_MS, max: MAX_TIME_MS }),
    fc.integer({ min: -TRACE_LIMIT_MS, max: TRACE_LIMIT_MS }).map((t) => t - (t % 1000)),
  );
  const allConfigs = fc.oneof(...KINDS.map((k) => configArb[k]));

  it('decide and inspect never throw and never return NaN for any time within ±2^51 ms', () => {
    fc.assert(
      fc.property(
        allConfigs,
        fc.array(fc.tuple(extremeTime, fc.constantFrom('a', 'b'), fc.integer({ min: 1, max: 4 })), {
          minLength: 1,
          maxLength: 30,
        }),
        (c, events) => {
          const l = createLimiter(c);
          for (const [nowMs, key, n] of events) {
            expect(burst(l, nowMs, key, n).flatMap((d) => problems(c, d))).toEqual([]);
            const view = l.inspect(nowMs, key) as unknown as Record<string, unknown>;
            for (const [field, v] of Object.entries(view)) {
              if (typeof v === 'number') expect(Number.isFinite(v), field).toBe(true);
            }
            l.stateSize(nowMs, key);
            l.prune(nowMs);
          }
        },
      ),
      opts(300),
    );
  });
});

describe('leaky-bucket: prune and ngx_http_limit_req_expire', () => {
  // Nodes idle for about 60 s at slow r/m rates: ngx_http_limit_req_expire deletes a node once its
  // stored excess has drained, prune() only once the next request would see excess 0, so the two
  // disagree about such nodes — the case where forgetting a node could change which ones expire.
  it('prune(now) leaves every decision at or after now unchanged, with many idle nodes', () => {
    fc.assert(
      fc.property(
        fc.record({
          kind: fc.constant('leaky-bucket' as const),
          rate: fc.integer({ min: 1, max: 3 }),
          rateUnit: fc.constant('r/m' as const),
          burst: fc.integer({ min: 0, max: 2 }),
          delay: fc.constant('nodelay' as const),
        }),
        fc.array(fc.integer({ min: 0, max: 8000 }), { minLength: 3, maxLength: 6 }),
        fc.integer({ min: 60_000, max: 70_000 }),
        (c, firstSeenMs, at) => {
          const l = createLimiter(c);
          firstSeenMs.forEach((t, i) => l.decide(t, `k${i}`));
          const pruned = l.clone();
          pruned.prune(at);
          const next = [
            { nowMs: at, key: 'new' },
            ...firstSeenMs.map((_, i) => ({ nowMs: at, key: `k${i}` })),
          ];
          expect(run(pruned, next)).toEqual(run(l.clone(), next));
        },
      ),
      opts(300),
    );
  });
});

describe('inspect() tells the decision it is drawn for', () => {
  // What each view says about the next request at the same time (undefined: it cannot tell).
  type Predict<K extends AlgorithmKind> = (
    v: Inspection & { kind: K },
    c: ConfigOf<K>,
  ) => boolean | undefined;
  const predicts: { [K in AlgorithmKind]?: Predict<K> } = {
    'fixed-window': (v, c) => v.count < c.limit,
    'sliding-log': (v, c) =>
      v.entries.length < c.limit ||
      (v.lastMsPasses && v.entries[0] === v.effectiveNowMs - c.windowMs + 1),
    'sliding-window-counter': (v, c) => v.estimate < c.limit,
    // With maxDelayMs the answer also depends on the wait, which the view does not carry.
    'token-bucket': (v) => (v.maxDelayMs === 0 ? v.tokens >= 1 : undefined),
    'leaky-bucket': (v, c) => v.excessNextMilli <= c.burst * 1000,
    // allowAtMs is a float: it tells the decision where a double still resolves 1/count ms.
    gcra: (v, c) => (Math.abs(v.nowMs) * c.count < 2 ** 50 ? v.allowAtMs <= v.nowMs : undefined),
  };
  it.each(Object.keys(predicts) as AlgorithmKind[])('%s', (kind) => {
    fc.assert(
      fc.property(configArb[kind], traceArb(), (c, t) => {
        const l = createLimiter(c);
        const predict = predicts[kind] as (
          v: Inspection,
          c: AlgorithmConfig,
        ) => boolean | undefined;
        for (const [i, { nowMs, key }] of t.entries()) {
          const admits = predict(l.inspect(nowMs, key), c);
          const d = l.decide(nowMs, key);
          if (admits !== undefined) {
            expect(admits, `#${i} at ${nowMs}: ${d.outcome}`).toBe(d.outcome !== 'reject');
          }
        }
      }),
      opts(200),
    );
  });

  it('gcra: allowAtMs lands exactly on whole-ms answers (count 3, period 1000, burst 3)', () => {
    // One request per ms fills the bucket; at t = 1000 the view once said allowAt =
    // 1000.0000000000002 (T and τ summed as floats) while the request at 1000 was admitted.
    const l = createLimiter({ kind: 'gcra', count: 3, periodMs: 1000, burst: 3 });
    for (let t = 0; t <= 3000; t += 1) {
      const view = l.inspect(t);
      const d = l.decide(t);
      if (view.kind !== 'gcra') throw new Error(view.kind);
      expect(view.allowAtMs <= t, `at ${t}: allowAt ${view.allowAtMs}, ${d.outcome}`).toBe(
        d.outcome === 'admit',
      );
    }
  });
});
