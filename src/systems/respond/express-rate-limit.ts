/**
 * What express-rate-limit sends for a decision (express-rate-limit.ts has the model).
 */
import type { AlgorithmConfig, Decision } from '../../core';
import { EXPRESS_RATE_LIMIT_DEFAULTS } from '../express-rate-limit';
import { EXPRESS_RATE_LIMIT_SOURCES } from '../sources/express-rate-limit';
import type { ExpressRateLimitOptions } from '../express-rate-limit';
import { httpDate, makeResponse, wallClockMs } from '../response';
import type { SystemHeader, SystemResponse, SystemResponseOptions } from '../types';

const sent = (name: string, value: string | number): SystemHeader => ({
  name,
  value: String(value),
});

/** The draft-8 policy name: source/rate-limit.ts `identifier` default, `${limit}-in-${duration}`. */
export function expressIdentifier(limit: number, windowMs: number): string {
  const seconds = windowMs / 1e3;
  const minutes = windowMs / (1e3 * 60);
  const hours = windowMs / (1e3 * 60 * 60);
  const days = windowMs / (1e3 * 60 * 60 * 24);
  let duration: string;
  if (seconds < 60) duration = `${seconds}sec`;
  else if (minutes < 60) duration = `${minutes}min`;
  else if (hours < 24) duration = `${hours}hr${hours > 1 ? 's' : ''}`;
  else duration = `${days}day${days > 1 ? 's' : ''}`;
  return `${limit}-in-${duration}`;
}

/**
 * SHA-256 for the draft-8 partition key, a chunk of its own: the page never asks for draft-8
 * headers (the inspector shows draft-6 when standard headers are added), and @noble/hashes cost
 * about 2 kB gzip of the first load (initial JavaScript ≤ 160 kB).
 */
let sha256: ((bytes: Uint8Array) => Uint8Array) | null = null;
let sha256Fetch: Promise<void> | null = null;

/** Fetches SHA-256 (once): `expressPartitionKey` and draft-8 responses work once it resolves. */
export function loadExpressHash(): Promise<void> {
  sha256Fetch ??= import('@noble/hashes/sha2.js').then((m) => {
    sha256 = m.sha256;
  });
  return sha256Fetch;
}

/**
 * source/headers.ts getPartitionKey: base64 of the first 12 hex digits of sha256(key). Throws
 * (naming what to do) until `loadExpressHash()` has resolved.
 */
export function expressPartitionKey(key: string): string {
  if (sha256 === null) {
    void loadExpressHash();
    throw new Error(
      'express-rate-limit draft-8 headers need SHA-256 for the partition key (pk), which is still loading: await loadExpressHash() first',
    );
  }
  const digest = sha256(new TextEncoder().encode(key));
  const hex = Array.from(digest.slice(0, 6), (b) => b.toString(16).padStart(2, '0')).join('');
  return btoa(hex);
}

/**
 * The headers and status express-rate-limit sends for `decision`, made at `nowMs` (ms since the
 * epoch: X-RateLimit-Reset and Date are absolute) for `key`. The order is the order of its
 * `setHeader` calls (source/rate-limit.ts): legacy, then standard, then Retry-After on a reject.
 */
export function expressRateLimitResponse(
  o: ExpressRateLimitOptions,
  decision: Decision,
  nowMs: number,
  key: string,
): SystemResponse {
  const fields: SystemHeader[] = [];
  const limit = o.limit;
  const remaining = decision.remaining;
  const resetAtMs = nowMs + decision.resetMs;
  // getResetSeconds: max(0, ⌈(resetTime − now) / 1000⌉).
  const resetSeconds = Math.max(0, Math.ceil(decision.resetMs / 1e3));
  const windowSeconds = Math.ceil(o.windowMs / 1e3);
  if (o.legacyHeaders) {
    fields.push(
      sent('X-RateLimit-Limit', limit),
      sent('X-RateLimit-Remaining', remaining),
      sent('Date', httpDate(nowMs)),
      sent('X-RateLimit-Reset', Math.ceil(resetAtMs / 1e3)),
    );
  }
  if (o.standardHeaders === 'draft-6') {
    fields.push(
      sent('RateLimit-Policy', `${limit};w=${windowSeconds}`),
      sent('RateLimit-Limit', limit),
      sent('RateLimit-Remaining', remaining),
      sent('RateLimit-Reset', resetSeconds),
    );
  } else if (o.standardHeaders === 'draft-7') {
    fields.push(
      sent('RateLimit-Policy', `${limit};w=${windowSeconds}`),
      sent('RateLimit', `limit=${limit}, remaining=${remaining}, reset=${resetSeconds}`),
    );
  } else if (o.standardHeaders === 'draft-8') {
    const name = expressIdentifier(limit, o.windowMs);
    fields.push(
      sent('RateLimit', `"${name}"; r=${remaining}; t=${resetSeconds}`),
      sent(
        'RateLimit-Policy',
        `"${name}"; q=${limit}; w=${windowSeconds}; pk=:${expressPartitionKey(key)}:`,
      ),
    );
  }
  const rejected = decision.outcome === 'reject';
  if (rejected && (o.legacyHeaders || o.standardHeaders !== false)) {
    fields.push(sent('Retry-After', resetSeconds));
  }
  return makeResponse(rejected ? o.statusCode : 200, fields, EXPRESS_RATE_LIMIT_SOURCES);
}

/** express-rate-limit's own options beyond the algorithm's (the playground uses the defaults). */
export interface ExpressResponseOptions extends SystemResponseOptions {
  express?: Partial<ExpressRateLimitOptions>;
}

/** What expressRateLimit sends for `decision` (SystemModel.response). */
export function expressRateLimitSystemResponse(
  config: AlgorithmConfig,
  decision: Decision,
  options: ExpressResponseOptions = {},
): SystemResponse {
  const base =
    config.kind === 'anchored-window' ? { windowMs: config.windowMs, limit: config.limit } : {};
  const std = options.standardHeaders === true ? { standardHeaders: 'draft-6' as const } : {};
  const o = { ...EXPRESS_RATE_LIMIT_DEFAULTS, ...base, ...std, ...options.express };
  // Date and X-RateLimit-Reset are wall-clock times: the scenario's, not 1970's.
  return expressRateLimitResponse(o, decision, wallClockMs(options), options.key ?? 'default');
}
