/**
 * What Traefik's RateLimit middleware sends for a decision (traefik.ts has the model).
 */
import { floorNs } from '../../core';
import type { AlgorithmConfig, Decision, Inspection } from '../../core';
import { TRAEFIK_SOURCES } from '../sources/traefik';
import { TRAEFIK_VERSION } from '../traefik';
import { goDelaysNs, goSeconds } from './goRate';
import { traefikRedisReplay } from './traefikRedis';
import { makeResponse, statusFor, wallClockMs } from '../response';
import type { SystemHeader, SystemResponse, SystemResponseOptions } from '../types';

/**
 * Go's time.Duration.String() of `ns` whole nanoseconds (src/time/time.go, Go 1.19): below 1 s in
 * the largest of ns, µs, ms with the fraction's trailing zeros cut ("83.333333ms", "1.5µs"), else
 * h, m and s with up to 9 fraction digits ("1m1.25s", "1h0m0s"); 0 is "0s".
 */
export function goDurationNs(ns: number): string {
  if (ns === 0) return '0s';
  const sign = ns < 0 ? '-' : '';
  const u = Math.abs(ns);
  const frac = (n: number, digits: number): string => {
    const f = String(n).padStart(digits, '0').replace(/0+$/, '');
    return f === '' ? '' : `.${f}`;
  };
  if (u < 1_000) return `${sign}${u}ns`;
  if (u < 1_000_000) return `${sign}${Math.floor(u / 1_000)}${frac(u % 1_000, 3)}µs`;
  if (u < 1_000_000_000) return `${sign}${Math.floor(u / 1_000_000)}${frac(u % 1_000_000, 6)}ms`;
  const totalS = Math.floor(u / 1_000_000_000);
  const h = Math.floor(totalS / 3600);
  const m = Math.floor((totalS % 3600) / 60);
  const s = `${totalS % 60}${frac(u % 1_000_000_000, 9)}s`;
  if (h > 0) return `${sign}${h}h${m}m${s}`;
  if (m > 0) return `${sign}${m}m${s}`;
  return `${sign}${s}`;
}

/**
 * The rejected reservation's delay in whole ns. With the key's request times (`history`, this
 * request last): x/time/rate's own float64 bucket replayed over them (goRate.ts), the delay Traefik
 * writes to the ns. Else from the key's state just before the request (`before`): the exact wait
 * (1 − tokens) / rate truncated to ns, which x/time/rate's float64 tokens can undershoot by 1 ns.
 * Without either (or for interval refill, whose waits are whole ms): Retry-After's ms plus the
 * maximum delay, exact when both are whole ms. With `sharedEpochMs` (the history met the store
 * every instance shares, at that Unix ms for scenario time 0), the wait Traefik's Redis limiter
 * script returns, read back as Traefik reads it (traefikRedis.ts).
 */
export function traefikDelayNs(
  config: AlgorithmConfig,
  decision: Decision,
  before?: Inspection,
  history?: readonly number[],
  historyConfig: AlgorithmConfig = config,
  sharedEpochMs?: number,
): number {
  if (config.kind !== 'token-bucket') return decision.retryAfterMs * 1_000_000;
  const maxNs = config.maxDelayNs ?? (config.maxDelayMs ?? 0) * 1_000_000;
  const continuous = config.refill !== 'interval';
  if (
    continuous &&
    history !== undefined &&
    history.length > 0 &&
    historyConfig.kind === 'token-bucket'
  ) {
    // rate_limiter.go (traefik v3.7.9): rtl = float64(average·int64(time.Second)) / float64(period),
    // average and period being the config's tokensPerFill per fillIntervalMs; burst = maxTokens.
    // The bucket is the one the history met (a fleet replica's may hold a divided limit).
    const b = historyConfig;
    if (sharedEpochMs !== undefined) {
      const steps = traefikRedisReplay(b, history, sharedEpochMs);
      return (steps[steps.length - 1] as { delayNs: number }).delayNs;
    }
    const limit = (b.tokensPerFill * 1e9) / (b.fillIntervalMs * 1e6);
    const bMaxNs = b.maxDelayNs ?? (b.maxDelayMs ?? 0) * 1_000_000;
    const delays = goDelaysNs(limit, b.maxTokens, bMaxNs, history, b.idleResetS ?? 0);
    return delays[delays.length - 1] as number;
  }
  if (before?.kind === 'token-bucket' && before.refill === 'continuous') {
    // Continuous refill keeps tokens in units of 1/fillIntervalMs (token-bucket.ts): whole numbers.
    const unit = config.fillIntervalMs;
    const level = Math.round(before.tokens * unit);
    return floorNs(unit - level, config.tokensPerFill);
  }
  return decision.retryAfterMs * 1_000_000 + maxNs;
}

/** The body of Traefik's answer when its Redis call fails: http.Error's message and newline. */
export const TRAEFIK_STORE_DOWN_BODY = 'Could not insert/update bucket\n';

/**
 * What Traefik sends when its Redis limiter cannot run its script (the store is down or the call
 * timed out): redis_limiter.go returns the error, and rate_limiter.go's ServeHTTP (traefik v3.7.9)
 * answers `http.Error(rw, "Could not insert/update bucket", http.StatusInternalServerError)`. Go's
 * net/http Error (server.go, Go 1.22 and later; traefik v3.7.9 builds with Go 1.26) sets
 * Content-Type and X-Content-Type-Options and writes the message with a newline. No Retry-After, no
 * X-Retry-In: there is no delay, and Traefik has no fail-open setting for this.
 */
export function traefikStoreDownResponse(): SystemResponse {
  return makeResponse(
    500,
    [
      { name: 'Content-Type', value: 'text/plain; charset=utf-8' },
      { name: 'X-Content-Type-Options', value: 'nosniff' },
    ],
    [
      {
        file: 'pkg/middlewares/ratelimiter/rate_limiter.go',
        version: TRAEFIK_VERSION,
        what: 'ServeHTTP: an error from the limiter is answered with http.Error, 500, "Could not insert/update bucket"',
      },
      {
        file: 'pkg/middlewares/ratelimiter/redis_limiter.go',
        version: TRAEFIK_VERSION,
        what: 'a failed script run is returned as an error ("running script")',
      },
      {
        file: 'src/net/http/server.go',
        version: 'Go 1.26 (traefik v3.7.9 go.mod)',
        what: 'Error: Content-Type text/plain; charset=utf-8, X-Content-Type-Options nosniff, the message and a newline',
      },
    ],
  );
}

/** What traefik sends for `decision` (SystemModel.response). */
export function traefikResponse(
  config: AlgorithmConfig,
  decision: Decision,
  options: SystemResponseOptions = {},
): SystemResponse {
  const own: SystemHeader[] = [];
  if (decision.outcome === 'reject') {
    // serveDelayError (rate_limiter.go, traefik v3.7.9): Retry-After is
    // fmt.Sprintf("%.0f", math.Ceil(delay.Seconds())), X-Retry-In is delay.String().
    const delayNs = traefikDelayNs(
      config,
      decision,
      options.before,
      options.keyHistoryMs,
      options.keyHistoryConfig,
      options.keyHistoryShared === true ? wallClockMs({ ...options, nowMs: 0 }) : undefined,
    );
    own.push(
      { name: 'Retry-After', value: String(Math.ceil(goSeconds(delayNs))) },
      { name: 'X-Retry-In', value: goDurationNs(delayNs) },
      { name: 'Content-Type', value: 'text/plain; charset=utf-8' },
    );
  }
  // The limiter's "add standard rate-limit headers" adds nothing here: rate_limiter.go (v3.7.9)
  // writes no header on a request it lets through and only Retry-After and X-Retry-In on its 429
  // (serveDelayError), and a headers middleware's customResponseHeaders are constants that cannot
  // carry a bucket's remaining or reset; the Traefik export writes none, so the page shows only
  // what the exported middleware sends.
  return makeResponse(statusFor(decision, 429), own, TRAEFIK_SOURCES);
}
