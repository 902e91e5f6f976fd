/** Building blocks of a system's response: the status line, its own headers, the added ones. */
import { civilFromDays, floorDiv, statusText, toHttpResponse } from '../core';
import type { AlgorithmConfig, Decision } from '../core';
import type { SourceRef, SystemHeader, SystemResponse, SystemResponseOptions } from './types';

/** A response with `status` and `fields`, in the order given. */
export function makeResponse(
  status: number,
  fields: readonly SystemHeader[],
  sources: readonly SourceRef[],
): SystemResponse {
  const text = statusText(status);
  return {
    status,
    statusText: text,
    statusLine: `HTTP/1.1 ${status} ${text}`,
    headers: fields.map((f) => [f.name, f.value] as const),
    fields,
    sources,
  };
}

/** The status of this decision: 200 for admit and delay (answered once the wait is over). */
export function statusFor(decision: Decision, rejectStatus: number): number {
  return decision.outcome === 'reject' ? rejectStatus : 200;
}

/**
 * The standard headers an application computes for each request (`Retry-After` on reject, IETF
 * `RateLimit-Policy` / `RateLimit`, legacy `X-RateLimit-*`), marked as added. From the core's
 * `toHttpResponse` (src/core/response.ts states each header's rule).
 */
export function standardFields(
  config: AlgorithmConfig,
  decision: Decision,
  options: SystemResponseOptions,
): SystemHeader[] {
  const policy = options.policyName === undefined ? {} : { policyName: options.policyName };
  return toHttpResponse(config, decision, policy).headers.map(([name, value]) => ({
    name,
    value,
    added: true,
  }));
}

/**
 * Headers every HTTP reply carries whatever the limiter decided (who sent it, when, the body's
 * type and length, the connection): not rate-limit information. Case-insensitive.
 */
const GENERIC = new Set([
  'server',
  'date',
  'content-type',
  'content-length',
  'connection',
  'cache-control',
]);

/** Whether a header is one of those generic ones rather than something the limiter says. */
export function isGenericHeader(name: string): boolean {
  return GENERIC.has(name.toLowerCase());
}

/** `own` followed by each of `added` whose name (case-insensitive) `own` does not already send. */
export function withAdded(
  own: readonly SystemHeader[],
  added: readonly SystemHeader[],
): SystemHeader[] {
  const names = new Set(own.map((f) => f.name.toLowerCase()));
  return [...own, ...added.filter((f) => !names.has(f.name.toLowerCase()))];
}

/**
 * The wall-clock instant (ms since the Unix epoch) of a scenario's time 0, unless a response is
 * given another (`SystemResponseOptions.epochMs`): 2026-01-01T00:00:00Z. Headers that carry a
 * wall-clock time (`Date`, absolute reset times) are written at this instant plus the decision's
 * time, not in 1970. 2026 starts on a Thursday and has 365 days, as 1970 does, so the weekday and
 * every calendar period of a scenario fall on the same days either way.
 */
export const SCENARIO_EPOCH_MS = 1_767_225_600_000;

/** The wall-clock time (ms since the Unix epoch) of a decision made at `options.nowMs`. */
export function wallClockMs(options: SystemResponseOptions): number {
  return (options.epochMs ?? SCENARIO_EPOCH_MS) + (options.nowMs ?? 0);
}

const DAYS = ['Thu', 'Fri', 'Sat', 'Sun', 'Mon', 'Tue', 'Wed'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const two = (n: number): string => String(n).padStart(2, '0');

/**
 * An IMF-fixdate (RFC 9110 §5.6.7), as Date.prototype.toUTCString and nginx's `Date` header
 * (ngx_http_time) write it, from ms since the epoch without reading a clock ("Thu, 01 Jan 1970
 * 00:00:00 GMT"; 1970-01-01 was a Thursday).
 */
export function httpDate(ms: number): string {
  const days = floorDiv(ms, 86_400_000);
  const [y, m, d] = civilFromDays(days);
  const sec = floorDiv(ms - days * 86_400_000, 1000);
  const dow = DAYS[((days % 7) + 7) % 7] as string;
  const year = y < 0 ? `-${String(-y).padStart(6, '0')}` : String(y).padStart(4, '0');
  return `${dow}, ${two(d)} ${MONTHS[m - 1] as string} ${year} ${two(Math.floor(sec / 3600))}:${two(Math.floor(sec / 60) % 60)}:${two(sec % 60)} GMT`;
}
