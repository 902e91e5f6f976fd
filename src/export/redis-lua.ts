/**
 * config -> one atomic Redis Lua script that decides exactly as the playground's core does.
 *
 * Calling convention, the same for all six algorithms: `EVAL script 1 <key> [nowMs]` (or EVALSHA
 * after SCRIPT LOAD) returns `{outcome, delayMs, retryAfterMs, remaining, resetMs}` with outcome
 * 0 = admit, 1 = delay, 2 = reject. `nowMs` omitted means Redis's own clock (TIME, in ms). The key
 * expires (PEXPIRE) when the limiter is idle again, so idle clients cost no memory.
 */
import type { AlgorithmConfig } from '../core';
import { assertAlgorithmConfig, calendarUnits, nginxRateMilli } from '../core';
import { anchoredWindowBody } from './lua/anchored-window';
import { calendarWindowsBody } from './lua/calendar-windows';
import { fixedWindowBody } from './lua/fixed-window';
import { gcraBody } from './lua/gcra';
import { leakyBucketBody } from './lua/leaky-bucket';
import type { LuaOptions } from './lua/prelude';
import { prelude } from './lua/prelude';
import { slidingLogBody } from './lua/sliding-log';
import { slidingWindowCounterBody } from './lua/sliding-window-counter';
import { tokenBucketBody } from './lua/token-bucket';
import type { ExportResult } from './types';

export type RedisOptions = LuaOptions;

/** The Redis export: `script` is also `text`. */
export interface RedisExport extends ExportResult {
  target: 'redis';
  language: 'lua';
  script: string;
}

/** Outcome codes in the script's reply. */
export const REDIS_OUTCOME = { admit: 0, delay: 1, reject: 2 } as const;

function title(c: AlgorithmConfig): string {
  switch (c.kind) {
    case 'fixed-window':
      return `fixed window, limit=${c.limit} per windowMs=${c.windowMs}`;
    case 'sliding-log':
      return `sliding log, limit=${c.limit} per windowMs=${c.windowMs}${c.logRejected === true ? ', rejected requests logged too' : ''}`;
    case 'sliding-window-counter':
      return `sliding-window counter, limit=${c.limit} per windowMs=${c.windowMs}`;
    case 'token-bucket':
      return `token bucket, max_tokens=${c.maxTokens} tokens_per_fill=${c.tokensPerFill} fill_interval=${c.fillIntervalMs}ms (${c.refill ?? 'continuous'} refill)${(c.maxDelayMs ?? 0) > 0 ? `, waits up to ${c.maxDelayMs}ms` : ''}`;
    case 'leaky-bucket':
      return `nginx limit_req, rate=${c.rate}${c.rateUnit} burst=${c.burst} ${c.delay === 'nodelay' ? 'nodelay' : `delay=${c.delay}`}`;
    case 'gcra':
      return `GCRA (redis-cell), burst=${c.burst} count=${c.count} periodMs=${c.periodMs}`;
    case 'anchored-window':
      return `anchored window, limit=${c.limit} per windowMs=${c.windowMs} from each key's first request${c.countRejected === true ? ', rejected requests counted' : ''}${(c.blockMs ?? 0) > 0 ? `, blockMs=${c.blockMs}` : ''}${c.execEvenly === true ? `, execEvenly (min delay ${c.execEvenlyMinDelayMs ?? 0}ms)` : ''}`;
    case 'calendar-windows':
      return `calendar windows (${calendarUnits(c)
        .map((u) => `${u.limit}/${u.unit}`)
        .join(
          ', ',
        )}), align=${c.align ?? 'calendar'}${c.countRejected === true ? ', rejected requests counted' : ''}${c.counterTtl === true ? ', Kong counter TTL' : ''}${c.shadowMode === true ? ', shadow_mode (over-limit requests pass, remaining 0)' : ''}`;
  }
}

function body(c: AlgorithmConfig): string {
  switch (c.kind) {
    case 'fixed-window':
      return fixedWindowBody(c);
    case 'sliding-log':
      return slidingLogBody(c);
    case 'sliding-window-counter':
      return slidingWindowCounterBody(c);
    case 'token-bucket':
      return tokenBucketBody(c);
    case 'leaky-bucket':
      return leakyBucketBody(c);
    case 'gcra':
      return gcraBody(c);
    case 'anchored-window':
      return anchoredWindowBody(c);
    case 'calendar-windows':
      return calendarWindowsBody(c);
  }
}

function kindDifferences(c: AlgorithmConfig): string[] {
  if (c.kind === 'sliding-window-counter' && c.anchor === 'entry') {
    // Not yet a Lua port of HAProxy's per-entry counter: say so rather than pretend.
    return [
      "This script is Cloudflare's sliding-window counter with windows aligned to the clock. It does not follow HAProxy's per-client periods, does not count denied requests and has no expire: its decisions differ from the HAProxy limiter shown. Use the HAProxy tab's haproxy.cfg lines.",
    ];
  }
  switch (c.kind) {
    case 'leaky-bucket': {
      const out = [
        "nginx's zone forgets a key idle for 60 s once its excess has drained (when new keys arrive) and evicts the least recently used keys when the zone is full; Redis keeps the key until it is fully idle. A key nginx would have forgotten but whose excess is not quite gone then counts up to one request more here.",
        'nginx holds a delayed request itself; with Redis the caller must wait delayMs before passing it on.',
      ];
      if (nginxRateMilli(c.rate, c.rateUnit) * 60 < (c.burst + 1) * 1000) {
        out.push(
          `At this rate a full bucket takes longer than 60 s to drain, so the zone-expiry difference above can change decisions, not just remaining.`,
        );
      }
      return out;
    }
    case 'token-bucket':
      return (c.maxDelayMs ?? 0) > 0
        ? [
            'The script reserves the token; the caller must wait delayMs before passing the request on.',
          ]
        : [];
    case 'sliding-log':
      return c.logRejected === true
        ? [
            'Rejected requests are logged too: the list grows with offered load, one entry per request in the window.',
          ]
        : [];
    default:
      return [];
  }
}

/**
 * One atomic Lua script for `config` (any of the six kinds). Throws a RangeError on an invalid
 * config, as createLimiter does.
 */
export function toRedisLua(config: AlgorithmConfig, options: RedisOptions = {}): RedisExport {
  const c = assertAlgorithmConfig(config);
  const script = `${prelude(title(c), options)}${body(c)}`;
  return {
    ok: true,
    target: 'redis',
    language: 'lua',
    text: script,
    script,
    assumes:
      'Redis ≥ 5 (EVAL/EVALSHA; TIME before writes relies on effects replication, the default since 5.0); checked with Redis 7.0',
    differences: [
      "Keys expire by Redis's clock. With nowMs from your servers, keep their clocks close to Redis's: a key may otherwise expire early (a fresh key) or late (harmless). The expirySlackMs option adds a margin.",
      ...kindDifferences(c),
    ],
    notes: [
      'Call it as EVALSHA after SCRIPT LOAD; one key per call, so it works in Redis Cluster.',
      'Pass the same nowMs clock from every app server (or omit it to use Redis TIME) so that all instances share one timeline.',
    ],
  };
}
