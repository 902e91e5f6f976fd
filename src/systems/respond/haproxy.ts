/**
 * What HAProxy 2.6 sends for a decision (haproxy.ts has the model): its built-in error replies.
 */
import type { AlgorithmConfig, Decision } from '../../core';
import { rejectStatus } from '../../core';
import { HAPROXY_SOURCES } from '../sources/haproxy';
import { makeResponse } from '../response';
import type { SystemHeader, SystemResponse, SystemResponseOptions } from '../types';

const BUILT_IN: Readonly<Record<number, { reason: string; length: number; close?: true }>> = {
  400: { reason: 'Bad request', length: 90, close: true },
  401: { reason: 'Unauthorized', length: 112 },
  403: { reason: 'Forbidden', length: 93 },
  404: { reason: 'Not Found', length: 83 },
  405: { reason: 'Method Not Allowed', length: 146 },
  407: { reason: 'Unauthorized', length: 112 },
  408: { reason: 'Request Time-out', length: 110, close: true },
  410: { reason: 'Gone', length: 114 },
  413: { reason: 'Payload Too Large', length: 106 },
  421: { reason: 'Misdirected Request', length: 104 },
  422: { reason: 'Unprocessable Content', length: 116 },
  425: { reason: 'Too Early', length: 80 },
  429: { reason: 'Too Many Requests', length: 117 },
  500: { reason: 'Internal Server Error', length: 97 },
  501: { reason: 'Not Implemented', length: 136 },
  502: { reason: 'Bad Gateway', length: 107 },
  503: { reason: 'Service Unavailable', length: 107 },
  504: { reason: 'Gateway Time-out', length: 92 },
};

/**
 * The headers of HAProxy's built-in reply for `status`, in the order it sends them, names in lower
 * case as its H1 multiplexer writes them. Undefined for a status without a built-in reply.
 */
export function haproxyDenyHeaders(status: number): SystemHeader[] | undefined {
  const m = BUILT_IN[status];
  if (m === undefined) return undefined;
  // 400 and 408 say "Connection: close" in their message; the H1 multiplexer writes the
  // connection header itself from the connection's mode, after the others (src/mux_h1.c, 2.6).
  // The others keep a keep-alive connection open (a client sending "Connection: close" is answered
  // with "connection: close": HTTP/1.1's own, not the limiter's).
  return [
    { name: 'content-length', value: String(m.length) },
    { name: 'cache-control', value: 'no-cache' },
    { name: 'content-type', value: 'text/html' },
    ...(m.close === true ? [{ name: 'connection', value: 'close' }] : []),
  ];
}

/** The status line HAProxy sends for a denied request (its own reason phrases). */
export function haproxyStatusLine(status: number): string {
  return `HTTP/1.1 ${status} ${BUILT_IN[status]?.reason ?? ''}`.trimEnd();
}

/**
 * What HAProxy sends for `decision`: its built-in error reply on a deny, nothing of its own else.
 * The limiter's "add standard rate-limit headers" adds nothing here: the HAProxy export does not
 * write them: HAProxy 2.6's sample fetches give a tracked counter's rate (sc_http_req_rate) but
 * not where its period is (configuration.txt 7.3.3 lists no such fetch), so the reset the
 * standard headers carry cannot be written; the page shows only what the exported config sends.
 */
export function haproxyResponse(
  config: AlgorithmConfig,
  decision: Decision,
  _options: SystemResponseOptions = {},
): SystemResponse {
  const status = decision.outcome === 'reject' ? rejectStatus(config) : 200;
  const fields = decision.outcome === 'reject' ? (haproxyDenyHeaders(status) ?? []) : [];
  const base = makeResponse(status, fields, HAPROXY_SOURCES);
  if (decision.outcome !== 'reject') return base;
  const statusLine = haproxyStatusLine(status);
  return { ...base, statusLine, statusText: BUILT_IN[status]?.reason ?? base.statusText };
}
