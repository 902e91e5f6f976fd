/**
 * The stateful limiters as small state machines over whole numbers, written once and rendered by
 * every SQL dialect (as a fold's lambda, a PL/pgSQL step, a JavaScript UDF).
 *
 * A machine decides one key's requests in order (time, then the log's order): `pre` values depend
 * on the request alone and are computed row by row before the fold; `lets` read the state before
 * the request; `outcome` (0 admit, 1 delay, 2 reject), `delay` (ms) and `next` (the state after it)
 * read both. Each machine is a transcription of the `decideAt` in src/core/algorithms/<name>.ts it
 * stands for (which carries the source citations: nginx ngx_http_limit_req_module.c, Envoy
 * token_bucket_impl.cc, redis-cell src/cell/mod.rs, HAProxy 2.6 freq_ctr.h, Kong, envoyproxy/
 * ratelimit …), under two facts the query guarantees: times never decrease within a key (rows are
 * ordered by time), and times are ≥ 0 whole ms (since the first request, or since 1970). So every
 * "the clock went backwards" branch of core reduces to t = now, and every division has a
 * numerator ≥ 0 and a positive constant divisor: floor, truncation and each engine's integer
 * division agree. Every intermediate value stays below 2^53 (see the caps below), so a 64-bit
 * integer column holds it exactly and no engine's overflow rule is reached.
 *
 * `evaluate` runs a machine in TypeScript; tests/export/sql-machine.test.ts checks it against core
 * on random traces, and the SQL renderings against real DuckDB and PostgreSQL.
 */
import { UNIT_SECONDS, calendarUnits, ceilDiv } from '../../core';
import type {
  AlgorithmConfig,
  AnchoredWindowConfig,
  CalendarUnit,
  CalendarWindowsConfig,
  GcraConfig,
  LeakyBucketConfig,
  SlidingWindowCounterConfig,
  TokenBucketConfig,
} from '../../core';

/** An integer or boolean expression. */
export type Ex =
  | { op: 'num'; v: number }
  /** The request's time (ms, ≥ 0, non-decreasing within a key) or a `pre` value. */
  | { op: 'in'; name: string }
  /** A state field before the request. */
  | { op: 'st'; name: string }
  /** A `let` value. */
  | { op: 'let'; name: string }
  /** +, −, ×; `div`: ⌊a / b⌋ for a ≥ 0 and b > 0 (b is a constant or kept ≥ 1 by a max). */
  | { op: '+' | '-' | '*' | 'div'; a: Ex; b: Ex }
  | { op: '<' | '<=' | '=' | '<>' | '>' | '>='; a: Ex; b: Ex }
  | { op: 'and' | 'or'; args: Ex[] }
  | { op: 'not'; a: Ex }
  /** a if c else b. */
  | { op: 'if'; c: Ex; a: Ex; b: Ex }
  | { op: 'min' | 'max'; a: Ex; b: Ex };

export const num = (v: number): Ex => {
  if (!Number.isSafeInteger(v)) throw new RangeError(`not a whole number: ${v}`);
  return { op: 'num', v };
};
export const inp = (name: string): Ex => ({ op: 'in', name });
export const st = (name: string): Ex => ({ op: 'st', name });
export const lt = (name: string): Ex => ({ op: 'let', name });
const lift = (x: Ex | number): Ex => (typeof x === 'number' ? num(x) : x);
export const add = (a: Ex | number, b: Ex | number): Ex => ({ op: '+', a: lift(a), b: lift(b) });
export const sub = (a: Ex | number, b: Ex | number): Ex => ({ op: '-', a: lift(a), b: lift(b) });
export const mul = (a: Ex | number, b: Ex | number): Ex => ({ op: '*', a: lift(a), b: lift(b) });
export const div = (a: Ex | number, b: Ex | number): Ex => ({ op: 'div', a: lift(a), b: lift(b) });
/** ⌈a / b⌉ for a ≥ 0 (a value for a < 0 is never used: see each caller). */
export const cdiv = (a: Ex | number, b: number): Ex => div(add(a, b - 1), b);
export const cmp = (
  f: '<' | '<=' | '=' | '<>' | '>' | '>=',
  a: Ex | number,
  b: Ex | number,
): Ex => ({ op: f, a: lift(a), b: lift(b) });
export const and = (...args: Ex[]): Ex => ({ op: 'and', args });
export const or = (...args: Ex[]): Ex => ({ op: 'or', args });
export const not = (a: Ex): Ex => ({ op: 'not', a });
export const iff = (c: Ex, a: Ex | number, b: Ex | number): Ex => ({
  op: 'if',
  c,
  a: lift(a),
  b: lift(b),
});
export const min = (a: Ex | number, b: Ex | number): Ex => ({ op: 'min', a: lift(a), b: lift(b) });
export const max = (a: Ex | number, b: Ex | number): Ex => ({ op: 'max', a: lift(a), b: lift(b) });
const T = inp('t');

/** A machine: see the file's comment. Names are lower-case identifiers, unique across the lists. */
export interface Machine {
  /** Per-request values computed before the fold, in order (each may use `t` and earlier ones). */
  pre: [name: string, ex: Ex][];
  /** State fields with their value before a key's first request. */
  state: [name: string, init: number][];
  /** Values computed from the state and the request, in order. */
  lets: [name: string, ex: Ex][];
  outcome: Ex;
  delay: Ex;
  /** The state after the request (every field, in `state`'s order). */
  next: Ex[];
}

/** 0 admit, 1 delay, 2 reject (as src/trace/replay.ts). */
export const ADMIT = 0;
export const DELAY = 1;
export const REJECT = 2;

// ---- token bucket ----

/**
 * Envoy's token bucket (src/core/algorithms/token-bucket.ts), both refills, x/time/rate's wait
 * (`maxDelayMs`) and Traefik's idle reset (`idleResetS`).
 */
function tokenBucket(c: TokenBucketConfig): Machine {
  const { tokensPerFill: tpf, fillIntervalMs: fi, maxTokens } = c;
  const interval = c.refill === 'interval';
  const maxDelayMs = c.maxDelayMs ?? 0;
  const unit = interval ? 1 : fi;
  const full = maxTokens * unit;
  const idle = c.idleResetS ?? 0;
  // The level never goes below −(the tokens maxDelayMs may wait for), so refilling for `cap`
  // more ms (fills, for the interval refill) always reaches `full`: capping the elapsed time there
  // changes no result and keeps the product below 2^53.
  const refill = interval
    ? (() => {
        const capFills = maxTokens + ceilDiv(maxDelayMs, fi) + 2;
        const fills = min(sub(div(T, fi), div(st('last'), fi)), capFills);
        return iff(cmp('>', fills, 0), min(full, add(st('level'), mul(fills, tpf))), st('level'));
      })()
    : (() => {
        const capMs = ceilDiv(full, tpf) + maxDelayMs + 2;
        return min(full, add(st('level'), mul(min(sub(T, st('last')), capMs), tpf)));
      })();
  const expired =
    idle > 0
      ? and(cmp('=', st('seen'), 1), cmp('>=', div(T, 1000), add(div(st('touched'), 1000), idle)))
      : num(0);
  const lets: [string, Ex][] = [
    // Traefik's ttlmap forgets the key: it starts again full.
    ['s', idle > 0 ? iff(expired, 0, st('seen')) : st('seen')],
    ['lv', iff(cmp('=', lt('s'), 1), refill, full)],
    ['ok', iff(cmp('>=', lt('lv'), unit), 1, 0)],
    // When the next token not yet promised exists (only read when there is no token: lv < unit).
    [
      'tokenat',
      interval
        ? mul(add(div(T, fi), cdiv(max(sub(unit, lt('lv')), 0), tpf)), fi)
        : add(T, cdiv(max(sub(unit, lt('lv')), 0), tpf)),
    ],
    [
      'dl',
      maxDelayMs > 0
        ? iff(and(cmp('=', lt('ok'), 0), cmp('<=', sub(lt('tokenat'), T), maxDelayMs)), 1, 0)
        : num(0),
    ],
    ['take', iff(or(cmp('=', lt('ok'), 1), cmp('=', lt('dl'), 1)), 1, 0)],
  ];
  const take = cmp('=', lt('take'), 1);
  const touched = iff(
    take,
    iff(cmp('=', lt('s'), 1), max(st('touched'), T), T),
    idle > 0 ? max(st('touched'), T) : st('touched'),
  );
  return {
    pre: [],
    state: [
      ['seen', 0],
      ['level', 0],
      ['last', 0],
      ['touched', 0],
    ],
    lets,
    outcome: iff(cmp('=', lt('ok'), 1), ADMIT, iff(cmp('=', lt('dl'), 1), DELAY, REJECT)),
    delay: iff(cmp('=', lt('dl'), 1), sub(lt('tokenat'), T), 0),
    next: [
      // A rejected request only ever meets a seen key (a fresh one starts full).
      iff(take, 1, lt('s')),
      iff(take, sub(lt('lv'), unit), st('level')),
      iff(take, T, st('last')),
      touched,
    ],
  };
}

// ---- GCRA ----

/** redis-cell's GCRA (src/core/algorithms/gcra.ts): tat = ms + frac / count. */
function gcra(c: GcraConfig): Machine {
  const { count, periodMs, burst } = c;
  const tauUnits = periodMs * (burst + 1);
  const tWhole = Math.floor(periodMs / count);
  const tFrac = periodMs % count;
  const tauCeilMs = ceilDiv(tauUnits, count);
  const ahead = and(
    cmp('=', st('seen'), 1),
    or(cmp('>', st('ms'), T), and(cmp('=', st('ms'), T), cmp('>', st('frac'), 0))),
  );
  return {
    pre: [],
    state: [
      ['seen', 0],
      ['ms', 0],
      ['frac', 0],
    ],
    lets: [
      ['a', iff(ahead, 1, 0)],
      ['f1', add(iff(cmp('=', lt('a'), 1), st('frac'), 0), tFrac)],
      [
        'm1',
        add(
          add(iff(cmp('=', lt('a'), 1), st('ms'), T), tWhole),
          iff(cmp('>=', lt('f1'), count), 1, 0),
        ),
      ],
      ['f2', iff(cmp('>=', lt('f1'), count), sub(lt('f1'), count), lt('f1'))],
      // m1 − t is at most ⌈τ⌉ + T + 2 ms (the stored tat was admitted at most τ ahead), so the
      // product stays small; the first test is core's guard all the same.
      [
        'ok',
        iff(
          and(
            cmp('<=', sub(lt('m1'), T), tauCeilMs + 1),
            cmp('<=', add(mul(sub(lt('m1'), T), count), lt('f2')), tauUnits),
          ),
          1,
          0,
        ),
      ],
    ],
    outcome: iff(cmp('=', lt('ok'), 1), ADMIT, REJECT),
    delay: num(0),
    next: [
      iff(cmp('=', lt('ok'), 1), 1, st('seen')),
      iff(cmp('=', lt('ok'), 1), lt('m1'), st('ms')),
      iff(cmp('=', lt('ok'), 1), lt('f2'), st('frac')),
    ],
  };
}

// ---- nginx limit_req ----

/** ngx_http_limit_req_expire looks only at nodes untouched this long (leaky-bucket.ts). */
const NGINX_EXPIRE_AFTER_MS = 60_000;

/** ctx->rate: milli-requests per second (leaky-bucket.ts). */
export function nginxRate(c: LeakyBucketConfig): number {
  return Math.floor((c.rate * 1000) / (c.rateUnit === 'r/m' ? 60 : 1));
}

/**
 * Whether nginx's zone expiry can change a decision. Creating a node deletes up to two
 * least-recently-used nodes idle ≥ 60 s whose excess has drained; the deleted key's next request
 * then starts at excess 0 where the kept node would give max(0, excess + 1000 − ⌊rate·ms/1000⌋).
 * With ms ≥ 60 s that is 0 whenever (burst + 1)·1000 ≤ 60·rate, and then both are the same state
 * and the same decision. Otherwise which nodes go depends on every key's place in the zone's LRU
 * queue: a per-key query cannot say.
 */
export function nginxExpiryMatters(c: LeakyBucketConfig): boolean {
  return (c.burst + 1) * 1000 > (NGINX_EXPIRE_AFTER_MS / 1000) * nginxRate(c);
}

/** nginx `limit_req` (src/core/algorithms/leaky-bucket.ts), for configs its zone expiry cannot touch. */
function leakyBucket(c: LeakyBucketConfig): Machine {
  const rate = nginxRate(c);
  const burstMilli = c.burst * 1000;
  // After `capMs` the drain exceeds any stored excess + 1000: the result is 0 either way.
  const capMs = ceilDiv((burstMilli + 1000) * 1000, rate) + 1;
  const ms = min(sub(T, st('last')), capMs);
  const delayTerm =
    c.delay === 'nodelay'
      ? num(0)
      : iff(
          cmp('<=', lt('ex'), c.delay * 1000),
          0,
          div(mul(sub(lt('ex'), c.delay * 1000), 1000), rate),
        );
  return {
    pre: [],
    state: [
      ['seen', 0],
      ['excess', 0],
      ['last', 0],
    ],
    lets: [
      // A key's first request makes a node with excess 0.
      [
        'ex',
        iff(
          cmp('=', st('seen'), 0),
          0,
          max(add(sub(st('excess'), div(mul(rate, ms), 1000)), 1000), 0),
        ),
      ],
      ['rej', iff(cmp('>', lt('ex'), burstMilli), 1, 0)],
      ['d', iff(cmp('=', lt('rej'), 1), 0, delayTerm)],
    ],
    outcome: iff(cmp('=', lt('rej'), 1), REJECT, iff(cmp('>', lt('d'), 0), DELAY, ADMIT)),
    delay: lt('d'),
    next: [
      num(1),
      iff(cmp('=', lt('rej'), 1), st('excess'), lt('ex')),
      // last moves only when ms ≠ 0 (or on the node's creation).
      iff(
        and(cmp('=', lt('rej'), 0), or(cmp('=', st('seen'), 0), cmp('<>', T, st('last')))),
        T,
        st('last'),
      ),
    ],
  };
}

// ---- sliding-window counters ----

/** Cloudflare's aligned sliding-window counter (src/core/algorithms/sliding-window-counter.ts). */
function slidingWindowCounter(c: SlidingWindowCounterConfig): Machine {
  const { limit, windowMs: W } = c;
  const same = and(cmp('=', st('seen'), 1), cmp('=', inp('w'), st('win')));
  const nextWin = and(cmp('=', st('seen'), 1), cmp('=', inp('w'), add(st('win'), 1)));
  return {
    pre: [
      ['w', div(T, W)],
      ['e', sub(T, mul(inp('w'), W))],
    ],
    state: [
      ['seen', 0],
      ['win', 0],
      ['prev', 0],
      ['cur', 0],
    ],
    lets: [
      ['p', iff(same, st('prev'), iff(nextWin, st('cur'), 0))],
      ['c', iff(same, st('cur'), 0)],
      ['ok', iff(cmp('<', mul(lt('c'), W), sub(limit * W, mul(lt('p'), sub(W, inp('e'))))), 1, 0)],
    ],
    outcome: iff(cmp('=', lt('ok'), 1), ADMIT, REJECT),
    delay: num(0),
    next: [
      iff(cmp('=', lt('ok'), 1), 1, st('seen')),
      iff(cmp('=', lt('ok'), 1), inp('w'), st('win')),
      iff(cmp('=', lt('ok'), 1), lt('p'), st('prev')),
      iff(cmp('=', lt('ok'), 1), add(lt('c'), 1), st('cur')),
    ],
  };
}

/** x with its lowest bit cleared, x ≥ 0 (entry-counter.ts `even`). */
const even = (x: Ex): Ex => mul(div(x, 2), 2);

/** HAProxy's per-entry frequency counter (src/core/algorithms/entry-counter.ts). */
function entryCounter(c: SlidingWindowCounterConfig): Machine {
  const { limit, windowMs: W } = c;
  const expire = c.expireMs;
  const fresh =
    expire === undefined
      ? cmp('=', st('seen'), 0)
      : or(cmp('=', st('seen'), 0), cmp('>=', sub(T, st('last')), expire));
  return {
    pre: [['evt', even(T)]],
    state: [
      ['seen', 0],
      ['tick', 0],
      ['prev', 0],
      ['cur', 0],
      ['last', 0],
    ],
    lets: [
      // 0: a new entry; 1: still in the entry's period; 2: rotated once; 3: missed two periods.
      [
        'm',
        iff(
          fresh,
          0,
          iff(
            cmp('<', sub(T, st('tick')), W),
            1,
            iff(cmp('>=', sub(T, add(st('tick'), W)), W), 3, 2),
          ),
        ),
      ],
      [
        'tk',
        iff(
          cmp('=', lt('m'), 1),
          st('tick'),
          iff(cmp('=', lt('m'), 2), even(add(st('tick'), W)), inp('evt')),
        ),
      ],
      ['p', iff(cmp('=', lt('m'), 1), st('prev'), iff(cmp('=', lt('m'), 2), st('cur'), 0))],
      // Counted before the deny rule reads it.
      ['cc', add(iff(cmp('=', lt('m'), 1), st('cur'), 0), 1)],
    ],
    outcome: iff(
      cmp('<=', add(lt('cc'), div(mul(lt('p'), sub(add(lt('tk'), W), T)), W)), limit),
      ADMIT,
      REJECT,
    ),
    delay: num(0),
    next: [num(1), lt('tk'), lt('p'), lt('cc'), T],
  };
}

// ---- anchored window ----

/** express-rate-limit / rate-limiter-flexible (src/core/algorithms/anchored-window.ts). */
function anchoredWindow(c: AnchoredWindowConfig): Machine {
  const { limit, windowMs } = c;
  const blockMs = c.blockMs ?? 0;
  // rate-limiter-flexible's default minimum delay, ⌈duration / points⌉ (as core).
  const minDelay = c.execEvenlyMinDelayMs ?? Math.ceil(windowMs / limit);
  // consume()'s points per request.
  const k = c.cost ?? 1;
  const fresh = or(cmp('=', st('seen'), 0), cmp('<=', st('reset'), T));
  const lets: [string, Ex][] = [
    ['f', iff(fresh, 1, 0)],
    ['cnt', iff(cmp('=', lt('f'), 1), 0, st('count'))],
    ['ra', iff(cmp('=', lt('f'), 1), add(T, windowMs), st('reset'))],
    ['bl', iff(cmp('=', lt('f'), 1), 0, st('blocked'))],
    ['ok', iff(cmp('<=', add(lt('cnt'), k), limit), 1, 0)],
  ];
  let delay: Ex = num(0);
  if (c.execEvenly === true) {
    // ⌈msBeforeNext / (remaining points + 2)⌉, or count · execEvenlyMinDelayMs when that is
    // shorter than execEvenlyMinDelayMs; only for an admitted request that is not the window's
    // first. With remaining points = limit − (cnt + k) the divisor is limit − cnt − k + 2 ≥ 2 when
    // admitted (kept ≥ 1 otherwise, where the value is not used).
    const spread = div(
      add(sub(lt('ra'), T), sub(limit - k + 1, lt('cnt'))),
      max(sub(limit - k + 2, lt('cnt')), 1),
    );
    const ev =
      minDelay > 0
        ? iff(cmp('<', spread, minDelay), mul(add(lt('cnt'), k), minDelay), spread)
        : spread;
    lets.push(['ev', iff(and(cmp('=', lt('ok'), 1), cmp('=', lt('f'), 0)), ev, 0)]);
    delay = lt('ev');
  }
  return {
    pre: [],
    state: [
      ['seen', 0],
      ['reset', 0],
      ['count', 0],
      ['blocked', 0],
    ],
    lets,
    outcome: iff(
      cmp('=', lt('ok'), 1),
      c.execEvenly === true ? iff(cmp('>', lt('ev'), 0), DELAY, ADMIT) : num(ADMIT),
      REJECT,
    ),
    delay,
    next: [
      num(1),
      blockMs > 0
        ? iff(and(cmp('=', lt('ok'), 0), cmp('=', lt('bl'), 0)), add(T, blockMs), lt('ra'))
        : lt('ra'),
      iff(
        cmp('=', lt('ok'), 1),
        add(lt('cnt'), k),
        c.countRejected === true ? add(lt('cnt'), k) : lt('cnt'),
      ),
      blockMs > 0 ? iff(cmp('=', lt('ok'), 0), 1, lt('bl')) : lt('bl'),
    ],
  };
}

// ---- calendar windows ----

const DAY_MS = 86_400_000;

/**
 * `pre` values for the UTC civil date of t (Howard Hinnant's civil_from_days, as
 * src/core/calendar.ts), every step a whole-number operation on values ≥ 0 (t ≥ 0).
 */
function civilPre(): [string, Ex][] {
  const p = inp;
  return [
    ['cz', add(div(T, DAY_MS), 719_468)],
    ['cera', div(p('cz'), 146_097)],
    ['cdoe', sub(p('cz'), mul(p('cera'), 146_097))],
    [
      'cyoe',
      div(
        sub(
          add(sub(p('cdoe'), div(p('cdoe'), 1460)), div(p('cdoe'), 36_524)),
          div(p('cdoe'), 146_096),
        ),
        365,
      ),
    ],
    ['cdoy', sub(p('cdoe'), sub(add(mul(p('cyoe'), 365), div(p('cyoe'), 4)), div(p('cyoe'), 100)))],
    ['cmp', div(add(mul(p('cdoy'), 5), 2), 153)],
    ['cd', add(sub(p('cdoy'), div(add(mul(p('cmp'), 153), 2), 5)), 1)],
    ['cm', iff(cmp('<', p('cmp'), 10), add(p('cmp'), 3), sub(p('cmp'), 9))],
    ['cy', add(add(p('cyoe'), mul(p('cera'), 400)), iff(cmp('<=', p('cm'), 2), 1, 0))],
  ];
}

/** Days since 1970 of the 1st of month m (1–12) of year y (days_from_civil, y ≥ 1970, d = 1). */
function daysFromCivil1(y: Ex, m: Ex): Ex {
  const yy = sub(y, iff(cmp('<=', m, 2), 1, 0));
  const era = div(yy, 400);
  const yoe = sub(yy, mul(era, 400));
  // (m + 9) mod 12 for m in 1–12.
  const mp = iff(cmp('<=', m, 2), add(m, 9), sub(m, 3));
  const doy = div(add(mul(mp, 153), 2), 5);
  const doe = add(sub(add(mul(yoe, 365), div(yoe, 4)), div(yoe, 100)), doy);
  return sub(add(mul(era, 146_097), doe), 719_468);
}

/** Kong / envoyproxy/ratelimit calendar windows (src/core/algorithms/calendar-windows.ts). */
function calendarWindows(c: CalendarWindowsConfig): Machine {
  const units = calendarUnits(c);
  const epoch = (c.align ?? 'calendar') === 'epoch';
  const ttl = c.counterTtl === true;
  const shadow = c.shadowMode === true;
  const countBlocked = c.countRejected === true || shadow;
  const pre: [string, Ex][] = [];
  const civil = (u: CalendarUnit) => !epoch && (u === 'month' || u === 'year');
  if (units.some((u) => civil(u.unit))) pre.push(...civilPre());
  units.forEach(({ unit }, i) => {
    if (!civil(unit)) {
      const len = UNIT_SECONDS[unit] * 1000;
      pre.push([`ps${i}`, mul(div(T, len), len)], [`pe${i}`, add(inp(`ps${i}`), len)]);
    } else if (unit === 'month') {
      const last = cmp('=', inp('cm'), 12);
      pre.push(
        [`ps${i}`, mul(sub(div(T, DAY_MS), sub(inp('cd'), 1)), DAY_MS)],
        [
          `pe${i}`,
          mul(
            daysFromCivil1(
              iff(last, add(inp('cy'), 1), inp('cy')),
              iff(last, 1, add(inp('cm'), 1)),
            ),
            DAY_MS,
          ),
        ],
      );
    } else {
      pre.push(
        [`ps${i}`, mul(daysFromCivil1(inp('cy'), num(1)), DAY_MS)],
        [`pe${i}`, mul(daysFromCivil1(add(inp('cy'), 1), num(1)), DAY_MS)],
      );
    }
  });
  const state: [string, number][] = [];
  const lets: [string, Ex][] = [];
  units.forEach((_, i) => {
    state.push([`start${i}`, 0], [`count${i}`, 0], [`exp${i}`, 0]);
    // The live count: the counter is this period's and not gone (an unused counter has exp 0).
    lets.push([
      `n${i}`,
      iff(
        and(cmp('=', st(`start${i}`), inp(`ps${i}`)), cmp('<', T, st(`exp${i}`))),
        st(`count${i}`),
        0,
      ),
    ]);
  });
  lets.push(['blocked', iff(or(...units.map((u, i) => cmp('>=', lt(`n${i}`), u.limit))), 1, 0)]);
  const counts = countBlocked ? num(1) : cmp('=', lt('blocked'), 0);
  const next: Ex[] = [];
  units.forEach(({ unit }, i) => {
    const live = cmp('>', lt(`n${i}`), 0);
    const len = UNIT_SECONDS[unit] * 1000;
    const newExp = ttl ? min(inp(`pe${i}`), add(T, len)) : inp(`pe${i}`);
    next.push(
      iff(counts, iff(live, st(`start${i}`), inp(`ps${i}`)), st(`start${i}`)),
      iff(counts, iff(live, add(lt(`n${i}`), 1), 1), st(`count${i}`)),
      iff(counts, iff(live, st(`exp${i}`), newExp), st(`exp${i}`)),
    );
  });
  return {
    pre,
    state,
    lets,
    outcome: shadow ? num(ADMIT) : iff(cmp('=', lt('blocked'), 1), REJECT, ADMIT),
    delay: num(0),
    next,
  };
}

/** Why an algorithm has no machine (the caller says so instead of approximating). */
export class NotExpressible extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NotExpressible';
  }
}

/**
 * The machine deciding `config`, for the stateful algorithms. Throws NotExpressible for nginx
 * configs its zone expiry can change (see nginxExpiryMatters) and for algorithms decided by window
 * functions instead (fixed window, sliding log).
 */
export function machineFor(config: AlgorithmConfig): Machine {
  switch (config.kind) {
    case 'token-bucket':
      return tokenBucket(config);
    case 'gcra':
      return gcra(config);
    case 'leaky-bucket':
      if (nginxExpiryMatters(config)) {
        throw new NotExpressible(
          `nginx limit_req with rate=${config.rate}${config.rateUnit} and burst=${config.burst}: when a new key arrives, nginx deletes up to two other keys idle for 60 s (ngx_http_limit_req_expire), and with (burst + 1) × 1000 > 60 × ${nginxRate(config)} milli-requests/s that deletion can change a later decision; which keys it deletes depends on every key's order in the zone, which a per-key query cannot follow. The page's own dry run decides it exactly.`,
        );
      }
      return leakyBucket(config);
    case 'sliding-window-counter':
      return config.anchor === 'entry' ? entryCounter(config) : slidingWindowCounter(config);
    case 'anchored-window':
      if (config.windowMs === 0) {
        throw new NotExpressible(
          "duration 0 (points never expire): the query's window arithmetic needs a window length. The page's own dry run decides it exactly.",
        );
      }
      return anchoredWindow(config);
    case 'calendar-windows':
      return calendarWindows(config);
    case 'fixed-window':
    case 'sliding-log':
      throw new NotExpressible(`${config.kind} is decided by window functions, not a machine.`);
  }
}

// ---- the TypeScript interpreter (tests; the BigQuery UDF's body is rendered from the same AST) ----

type Env = {
  pre: Map<string, number>;
  st: number[];
  stIndex: Map<string, number>;
  lets: Map<string, number>;
};

/** The value of `e` (booleans as 0/1). */
export function evalEx(e: Ex, env: Env): number {
  const v = (x: Ex) => evalEx(x, env);
  switch (e.op) {
    case 'num':
      return e.v;
    case 'in':
      return env.pre.get(e.name) as number;
    case 'st':
      return env.st[env.stIndex.get(e.name) as number] as number;
    case 'let':
      return env.lets.get(e.name) as number;
    case '+':
      return v(e.a) + v(e.b);
    case '-':
      return v(e.a) - v(e.b);
    case '*':
      return v(e.a) * v(e.b);
    case 'div':
      return Math.floor(v(e.a) / v(e.b));
    case '<':
      return v(e.a) < v(e.b) ? 1 : 0;
    case '<=':
      return v(e.a) <= v(e.b) ? 1 : 0;
    case '=':
      return v(e.a) === v(e.b) ? 1 : 0;
    case '<>':
      return v(e.a) !== v(e.b) ? 1 : 0;
    case '>':
      return v(e.a) > v(e.b) ? 1 : 0;
    case '>=':
      return v(e.a) >= v(e.b) ? 1 : 0;
    case 'and':
      return e.args.every((x) => v(x) !== 0) ? 1 : 0;
    case 'or':
      return e.args.some((x) => v(x) !== 0) ? 1 : 0;
    case 'not':
      return v(e.a) === 0 ? 1 : 0;
    case 'if':
      return v(e.c) !== 0 ? v(e.a) : v(e.b);
    case 'min':
      return Math.min(v(e.a), v(e.b));
    case 'max':
      return Math.max(v(e.a), v(e.b));
  }
}

/**
 * Runs `m` over one key's requests (times ascending, ≥ 0): each request's outcome and delay.
 * Every intermediate value is checked to be a safe integer (a SQL BIGINT holds it exactly).
 */
export function evaluate(
  m: Machine,
  times: readonly number[],
): { outcome: number[]; delay: number[] } {
  const stIndex = new Map(m.state.map(([n], i) => [n, i]));
  let state = m.state.map(([, v]) => v);
  const outcome: number[] = [];
  const delay: number[] = [];
  const check = (what: string, x: number) => {
    if (!Number.isSafeInteger(x)) throw new RangeError(`${what} = ${x} is not a safe integer`);
    return x;
  };
  for (const t of times) {
    const env: Env = { pre: new Map([['t', t]]), st: state, stIndex, lets: new Map() };
    for (const [n, e] of m.pre) env.pre.set(n, check(n, evalEx(e, env)));
    for (const [n, e] of m.lets) env.lets.set(n, check(n, evalEx(e, env)));
    outcome.push(check('outcome', evalEx(m.outcome, env)));
    delay.push(check('delay', evalEx(m.delay, env)));
    state = m.next.map((e, i) => check(m.state[i]?.[0] ?? '?', evalEx(e, env)));
  }
  return { outcome, delay };
}
