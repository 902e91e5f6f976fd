/** Building blocks of a system's response: the status line, its own headers, the added ones. */
import { statusText, toHttpResponse } from '../core';
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

/** `own` followed by each of `added` whose name (case-insensitive) `own` does not already send. */
export function withAdded(
  own: readonly SystemHeader[],
  added: readonly SystemHeader[],
): SystemHeader[] {
  const names = new Set(own.map((f) => f.name.toLowerCase()));
  return [...own, ...added.filter((f) => !names.has(f.name.toLowerCase()))];
}
