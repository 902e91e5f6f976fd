import { quotaOf } from './quota';
import type { AlgorithmConfig, Decision } from './types';

/** What the client receives for one decision. */
export interface HttpResponse {
  status: number;
  statusText: string;
  /** e.g. "HTTP/1.1 429 Too Many Requests" */
  statusLine: string;
  /** Header fields in the order they are sent. */
  headers: ReadonlyArray<readonly [name: string, value: string]>;
}

export interface ResponseOptions {
  /** The policy name in RateLimit-Policy and RateLimit (an sf-string). Default: the config's kind. */
  policyName?: string;
}

const STATUS_TEXT: Readonly<Record<number, string>> = {
  200: 'OK',
  400: 'Bad Request',
  403: 'Forbidden',
  404: 'Not Found',
  408: 'Request Timeout',
  409: 'Conflict',
  410: 'Gone',
  418: "I'm a teapot",
  420: 'Enhance Your Calm',
  429: 'Too Many Requests',
  444: 'No Response',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

/** The reason phrase of a status code ('Error' for one not listed). */
export function statusText(status: number): string {
  return STATUS_TEXT[status] ?? 'Error';
}

/** The status of a rejected request: 429, or nginx's `limit_req_status` (default 503). */
export function rejectStatus(config: AlgorithmConfig): number {
  if (config.kind === 'leaky-bucket') return config.limitReqStatus ?? 503;
  // HAProxy's `deny` answers 403 without deny_status (2.6 src/http_act.c parse_http_deny).
  if (config.kind === 'sliding-window-counter' && config.anchor === 'entry') {
    return config.denyStatus ?? 403;
  }
  return 429;
}

/** Whole seconds, rounded up (RFC 9110 delay-seconds). */
export function toSeconds(ms: number): number {
  return Math.ceil(ms / 1000);
}

/** An sf-string (RFC 9651 §3.3.3): printable ASCII with `"` and `\` escaped. */
function sfString(value: string): string {
  const printable = value.replace(/[^\x20-\x7e]/g, '?');
  return `"${printable.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

/**
 * The HTTP response a client gets for `decision`: status (200, or 429 / nginx's 503 on reject),
 * `Retry-After` on reject (whole seconds, rounded up), `RateLimit-Policy` and `RateLimit` as in
 * draft-ietf-httpapi-ratelimit-headers (q = quota, w = window s; r = remaining, t = s until more
 * quota: the reset, or on a reject the Retry-After), and the legacy `X-RateLimit-Limit/-Remaining/
 * -Reset` (reset in seconds from now). A delayed request is answered 200 once its delay has passed.
 */
export function toHttpResponse(
  config: AlgorithmConfig,
  decision: Decision,
  options: ResponseOptions = {},
): HttpResponse {
  const status = decision.outcome === 'reject' ? rejectStatus(config) : 200;
  const statusText = STATUS_TEXT[status] ?? 'Error';
  const name = sfString(options.policyName ?? config.kind);
  const quota = quotaOf(config);
  const windowS = Math.max(1, toSeconds(quota.windowMs));
  const resetS = toSeconds(decision.resetMs);
  const retryS = toSeconds(decision.retryAfterMs);
  // The draft's t is the time "until additional quota is made available" (§4.1.2), and Retry-After
  // "SHOULD NOT reference a point in time earlier than" t (§6). On a reject the next unit of quota
  // comes when the request would pass (Retry-After), usually well before the key is fully idle.
  const availableS = decision.outcome === 'reject' ? retryS : resetS;
  const headers: Array<readonly [string, string]> = [];
  if (decision.outcome === 'reject') headers.push(['Retry-After', String(retryS)]);
  headers.push(
    ['RateLimit-Policy', `${name};q=${decision.limit};w=${windowS}`],
    ['RateLimit', `${name};r=${decision.remaining};t=${availableS}`],
    ['X-RateLimit-Limit', String(decision.limit)],
    ['X-RateLimit-Remaining', String(decision.remaining)],
    ['X-RateLimit-Reset', String(resetS)],
  );
  return { status, statusText, statusLine: `HTTP/1.1 ${status} ${statusText}`, headers };
}

/**
 * A system's rule for a request whose key is empty (the header, variable or field it keys by is
 * missing or blank): `'not-limited'` — let through and not counted; `'shared'` — counted, all such
 * requests under one key (the empty value); `'client'` — keyed by the client address instead;
 * `{ denied }` — answered with that status, not counted. Each system cites its source.
 */
export type EmptyKeyRule = 'not-limited' | 'shared' | 'client' | { denied: number };

/**
 * What a replay does with a request whose key is empty under `rule`: `'admit'` or `'reject'` it
 * without the limiter (not limited; denied), or null — give it to the limiter under one key
 * (shared; and the client-address fallback too, as a trace holds no address for such requests).
 */
export function emptyKeyOutcome(rule: EmptyKeyRule | undefined): 'admit' | 'reject' | null {
  if (rule === 'not-limited') return 'admit';
  if (typeof rule === 'object') return 'reject';
  return null;
}
