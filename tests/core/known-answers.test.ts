/**
 * Known answers from the reference systems' own documentation and source. Each number below is
 * derived from the cited source, not read off the implementation.
 *
 * Sources:
 * - [nginx-docs] https://nginx.org/en/docs/http/ngx_http_limit_req_module.html
 * - [nginx-src]  nginx src/http/modules/ngx_http_limit_req_module.c: ngx_http_limit_req_zone
 *   (ctx->rate = rate·1000 / scale, scale 60 for r/m), ngx_http_limit_req_lookup
 *   (excess = lr->excess − ctx->rate·ms/1000 + 1000; ms < −60000 → 1, ms < 0 → 0;
 *   excess > burst → NGX_BUSY; lookup bumps the node to the LRU head), ngx_http_limit_req_account
 *   (delay = (excess − limit->delay)·1000 / ctx->rate), ngx_http_limit_req_expire (n = 1: up to two
 *   LRU-tail nodes with |now − last| ≥ 60000 and excess − rate·|ms|/1000 ≤ 0 are deleted).
 * - [cell-readme] https://github.com/brandur/redis-cell README, "CL.THROTTLE user123 15 30 60".
 * - [cell-src] brandur/redis-cell src/cell/mod.rs: T = period/count, τ = T·(max_burst + 1),
 *   new_tat = max(tat, now) + T, blocked iff now < new_tat − τ, remaining = ⌊(τ − ttl)/T⌋,
 *   reset_after = ttl; and its test `it_rate_limits` (limit 5, 1 per second).
 * - [envoy-proto] envoy/type/v3/token_bucket.proto: "max_tokens: The maximum tokens that the bucket
 *   can hold. This is also the number of tokens that the bucket initially contains."
 *   "fill_interval: … During each fill interval tokens_per_fill are added to the bucket."
 * - [go-rate] golang.org/x/time/rate Limiter.reserveN: tokens −= n; wait = durationFromTokens(−tokens);
 *   ok iff wait ≤ maxFutureReserve.
 * - [cloudflare] https://blog.cloudflare.com/counting-things-a-lot-of-different-things/ : limit 50
 *   per minute, 42 requests in the previous minute, 18 in the current one, 15 s into it:
 *   rate = 42·((60 − 15)/60) + 18 = 49.5.
 */
import { describe, expect, it } from 'vitest';
import { createLimiter, toHttpResponse } from '../../src/core';
import type { AlgorithmConfig, Decision, Limiter, Outcome } from '../../src/core';

const outcomes = (ds: readonly Decision[]): Outcome[] => ds.map((d) => d.outcome);
const burst = (l: Limiter, nowMs: number, n: number, key?: string): Decision[] =>
  Array.from({ length: n }, () => l.decide(nowMs, key));

describe('nginx limit_req (leaky-bucket)', () => {
  const nginx = (
    rate: number,
    rateUnit: 'r/s' | 'r/m',
    burst: number,
    delay: number | 'nodelay',
  ): Limiter => createLimiter({ kind: 'leaky-bucket', rate, rateUnit, burst, delay });

  it('rate=1r/s burst=5: of 7 simultaneous requests 1 passes, 5 wait 1–5 s, the 7th gets 503', () => {
    // [nginx-docs] "limit_req zone=one burst=5; … Excessive requests are delayed until their number
    // exceeds the maximum burst size in which case the request is terminated with an error."
    // [nginx-src] excess 0, 1000, …, 5000 ≤ burst·1000 = 5000; delay = excess·1000/1000 ms.
    const config: AlgorithmConfig = {
      kind: 'leaky-bucket',
      rate: 1,
      rateUnit: 'r/s',
      burst: 5,
      delay: 0,
    };
    const l = createLimiter(config);
    const ds = burst(l, 0, 7);
    expect(outcomes(ds)).toEqual(['admit', 'delay', 'delay', 'delay', 'delay', 'delay', 'reject']);
    expect(ds.map((d) => d.delayMs)).toEqual([0, 1000, 2000, 3000, 4000, 5000, 0]);
    // The 7th needs ⌊1000·ms/1000⌋ ≥ 6000 − 5000 of drain: 1 s.
    expect(ds[6]?.retryAfterMs).toBe(1000);
    expect(toHttpResponse(config, ds[6] as Decision).status).toBe(503);
    expect(l.decide(999).outcome).toBe('reject');
    expect(l.decide(1000)).toMatchObject({ outcome: 'delay', delayMs: 5000 });
  });

  it('burst=3 nodelay passes 4 at once, rejects the 5th, and frees one slot per second', () => {
    // [nginx-docs] "If delaying of excessive requests while requests are being limited is not
    // desired, the parameter nodelay should be used". excess 0…3000 ≤ 3000.
    const l = nginx(1, 'r/s', 3, 'nodelay');
    const ds = burst(l, 0, 5);
    expect(outcomes(ds)).toEqual(['admit', 'admit', 'admit', 'admit', 'reject']);
    expect(ds.map((d) => d.remaining)).toEqual([3, 2, 1, 0, 0]);
    expect(ds[4]?.retryAfterMs).toBe(1000);
    expect(outcomes(burst(l, 1000, 2))).toEqual(['admit', 'reject']);
  });

  it('1r/m lets the second request through at 62.5 s, not at 62.499 s', () => {
    // [nginx-src] ctx->rate = 1·1000/60 = 16 milli-requests per second (integer division), so the
    // excess of 1000 drains when ⌊16·ms/1000⌋ ≥ 1000: ms ≥ 62500, not the nominal 60000.
    const l = nginx(1, 'r/m', 0, 'nodelay');
    expect(l.decide(0).outcome).toBe('admit');
    expect(l.decide(1000)).toMatchObject({ outcome: 'reject', retryAfterMs: 61_500 });
    expect(l.decide(60_000).outcome).toBe('reject');
    expect(l.decide(62_499)).toMatchObject({ outcome: 'reject', retryAfterMs: 1 });
    expect(l.decide(62_500).outcome).toBe('admit');
  });

  it('7r/m truncates the rate to 116 milli-requests per second: 8621 ms apart, not 8571', () => {
    // [nginx-src] 7·1000/60 = 116; ⌊116·8620/1000⌋ = 999 < 1000 ≤ ⌊116·8621/1000⌋.
    const l = nginx(7, 'r/m', 0, 'nodelay');
    l.decide(0);
    expect(l.decide(8620).outcome).toBe('reject');
    expect(l.decide(8621).outcome).toBe('admit');
  });

  it('delay=2 burst=5: 3 pass at once, 3 wait 1/2/3 s, the next is rejected', () => {
    // [nginx-docs] "The delay parameter specifies a limit at which excessive requests become
    // delayed." [nginx-src] delay = (excess − 2000)·1000/1000 for excess 3000, 4000, 5000.
    const ds = burst(nginx(1, 'r/s', 5, 2), 0, 7);
    expect(outcomes(ds)).toEqual(['admit', 'admit', 'admit', 'delay', 'delay', 'delay', 'reject']);
    expect(ds.map((d) => d.delayMs)).toEqual([0, 0, 0, 1000, 2000, 3000, 0]);
    expect(ds.map((d) => d.remaining)).toEqual([2, 1, 0, 0, 0, 0, 0]);
  });

  it('a delay that rounds down to 0 ms is no delay', () => {
    // [nginx-src] rate=2000r/s → 2,000,000 milli/s; with delay=0 the 2nd request waits
    // ⌊1000·1000/2,000,000⌋ = 0 ms (ngx_http_limit_req_handler passes a 0 delay straight on), the
    // 3rd ⌊2000·1000/2,000,000⌋ = 1 ms.
    const ds = burst(nginx(2000, 'r/s', 5, 0), 0, 3);
    expect(outcomes(ds)).toEqual(['admit', 'admit', 'delay']);
    expect(ds.map((d) => d.delayMs)).toEqual([0, 0, 1]);
  });

  it('a clock jump back by more than 60 s counts as 1 ms; up to 60 s back counts as 0', () => {
    // [nginx-src] ms < −60000 → 1 (and last = now, since ms ≠ 0); −60000 ≤ ms < 0 → 0.
    // rate=1000r/s drains exactly 1000 milli-requests in 1 ms.
    const l = nginx(1000, 'r/s', 0, 'nodelay');
    expect(l.decide(100_000).outcome).toBe('admit');
    expect(l.decide(100_000).outcome).toBe('reject');
    expect(l.decide(40_000).outcome).toBe('reject'); // ms = −60000 → 0: nothing drains
    expect(l.decide(39_999).outcome).toBe('admit'); // ms = −60001 → 1: one request drains
    // last moved back to 39 999, so 40 000 is 1 ms later.
    expect(l.decide(40_000).outcome).toBe('admit');
  });

  it("creating a node expires another key's node idle ≥ 60 s with drained excess", () => {
    // [nginx-src] ngx_http_limit_req_expire(ctx, 1) runs before a new node is allocated. At 1r/m
    // key a's node (excess 0, last 0) at 60 s: 0 − ⌊16·60000/1000⌋ ≤ 0, |ms| ≥ 60000 → deleted.
    const alone = nginx(1, 'r/m', 0, 'nodelay');
    alone.decide(0, 'a');
    // No other traffic: a's node stays, 960 of 1000 milli-requests have drained.
    expect(alone.decide(60_000, 'a').outcome).toBe('reject');

    const withB = nginx(1, 'r/m', 0, 'nodelay');
    withB.decide(0, 'a');
    withB.decide(60_000, 'b'); // creates b's node, expiring a's
    expect([...withB.keys()]).toEqual(['b']);
    expect(withB.decide(60_000, 'a').outcome).toBe('admit'); // a starts afresh

    const tooSoon = nginx(1, 'r/m', 0, 'nodelay');
    tooSoon.decide(0, 'a');
    tooSoon.decide(59_999, 'b'); // idle 59 999 ms < 60 000: a's node stays
    expect(tooSoon.decide(60_000, 'a').outcome).toBe('reject');
  });

  it('a rejected request still moves its node to the LRU head, which can save it from expiry', () => {
    // [nginx-src] ngx_http_limit_req_lookup does ngx_queue_remove/ngx_queue_insert_head before the
    // burst check, and expiry stops at the first tail node it may not delete.
    const run = (rejectedProbe: boolean): Outcome => {
      const l = nginx(1, 'r/m', 0, 'nodelay');
      l.decide(0, 'a');
      l.decide(30_000, 'b');
      if (rejectedProbe) expect(l.decide(30_000, 'a').outcome).toBe('reject'); // 520 > 0
      l.decide(61_000, 'c'); // tail: a (no probe) → deleted; b (after probe) → idle 31 s, stop
      return l.decide(61_000, 'a').outcome;
    };
    expect(run(false)).toBe('admit'); // a's node was expired: fresh
    expect(run(true)).toBe('reject'); // a's node survived with 24 milli-requests of excess
  });
});

describe('redis-cell GCRA', () => {
  it('CL.THROTTLE user123 15 30 60: limit 16, remaining 15, reset 2 s; then 16 in all', () => {
    // [cell-readme] 1) 0 (allowed) 2) 16 (limit) 3) 15 (remaining) 4) -1 (retry) 5) 2 (reset).
    // [cell-src] T = 60 s / 30 = 2 s, τ = 2 s · 16 = 32 s.
    const l = createLimiter({ kind: 'gcra', count: 30, periodMs: 60_000, burst: 15 });
    const ds = burst(l, 0, 17);
    expect(ds[0]).toEqual({
      outcome: 'admit',
      delayMs: 0,
      retryAfterMs: 0,
      remaining: 15,
      limit: 16,
      resetMs: 2000,
    });
    // Each further call at the same instant: remaining one less, reset 2 s later.
    for (let k = 1; k <= 16; k += 1) {
      expect(ds[k - 1]).toMatchObject({ outcome: 'admit', remaining: 16 - k, resetMs: 2000 * k });
    }
    // The 17th: new_tat − τ = 34 − 32 = 2 s ahead → blocked, retry after 2 s, reset = tat − now.
    expect(ds[16]).toMatchObject({
      outcome: 'reject',
      retryAfterMs: 2000,
      remaining: 0,
      resetMs: 32_000,
    });
    expect(l.decide(1999).outcome).toBe('reject');
    expect(l.decide(2000)).toMatchObject({ outcome: 'admit', remaining: 0, resetMs: 32_000 });
  });

  it("reproduces redis-cell's own it_rate_limits table (limit 5 per second, quantity 1)", () => {
    // [cell-src] tests: (now ms, remaining, reset_after ms, retry_after ms or −1, limited).
    const cases: ReadonlyArray<readonly [number, number, number, number, boolean]> = [
      [0, 4, 1000, -1, false],
      [0, 3, 2000, -1, false],
      [0, 2, 3000, -1, false],
      [0, 1, 4000, -1, false],
      [0, 0, 5000, -1, false],
      [0, 0, 5000, 1000, true],
      [3000, 2, 3000, -1, false],
      [3100, 1, 3900, -1, false],
      [4000, 1, 4000, -1, false],
      [8000, 4, 1000, -1, false],
      [9500, 4, 1000, -1, false],
    ];
    const l = createLimiter({ kind: 'gcra', count: 1, periodMs: 1000, burst: 4 });
    for (const [nowMs, remaining, resetMs, retryAfter, limited] of cases) {
      expect(l.decide(nowMs), `at ${nowMs}`).toEqual({
        outcome: limited ? 'reject' : 'admit',
        delayMs: 0,
        retryAfterMs: limited ? retryAfter : 0,
        remaining,
        limit: 5,
        resetMs,
      });
    }
  });

  it('keeps T = period/count exact when it is not a whole number of ms', () => {
    // T = 1000/3 ms, τ = T (burst 0): after t=0 the next request needs now ≥ 2T − T = 333.33….
    const l = createLimiter({ kind: 'gcra', count: 3, periodMs: 1000, burst: 0 });
    l.decide(0);
    expect(l.decide(333)).toMatchObject({ outcome: 'reject', retryAfterMs: 1 });
    expect(l.decide(334).outcome).toBe('admit');
    // 334 was later than tat (333.33), so tat = 334 + 333.33 = 667.33: 667 is still too early.
    expect(l.decide(667)).toMatchObject({ outcome: 'reject', retryAfterMs: 1 });
    expect(l.decide(668).outcome).toBe('admit');
  });
});

describe('Envoy token bucket', () => {
  it('starts full: max_tokens pass at once, the next waits for a refill', () => {
    // [envoy-proto] the bucket initially contains max_tokens.
    for (const refill of ['continuous', 'interval'] as const) {
      const l = createLimiter({
        kind: 'token-bucket',
        maxTokens: 3,
        tokensPerFill: 1,
        fillIntervalMs: 1000,
        refill,
      });
      const ds = burst(l, 0, 4);
      expect(outcomes(ds), refill).toEqual(['admit', 'admit', 'admit', 'reject']);
      expect(ds.map((d) => d.remaining)).toEqual([2, 1, 0, 0]);
      expect(ds[3]?.retryAfterMs).toBe(1000);
    }
  });

  it('interval refill adds tokens exactly on each fill_interval boundary', () => {
    // Envoy's timer: tokens_per_fill at t = k·fill_interval; a request on the boundary sees them.
    const l = createLimiter({
      kind: 'token-bucket',
      maxTokens: 2,
      tokensPerFill: 1,
      fillIntervalMs: 1000,
      refill: 'interval',
    });
    burst(l, 0, 2);
    expect(l.decide(999)).toMatchObject({ outcome: 'reject', retryAfterMs: 1 });
    expect(l.decide(1000).outcome).toBe('admit'); // exactly on the boundary
    expect(l.decide(1000)).toMatchObject({ outcome: 'reject', retryAfterMs: 1000 });
  });

  it('continuous refill earns a token one full interval after it was spent, not at the boundary', () => {
    const make = (refill: 'continuous' | 'interval') =>
      createLimiter({
        kind: 'token-bucket',
        maxTokens: 1,
        tokensPerFill: 1,
        fillIntervalMs: 1000,
        refill,
      });
    const continuous = make('continuous');
    const interval = make('interval');
    expect(continuous.decide(600).outcome).toBe('admit');
    expect(interval.decide(600).outcome).toBe('admit');
    expect(continuous.decide(999)).toMatchObject({ outcome: 'reject', retryAfterMs: 601 });
    expect(interval.decide(999)).toMatchObject({ outcome: 'reject', retryAfterMs: 1 });
    expect(interval.decide(1000).outcome).toBe('admit'); // the timer fired at 1000
    expect(continuous.decide(1000).outcome).toBe('reject'); // 0.4 of a token
    expect(continuous.decide(1599).outcome).toBe('reject');
    expect(continuous.decide(1600).outcome).toBe('admit');
  });

  it('continuous refill is exact at fractional rates (3 tokens per 1000 ms)', () => {
    // One token per 333.33… ms: scaled by fill_interval, 3 units per ms and 1000 units per token.
    const l = createLimiter({
      kind: 'token-bucket',
      maxTokens: 5,
      tokensPerFill: 3,
      fillIntervalMs: 1000,
    });
    burst(l, 0, 5);
    expect(l.decide(333)).toMatchObject({ outcome: 'reject', retryAfterMs: 1 }); // 999 units
    expect(l.decide(334).outcome).toBe('admit'); // 1002 units, 2 left over
    expect(l.decide(666).outcome).toBe('reject'); // 2 + 332·3 = 998 units
    expect(l.decide(667).outcome).toBe('admit'); // 1001 units, 1 left over
    expect(l.decide(1000).outcome).toBe('admit'); // 1 + 333·3 = 1000 units exactly
  });

  it('a full bucket drops what it earns beyond max_tokens, fractions included', () => {
    // [envoy-proto] "The bucket will never contain more than max_tokens tokens."
    const l = createLimiter({
      kind: 'token-bucket',
      maxTokens: 1,
      tokensPerFill: 3,
      fillIntervalMs: 1000,
    });
    l.decide(0);
    expect(l.decide(334).outcome).toBe('admit'); // 1002 units capped at 1000: nothing left over
    expect(l.decide(667).outcome).toBe('reject'); // 999 units
    expect(l.decide(668).outcome).toBe('admit');
  });

  it('maxDelayMs reserves tokens like x/time/rate: waits one token interval apart, rejects beyond', () => {
    // [go-rate] reserveN: the level goes negative and the wait is the time to earn it back;
    // ok iff wait ≤ maxFutureReserve. 1 token per 100 ms, bucket of 2, maxDelayMs 250.
    const l = createLimiter({
      kind: 'token-bucket',
      maxTokens: 2,
      tokensPerFill: 1,
      fillIntervalMs: 100,
      maxDelayMs: 250,
    });
    const ds = burst(l, 0, 5);
    expect(outcomes(ds)).toEqual(['admit', 'admit', 'delay', 'delay', 'reject']);
    expect(ds.map((d) => d.delayMs)).toEqual([0, 0, 100, 200, 0]);
    // The 5th would wait 300 ms > 250; 50 ms later it waits exactly 250, which is allowed.
    expect(ds[4]?.retryAfterMs).toBe(50);
    expect(l.decide(49).outcome).toBe('reject');
    expect(l.decide(50)).toMatchObject({ outcome: 'delay', delayMs: 250 });
  });

  it('maxDelayMs with interval refill waits for the boundary that brings the token', () => {
    const l = createLimiter({
      kind: 'token-bucket',
      maxTokens: 1,
      tokensPerFill: 1,
      fillIntervalMs: 1000,
      refill: 'interval',
      maxDelayMs: 2500,
    });
    const ds = burst(l, 200, 4);
    expect(outcomes(ds)).toEqual(['admit', 'delay', 'delay', 'reject']);
    expect(ds.map((d) => d.delayMs)).toEqual([0, 800, 1800, 0]);
    // The 4th token comes at t = 3000: 2800 ms > 2500; at 500 the wait is exactly 2500.
    expect(ds[3]?.retryAfterMs).toBe(300);
  });
});

describe('fixed window', () => {
  it('admits twice its limit across a window boundary', () => {
    // The well-known weakness: windows are aligned to t = 0 (⌊t / windowMs⌋).
    const l = createLimiter({ kind: 'fixed-window', limit: 5, windowMs: 1000 });
    const before = burst(l, 999, 6);
    expect(outcomes(before)).toEqual(['admit', 'admit', 'admit', 'admit', 'admit', 'reject']);
    expect(before[5]).toMatchObject({ retryAfterMs: 1, resetMs: 1 });
    const after = burst(l, 1000, 6);
    expect(outcomes(after)).toEqual(['admit', 'admit', 'admit', 'admit', 'admit', 'reject']);
    // 10 admitted within 2 ms.
    expect([...before, ...after].filter((d) => d.outcome === 'admit')).toHaveLength(10);
  });
});

describe('sliding-window counter (Cloudflare)', () => {
  it('42·(45/60) + 18 = 49.5: the request at 49.5 passes, the next (50.5) does not', () => {
    // [cloudflare] 50 per minute; 42 requests in the previous minute, 18 in the current one, 15 s in.
    const l = createLimiter({ kind: 'sliding-window-counter', limit: 50, windowMs: 60_000 });
    expect(outcomes(burst(l, 30_000, 42)).every((o) => o === 'admit')).toBe(true);
    expect(outcomes(burst(l, 75_000, 18)).every((o) => o === 'admit')).toBe(true);
    const view = l.inspect(75_000);
    expect(view).toMatchObject({
      kind: 'sliding-window-counter',
      previousCount: 42,
      currentCount: 18,
      elapsedMs: 15_000,
      estimate: 49.5,
    });
    expect(l.decide(75_000)).toMatchObject({ outcome: 'admit', remaining: 0 }); // 49.5 < 50
    const next = l.decide(75_000); // 42·0.75 + 19 = 50.5 ≥ 50
    expect(next.outcome).toBe('reject');
    // It passes once 42·(60000 − e) + 19·60000 < 50·60000, i.e. e ≥ 15 715 ms.
    expect(next.retryAfterMs).toBe(715);
    expect(l.decide(75_714).outcome).toBe('reject');
    expect(l.decide(75_715).outcome).toBe('admit');
  });
});

describe('sliding log', () => {
  it('an entry stops counting exactly windowMs after it was logged', () => {
    const l = createLimiter({ kind: 'sliding-log', limit: 3, windowMs: 1000 });
    expect(outcomes([l.decide(0), l.decide(100), l.decide(200)])).toEqual([
      'admit',
      'admit',
      'admit',
    ]);
    expect(l.decide(999)).toMatchObject({ outcome: 'reject', retryAfterMs: 1 });
    expect(l.decide(1000).outcome).toBe('admit'); // 1000 − 0 < 1000 is false
  });

  it('with logRejected a client that keeps hammering stays blocked; without it, it gets through', () => {
    const hammer = (logRejected: boolean) => {
      const l = createLimiter({ kind: 'sliding-log', limit: 3, windowMs: 1000, logRejected });
      const ds = Array.from({ length: 51 }, (_, i) => l.decide(i * 100)); // every 100 ms to 5 s
      return { l, ds, admitted: ds.filter((d) => d.outcome === 'admit').length };
    };
    const plain = hammer(false);
    // 0, 100, 200 of every second, and 5000: 3 per window as promised.
    expect(plain.admitted).toBe(16);
    expect(plain.l.stateSize(5000).entries).toBe(3);
    const logged = hammer(true);
    expect(logged.admitted).toBe(3); // only the first three, ever
    // Memory follows the offered load: the ten requests of the last second are all logged.
    expect(logged.l.stateSize(5000).entries).toBe(10);
    // Stopping at 5000: 4800 must expire before the count drops below 3.
    expect((logged.ds[50] as Decision).retryAfterMs).toBe(800);
    expect(logged.l.clone().decide(5799).outcome).toBe('reject');
    expect(logged.l.clone().decide(5800).outcome).toBe('admit');
  });
});

/**
 * HAProxy 2.6 stick-table http_req_rate (sliding-window-counter, anchor 'entry'). Each answer is
 * worked out by hand from include/haproxy/freq_ctr.h update_freq_ctr_period and src/freq_ctr.c
 * freq_ctr_total (2.6): the request is counted first (src/http_act.c http_action_track_sc), then
 * rate = curr + ⌊prev·(tick + period − now)/period⌋ and `deny if { sc_http_req_rate(0) gt N }`.
 */
describe('HAProxy stick-table http_req_rate (entry-anchored counter)', () => {
  const haproxy = (limit: number, windowMs: number, expireMs?: number): Limiter =>
    createLimiter({
      kind: 'sliding-window-counter',
      limit,
      windowMs,
      anchor: 'entry',
      ...(expireMs === undefined ? {} : { expireMs }),
    });

  it('gt 3 over 10 s: the 4th request of a burst is denied, and the period starts at the first request', () => {
    const l = haproxy(3, 10_000);
    const ds = burst(l, 1000, 5);
    expect(outcomes(ds)).toEqual(['admit', 'admit', 'admit', 'reject', 'reject']);
    expect(ds.map((d) => d.remaining)).toEqual([2, 1, 0, 0, 0]);
    // Both denied requests were counted: curr = 5, tick = 1000. At 11000 the entry rotates
    // (prev 5, curr 1, tick 11000); at u the rate is 1 + ⌊5·(21000 − u)/10000⌋ ≤ 3 iff u ≥ 15001.
    expect((ds[4] as Decision).retryAfterMs).toBe(14_001);
    expect(l.clone().decide(15_000).outcome).toBe('reject'); // 1 + ⌊5·6000/10000⌋ = 4
    expect(l.clone().decide(15_001).outcome).toBe('admit'); // 1 + ⌊5·5999/10000⌋ = 3
    // Two periods after its tick the entry starts afresh.
    expect((ds[4] as Decision).resetMs).toBe(20_000);
  });

  it('denied requests count: a client sending one request every 2 s against gt 2 per 10 s stays denied', () => {
    const l = haproxy(2, 10_000);
    const ds = Array.from({ length: 20 }, (_, i) => l.decide(i * 2000));
    // 0 and 2000 pass; from then on the counted denials keep the rate above 2.
    expect(ds.filter((d) => d.outcome === 'admit').length).toBe(2);
    // Aligned Cloudflare counter with the same numbers lets requests through again.
    const cf = createLimiter({ kind: 'sliding-window-counter', limit: 2, windowMs: 10_000 });
    const cfs = Array.from({ length: 20 }, (_, i) => cf.decide(i * 2000));
    expect(cfs.filter((d) => d.outcome === 'admit').length).toBeGreaterThan(2);
  });

  it('the previous period is weighted by what is left of the current one, rounded down', () => {
    const l = haproxy(10, 1000);
    burst(l, 0, 10); // tick 0, curr 10
    // At 1500: rotated (prev 10, tick 1000); remain 500: 1 + ⌊10·500/1000⌋ = 6 → five more pass.
    const d = l.decide(1500);
    expect(d).toMatchObject({ outcome: 'admit', remaining: 4 });
    // At 1701 the previous period weighs ⌊10·299/1000⌋ = 2: curr 1 + 1 + 2 = 4 ≤ 10.
    expect(l.decide(1701)).toMatchObject({ outcome: 'admit', remaining: 6 });
  });

  it('expire forgets an idle entry: its next request starts a fresh period', () => {
    const kept = haproxy(1, 10_000);
    const gone = haproxy(1, 10_000, 5000);
    for (const l of [kept, gone]) {
      expect(l.decide(0).outcome).toBe('admit');
      expect(l.decide(10).outcome).toBe('reject');
    }
    // Untouched since 10 ms: with expire 5 s the entry is freed at 5010.
    expect(gone.clone().decide(5009).outcome).toBe('reject');
    expect(gone.decide(5010).outcome).toBe('admit');
    expect(kept.decide(5010).outcome).toBe('reject');
  });

  it("an odd period loses a millisecond at each rotation (curr_tick's low bit is the lock)", () => {
    const l = haproxy(1, 1001);
    expect(l.decide(1).outcome).toBe('admit'); // tick = 1 & ~1 = 0
    expect(l.inspect(1)).toMatchObject({ windowStartMs: 0, currentCount: 1 });
    // At 1001 the entry rotates: tick = (0 + 1001) & ~1 = 1000, prev 1, curr 1.
    // rate = 1 + ⌊1·(1000 + 1001 − 1001)/1001⌋ = 1 + 0 = 1: admitted.
    expect(l.decide(1001).outcome).toBe('admit');
    expect(l.inspect(1001)).toMatchObject({
      windowStartMs: 1000,
      previousCount: 1,
      currentCount: 1,
    });
  });
});
