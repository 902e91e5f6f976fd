/**
 * The response of a limiter that lives in the application (redis-cell, the Redis patterns): the
 * application picks the status and headers. What most applications send — 429 and, when they add
 * headers, the standard set — is labelled as the application's choice.
 */
import type { AlgorithmConfig, Decision } from '../../core';
import { makeResponse, standardFields, statusFor } from '../response';
import type { SourceRef, SystemResponse, SystemResponseOptions } from '../types';

/** 429 on reject (RFC 6585 §4), and the standard headers when the user adds them. */
export function appResponse(
  config: AlgorithmConfig,
  decision: Decision,
  options: SystemResponseOptions,
  sources: readonly SourceRef[],
): SystemResponse {
  const fields = options.standardHeaders === true ? standardFields(config, decision, options) : [];
  return makeResponse(statusFor(decision, 429), fields, sources);
}
