/**
 * What each engine computes exactly, algorithm by algorithm, and why: shown in the page and the
 * README. "Exact" means every decision equals the page's (core's) for every log; where that cannot
 * be promised the generator refuses with a message instead of writing an approximation.
 */
import type { Engine } from './types';
import { ENGINES } from './types';

export interface ExactRow {
  /** The algorithm (or variant) as the page names it. */
  algorithm: string;
  /** Per engine: the method, or null when refused. */
  engines: Record<Engine, string | null>;
  /** Why, in a sentence. */
  why: string;
}

const FOLD: Record<Engine, string> = {
  duckdb: 'fold (list_reduce)',
  postgres: 'aggregate (PL/pgSQL step)',
  trino: 'fold (reduce)',
  bigquery: 'JavaScript UDF',
  spark: 'fold (aggregate)',
  clickhouse: 'fold (arrayFold)',
};

const all = (m: string | null | ((e: Engine) => string)): Record<Engine, string | null> =>
  Object.fromEntries(ENGINES.map((e) => [e, typeof m === 'function' ? m(e) : m])) as Record<
    Engine,
    string | null
  >;

export const EXACTNESS: readonly ExactRow[] = [
  {
    algorithm: 'fixed window',
    engines: all('window functions'),
    why: 'Rejected requests are not counted, so the n-th request of a key in a window is admitted iff n ≤ limit: a ROW_NUMBER per key and window.',
  },
  {
    algorithm: 'sliding log (every request logged)',
    engines: all('window functions'),
    why: 'With every request logged, the entries counting at t are the key\u2019s earlier requests less those at or before t − window: a ROW_NUMBER and a COUNT over a RANGE frame.',
  },
  {
    algorithm: 'sliding log (admitted requests only)',
    engines: all(null),
    why: 'Each decision depends on the times of up to `limit` earlier admitted requests: no window function computes it and no fixed-size state carries it. Refused; the page\u2019s dry run decides it.',
  },
  {
    algorithm: 'sliding-window counter (Cloudflare, HAProxy)',
    engines: all((e) => FOLD[e]),
    why: 'The previous window\u2019s count depends on earlier decisions (Cloudflare) or on a period anchored per key (HAProxy): a fold per key over its requests in order, in whole numbers.',
  },
  {
    algorithm: 'token bucket (Envoy, x/time/rate wait, Traefik idle reset)',
    engines: all((e) => FOLD[e]),
    why: 'Level scaled by fill_interval, so refill is whole numbers; a fold per key carries level, last time and touch time.',
  },
  {
    algorithm: 'nginx limit_req',
    engines: all((e) => `${FOLD[e]}, when (burst + 1)·1000 ≤ 60·rate`),
    why: 'Excess in milli-requests as nginx keeps it. nginx also deletes idle keys when a new key arrives (ngx_http_limit_req_expire); that can change a decision only when (burst + 1)·1000 > 60·rate (milli-requests/s), and then it depends on every key\u2019s order in the zone, which a per-key query cannot follow: such configs are refused.',
  },
  {
    algorithm: 'GCRA (redis-cell)',
    engines: all((e) => FOLD[e]),
    why: 'Theoretical arrival time in units of 1/count ms, so the emission interval is whole; a fold per key.',
  },
  {
    algorithm: 'anchored window (express-rate-limit, rate-limiter-flexible)',
    engines: all((e) => FOLD[e]),
    why: 'Each key\u2019s window starts at its first request after the last one ended (and a block may move it): a fold per key.',
  },
  {
    algorithm: 'calendar windows (Kong, envoyproxy/ratelimit)',
    engines: all((e) => FOLD[e]),
    why: 'UTC months and years from whole-number date arithmetic (no time-zone functions); a request counts in every window only when all have room, so a fold per key.',
  },
];
