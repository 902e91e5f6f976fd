/**
 * HAProxy 2.6 stick-table rate limiting (Debian's 2.6.12 package), on the sliding-window counter
 * anchored per entry (src/core/algorithms/entry-counter.ts states each rule of the counter):
 *
 *   stick-table type ip size 100k expire <expire> store http_req_rate(<period>)
 *   http-request track-sc0 src
 *   http-request deny deny_status <status> if { sc_http_req_rate(0) gt <limit> }
 *
 * - The request is counted by track-sc0 before the deny rule reads the rate (HAProxy 2.6
 *   src/http_act.c http_action_track_sc → update_freq_ctr_period), so denied requests count.
 * - The rate is read_freq_ctr_period (src/freq_ctr.c freq_ctr_total, 2.6): curr + ⌊prev·remain /
 *   period⌋, with the period anchored at the entry's first request (include/haproxy/freq_ctr.h).
 * - `expire`: an entry untouched that long is freed (src/stick_table.c stktable_touch_local,
 *   process_table_expire, 2.6).
 * - The reply is HAProxy's built-in error message for the status (src/http.c http_err_msgs, 2.6,
 *   turned into a reply by src/http_htx.c http_parse_http_reply with "default-errorfiles"); `deny`
 *   without deny_status answers 403 (src/http_act.c parse_http_deny). The H1 multiplexer writes header
 *   names in lower case (src/mux_h1.c, unless h1-case-adjust is configured).
 */
import type { AlgorithmConfig, Decision } from '../core';
import { HAPROXY_DENY_STATUSES, rejectStatus } from '../core';
import { makeResponse, standardFields, withAdded } from './response';
import type {
  SourceRef,
  SystemHeader,
  SystemInfo,
  SystemResponse,
  SystemResponseOptions,
} from './types';

export const HAPROXY_VERSION = 'HAProxy 2.6.12 (Debian 2.6.12-1+deb12u4)';
const V = 'HAProxy 2.6';

export const HAPROXY_SOURCES: readonly SourceRef[] = [
  {
    file: 'include/haproxy/freq_ctr.h',
    version: V,
    what: 'update_freq_ctr_period: add to curr within the period, else rotate (prev ← curr, tick += period, or tick ← now after two periods); the tick’s low bit is a lock and is cleared',
  },
  {
    file: 'src/freq_ctr.c',
    version: V,
    what: 'freq_ctr_total / read_freq_ctr_period: rate = ⌊(prev·(tick + period − now) + curr·period) / period⌋',
  },
  {
    file: 'src/http_act.c',
    version: V,
    what: 'http_action_track_sc counts the request (http_req_rate) when tracking starts, before later rules; parse_http_deny: default status 403, deny_status N',
  },
  {
    file: 'src/stick_table.c',
    version: V,
    what: 'new entries are zeroed (__stksess_init); every touch sets expire = now + expire; process_table_expire frees expired entries; sc_http_req_rate reads the tracked entry',
  },
  {
    file: 'src/http.c',
    version: V,
    what: 'http_err_msgs: the built-in reply for each status (status line, content-length, cache-control: no-cache, content-type: text/html)',
  },
  {
    file: 'src/mux_h1.c',
    version: V,
    what: 'header names written in lower case; the connection header written last, from the connection mode (checked against 2.6.12)',
  },
  {
    file: 'src/http_htx.c',
    version: V,
    what: 'http_parse_http_reply: statuses without a built-in message are refused with default-errorfiles',
  },
];

/** HAProxy 2.6's built-in error replies (src/http.c http_err_msgs): reason and body length. */
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

/** What HAProxy sends for `decision`: its built-in error reply on a deny, nothing of its own else. */
export function haproxyResponse(
  config: AlgorithmConfig,
  decision: Decision,
  options: SystemResponseOptions = {},
): SystemResponse {
  const status = decision.outcome === 'reject' ? rejectStatus(config) : 200;
  const own = decision.outcome === 'reject' ? (haproxyDenyHeaders(status) ?? []) : [];
  const fields =
    options.standardHeaders === true
      ? withAdded(own, standardFields(config, decision, options))
      : own;
  const base = makeResponse(status, fields, HAPROXY_SOURCES);
  if (decision.outcome !== 'reject') return base;
  const statusLine = haproxyStatusLine(status);
  return { ...base, statusLine, statusText: BUILT_IN[status]?.reason ?? base.statusText };
}

export const haproxy: SystemInfo = {
  id: 'haproxy',
  name: 'HAProxy stick-table',
  version: HAPROXY_VERSION,
  group: 'Proxies and gateways',
  kind: 'sliding-window-counter',
  algorithms: ['sliding-window-counter'],
  urlName: 'haproxy',
  summary:
    "Counts every request (denied ones too) in a per-client counter whose period starts at the client's first request; denies when this period's count plus the previous period's, weighted by what is left of this one, is above the limit.",
  sources: HAPROXY_SOURCES,
  params: [
    {
      key: 'gt',
      field: 'limit',
      help: 'deny if { sc_http_req_rate(0) gt N }: N requests per period pass, the next is denied.',
      input: 'int',
    },
    {
      key: 'http_req_rate',
      field: 'windowMs',
      unit: 'ms',
      url: 'duration',
      help: 'The period of store http_req_rate(<period>), starting at each client’s first request.',
      input: 'int',
    },
    {
      key: 'expire',
      field: 'expireMs',
      unit: 'ms',
      url: 'duration',
      help: 'The stick-table’s expire: a client idle this long is forgotten (empty: never).',
      input: 'int',
      optional: { placeholder: 'never' },
    },
    {
      key: 'deny_status',
      field: 'denyStatus',
      help: `Status of a denied request (HAProxy default 403): ${HAPROXY_DENY_STATUSES.join(', ')}.`,
      input: 'int',
      optional: { placeholder: '403' },
    },
  ],
  defaultConfig: {
    kind: 'sliding-window-counter',
    limit: 10,
    windowMs: 10_000,
    anchor: 'entry',
    expireMs: 30_000,
    // No deny_status: HAProxy's own default, 403 (src/http_act.c parse_http_deny, 2.6).
  },
  fixedFields: { anchor: 'entry' },
  derive(config: AlgorithmConfig): AlgorithmConfig {
    // HAProxy's counter is always the per-entry one (track-sc0 counts before deny).
    return config.kind === 'sliding-window-counter' ? { ...config, anchor: 'entry' } : config;
  },
  standardHeadersHow:
    'HAProxy’s built-in deny reply has no rate-limit headers. A custom reply (`http-request deny deny_status 429 … hdr <name> <log-format>`) can add them; the playground shows the values the model computes, labelled as added.',
  response: haproxyResponse,
};
