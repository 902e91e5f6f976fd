import type { Inspection, TokenBucketInspection } from './inspect';
import { TRAEFIK_REDIS_EPOCH_MS, traefikRedisStep } from './algorithms/traefik-redis';
import { plural } from './plural';
import { NEVER_MS } from './int';
import type { Decision } from './types';

/** Why a request got its outcome: the rule, with the numbers it was decided on filled in. */
export interface Explanation {
  /** One line: the comparison that decided, e.g. "42 × 45/60 + 18 = 49.5 < 50 → admit". */
  rule: string;
  /** Supporting steps, in order. */
  steps: string[];
}

/** Up to 3 decimals, no trailing zeros, never "NaN" (for a finite input). */
function num(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  const r = Math.round(x * 1000) / 1000;
  return String(Object.is(r, -0) ? 0 : r);
}

function ms(x: number): string {
  return `${num(x)} ms`;
}

/**
 * A float as a person should read it: cut toward 0 to 3 decimals (6 below 1, so small amounts keep
 * a digit), with "…" when that dropped digits: 2.9999999997 reads "2.999…", never "3", which it has
 * not reached.
 */
function cut(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  const scale = Math.abs(x) < 1 ? 1e6 : 1e3;
  let units = Math.trunc(x * scale);
  // x · scale can round up to the next whole unit (0.5619999999999999 → 562000): step back.
  if (Math.abs(units / scale) > Math.abs(x)) units -= Math.sign(x);
  const c = units / scale;
  const text = c === 0 && x < 0 ? '-0' : String(c === 0 ? 0 : c);
  return c === x ? text : `${text}…`;
}

/**
 * Traefik's Redis limiter: the decision as its Lua script and rate_limiter.go made it (lua.go,
 * redis_limiter.go and rate_limiter.go @ traefik v3.7.9; algorithms/traefik-redis.ts). The script
 * takes a token only when its wait is at most max_delay (whole µs); Traefik waits any delay up to
 * maxDelay (ns), so a wait between the two passes without a token: no reservation, as in memory.
 */
function explainTraefikRedis(
  before: TokenBucketInspection,
  redis: NonNullable<TokenBucketInspection['redis']>,
  decision: Decision,
): Explanation {
  const { params: p, stored, unixMs } = redis;
  const { step, key: after } = traefikRedisStep(p, stored ?? undefined, unixMs);
  const x = before.tokens;
  const at = (us: number) => ms(us / 1000 - TRAEFIK_REDIS_EPOCH_MS);
  const steps = [
    `${num(p.limit * 1e6)} tokens/s, burst ${p.burst}, in Redis: one Lua script per request`,
    stored === null
      ? `no key in Redis (never set, or expired ${p.ttl} s after its last request): the script starts from tokens 0, last 0, and its refill fills it to ${p.burst}`
      : `Redis holds tokens ${cut(stored.tokens)}, last ${at(stored.lastUs)}; refilled: min(${cut(stored.tokens)} + ${num(p.limit * 1e6)}/s × ${ms(Math.max(0, unixMs - stored.lastUs / 1000))}, ${p.burst}) = ${cut(x)}`,
  ];
  const keep = `stores tokens ${cut(after.tokens)}, last = now, and the key expires in ${p.ttl} s`;
  const wait = `${cut(step.waitUs)} µs`;
  if (step.waitUs === 0) {
    steps.push(`the script takes one: ${keep}`);
    return { rule: `tokens ${cut(x)} ≥ 1 → ${decision.outcome}`, steps };
  }
  const taken = step.waitUs <= p.maxDelayUs;
  const script = taken
    ? `the script takes the token ahead (wait ${wait} ≤ max_delay ${p.maxDelayUs} µs): ${keep}`
    : `the wait ${wait} > max_delay ${p.maxDelayUs} µs, so the script gives the token back: ${keep}`;
  steps.push(script);
  if (step.outcome === 'reject') {
    steps.push(
      `Traefik reads the wait as ${step.delayNs} ns > maxDelay ${p.maxDelayNs} ns: 429; a request passes again in ${ms(decision.retryAfterMs)}`,
    );
    return { rule: `tokens ${cut(x)} < 1, wait ${wait} > max delay → reject`, steps };
  }
  steps.push(
    step.delayNs === 0
      ? `Traefik reads the wait as 0 ns (time.Duration truncates): it passes at once`
      : `Traefik reads the wait as ${step.delayNs} ns ≤ maxDelay ${p.maxDelayNs} ns: it waits that long, then passes the request${taken ? '' : ', which took no token'}`,
  );
  return {
    rule: `tokens ${cut(x)} < 1, wait ${wait} ${taken ? '≤' : '>'} max_delay ${p.maxDelayUs} µs → ${decision.outcome}${taken ? '' : ' without a token'}`,
    steps,
  };
}

/**
 * Explains `decision` from `before`, the limiter's state for the request's key just before it was
 * decided (`inspect` at the decision time on that state). Pure: text only, no state.
 */
export function explainDecision(before: Inspection, decision: Decision): Explanation {
  const out = decision.outcome;
  const t = before.effectiveNowMs;
  switch (before.kind) {
    case 'fixed-window': {
      const c = before.count;
      return {
        rule: `count ${c} ${c < before.limit ? '<' : '≥'} limit ${before.limit} → ${out}`,
        steps: [
          `window [${ms(before.windowStartMs)}, ${ms(before.windowEndMs)}) = ⌊${ms(t)} / ${ms(before.windowMs)}⌋`,
          out === 'reject'
            ? `the window resets at ${ms(before.windowEndMs)}, in ${ms(decision.retryAfterMs)}`
            : `count becomes ${c + 1}; ${decision.remaining} more fit in this window`,
        ],
      };
    }
    case 'sliding-log': {
      const n = before.entries.length;
      const oldest = before.entries[0];
      if (before.lastMsPasses && n >= before.limit && oldest === t - before.windowMs + 1) {
        // caddy-ratelimit: When() is 0 when the oldest is exactly Caddy's window old.
        return {
          rule: `${plural(n, 'entry', 'entries', num)} younger than ${ms(before.windowMs)} ≥ limit ${before.limit}, but the oldest (${ms(oldest)}) is in its last ms → ${out}`,
          steps: [
            `entries in (${ms(t - before.windowMs)}, ${ms(t)}]: ${n}`,
            `the wait to the oldest's expiry, minus Caddy's 1 ms, is 0: passes without being logged`,
          ],
        };
      }
      return {
        rule: `${plural(n, 'entry', 'entries', num)} younger than ${ms(before.windowMs)} ${n < before.limit ? '<' : '≥'} limit ${before.limit} → ${out}`,
        steps: [
          `entries in (${ms(t - before.windowMs)}, ${ms(t)}]: ${n}${before.stored > n ? ` (${before.stored} stored)` : ''}`,
          out === 'reject'
            ? `${before.logRejected ? 'logged anyway (logRejected); ' : ''}passes once enough expire, in ${ms(decision.retryAfterMs)}`
            : `logged at ${ms(t)}${oldest !== undefined ? `; the oldest (${ms(oldest)}) expires at ${ms(oldest + before.windowMs)}` : ''}`,
        ],
      };
    }
    case 'sliding-window-counter': {
      const { previousCount: p, currentCount: c, windowMs: w, elapsedMs: e, limit } = before;
      if (before.anchor === 'entry') {
        // HAProxy 2.6: track-sc0 counts this request, then the deny rule reads
        // curr + ⌊prev·remain / period⌋ (src/freq_ctr.c freq_ctr_total) and compares with gt.
        const weighted = Math.floor((p * (w - e)) / w);
        const rate = c + 1 + weighted;
        return {
          rule: `rate ${c + 1} + ⌊${p} × ${num(w - e)}/${num(w)}⌋ = ${rate} ${rate > limit ? '>' : '≤'} ${limit} → ${out}`,
          steps: [
            `this client's period [${ms(before.windowStartMs)}, ${ms(before.windowStartMs + w)}) started with its first request; ${c} counted before this one, which is counted too`,
            `previous period: ${plural(p, 'request')}, weighted by the ${num(w - e)} ms left of this period, rounded down: ${weighted}`,
            out === 'reject'
              ? `denied — and counted, so it keeps the rate up; passes in ${ms(decision.retryAfterMs)}`
              : `${decision.remaining} more pass at this instant`,
          ],
        };
      }
      const pass = p * (w - e) + c * w < limit * w;
      return {
        rule: `${p} × ${num(w - e)}/${num(w)} + ${c} = ${num(before.estimate)} ${pass ? '<' : '≥'} ${limit} → ${out}`,
        steps: [
          `previous window: ${plural(p, 'request', 'requests', num)}, weighted by the ${num(w - e)} ms of it still inside the sliding window`,
          `current window [${ms(before.windowStartMs)}, ${ms(before.windowStartMs + w)}): ${plural(c, 'request', 'requests', num)}`,
          out === 'reject'
            ? `the estimate drops below ${limit} in ${ms(decision.retryAfterMs)}`
            : `current count becomes ${c + 1}`,
        ],
      };
    }
    case 'token-bucket': {
      if (before.redis !== undefined) return explainTraefikRedis(before, before.redis, decision);
      const x = before.tokens;
      const steps = [
        `${before.refill === 'interval' ? `${plural(before.tokensPerFill, 'token', 'tokens', num)} every ${ms(before.fillIntervalMs)}` : `${num((before.tokensPerFill * 1000) / before.fillIntervalMs)} tokens/s`}, at most ${before.maxTokens}`,
      ];
      if (out === 'admit') steps.push(`takes one: ${num(x - 1)} left`);
      else if (out === 'delay')
        steps.push(
          `reserves the next token (${num(x - 1)} after it) and waits ${ms(decision.delayMs)} ≤ max delay ${ms(before.maxDelayMs)}`,
        );
      else
        steps.push(
          before.maxDelayMs > 0
            ? `the wait for a token exceeds max delay ${ms(before.maxDelayMs)}; retry in ${ms(decision.retryAfterMs)}`
            : `next token in ${ms(decision.retryAfterMs)}`,
        );
      return { rule: `tokens ${num(x)} ${x >= 1 ? '≥' : '<'} 1 → ${out}`, steps };
    }
    case 'leaky-bucket': {
      const r = before.rateMilli;
      if (!before.seen) {
        return {
          rule: `first request of this key: excess 0 → ${out}`,
          steps: [`nginx creates its node with excess 0 and last = ${ms(before.nowMs)}`],
        };
      }
      const raw = before.nowMs - before.lastMs;
      const elapsed = raw < -60_000 ? 1 : raw < 0 ? 0 : raw;
      const drained = before.excessMilli - Math.floor((r * elapsed) / 1000);
      const excess = Math.max(0, drained + 1000);
      const burstMilli = before.burst * 1000;
      const steps = [
        `excess = max(0, ${before.excessMilli} − ⌊${r} × ${elapsed} / 1000⌋ + 1000) = ${excess} milli-requests`,
      ];
      if (out === 'reject')
        steps.push(
          `${excess} > burst × 1000 = ${burstMilli}: rejected; passes in ${ms(decision.retryAfterMs)}`,
        );
      else if (before.delay === null) steps.push('nodelay: passed at once');
      else if (out === 'delay')
        steps.push(
          `delay = ⌊(${excess} − ${before.delay * 1000}) × 1000 / ${r}⌋ = ${ms(decision.delayMs)}`,
        );
      else steps.push(`${excess} ≤ delay × 1000 = ${before.delay * 1000}: passed at once`);
      return {
        rule: `excess ${excess} ${excess > burstMilli ? '>' : '≤'} ${burstMilli} → ${out}`,
        steps,
      };
    }
    case 'gcra': {
      const T = before.emissionIntervalMs;
      const tau = before.toleranceMs;
      const base = Math.max(before.tatMs, before.nowMs);
      const next = base + T;
      return {
        rule: `now ${ms(before.nowMs)} ${out === 'reject' ? '<' : '≥'} new TAT − τ = ${ms(next - tau)} → ${out}`,
        steps: [
          `T = period / count = ${ms(T)}; τ = T × (max_burst + 1) = ${ms(tau)}`,
          `new TAT = max(TAT ${ms(before.tatMs)}, now) + T = ${ms(next)}`,
          out === 'reject'
            ? `TAT stays ${ms(before.tatMs)}; retry in ${ms(decision.retryAfterMs)}`
            : `TAT becomes ${ms(next)}`,
        ],
      };
    }
    case 'anchored-window': {
      const c = before.count;
      const start = before.windowStartMs;
      const fresh = start === null;
      return {
        rule: `count ${fresh ? 0 : c} ${(fresh ? 0 : c) < before.limit ? '<' : '≥'} limit ${before.limit} → ${out}`,
        steps: [
          fresh
            ? before.windowMs === 0
              ? `no record: this request opens one at ${ms(t)} whose points never expire`
              : `no live window: this request opens one, [${ms(t)}, ${ms(t + before.windowMs)})`
            : before.resetAtMs === null
              ? `the key's record, opened at ${ms(start)} by its first request, never expires`
              : `the key's window [${ms(start)}, ${ms(before.resetAtMs)})${before.blocked ? ' (blocked)' : ''} was opened by its first request`,
          out === 'reject' && decision.retryAfterMs === NEVER_MS
            ? 'the record never expires: no later time lets this request pass'
            : out === 'reject'
              ? `the window ends in ${ms(decision.retryAfterMs)}; this request is counted ${decision.retryAfterMs > 0 ? 'anyway if rejected requests count' : ''}`.trim()
              : out === 'delay'
                ? `counted; execEvenly holds it ${ms(decision.delayMs)}`
                : `count becomes ${c + 1}; ${decision.remaining} more fit in this window`,
        ],
      };
    }
    case 'calendar-windows': {
      const full = before.windows.filter((w) => w.count >= w.limit);
      // envoyproxy/ratelimit shadow_mode: OVER_LIMIT is computed, then reported as OK.
      const shadowed = before.shadowMode === true && full.length > 0;
      return {
        rule:
          full.length === 0
            ? `every window has room → ${out}`
            : `${full.map((w) => `${w.unit} ${w.count} ≥ ${w.limit}`).join(', ')} → ${shadowed ? 'OVER_LIMIT, shadow_mode → admit' : out}`,
        steps: [
          ...before.windows.map(
            (w) =>
              `${w.unit} [${ms(w.startMs)}, ${ms(w.endMs)}): ${w.count} of ${w.limit}${w.expiresAtMs < w.endMs ? ` (counter expires at ${ms(w.expiresAtMs)})` : ''}`,
          ),
          shadowed
            ? 'OVER_LIMIT in shadow mode: OK, 0 remaining; counted in every window'
            : out === 'reject'
              ? `${before.countRejected ? 'counted in every window anyway; ' : ''}passes in ${ms(decision.retryAfterMs)}`
              : `counted in every window; ${decision.remaining} more fit`,
        ],
      };
    }
  }
  const exhaustive: never = before;
  return exhaustive;
}
