/**
 * nginx `limit_req` (ngx_http_limit_req_module), nginx 1.22.1, on the leaky-bucket algorithm.
 *
 * Response: a rejected request gets `limit_req_status` (NGX_HTTP_SERVICE_UNAVAILABLE, 503, unless
 * set: ngx_http_limit_req_merge_conf) and nginx's own error page; limit_req adds no header at all.
 * A delayed request is held by the module's timer and then served normally (200 here).
 */
import { ceilDiv, nginxRateMilli, quotaOf, toSeconds } from '../core';
import type { AlgorithmConfig, Decision, LeakyBucketConfig } from '../core';
import { httpDate, makeResponse, wallClockMs } from './response';
import type { SourceRef, SystemHeader, SystemInfo, SystemResponseOptions } from './types';

const SOURCES: readonly SourceRef[] = [
  {
    file: 'src/http/modules/ngx_http_limit_req_module.c',
    version: 'nginx 1.22.1',
    what: 'the excess arithmetic, burst, delay/nodelay, limit_req_status (default 503), no headers',
  },
  {
    file: 'src/http/ngx_http_special_response.c',
    version: 'nginx 1.22.1',
    what: 'the error page a rejected request receives: its bytes, text/html, keep-alive or close',
  },
  {
    file: 'src/http/ngx_http_header_filter_module.c',
    version: 'nginx 1.22.1',
    what: 'the status line (nginx’s own reason phrases), Server, Date, Content-Type, Content-Length, Connection, then add_header lines, in that order',
  },
];

/** nginx's `Server` header with `server_tokens on` (its default). */
export const NGINX_SERVER = 'nginx/1.22.1';

/**
 * nginx 1.22.1's status lines for 400–599 (ngx_http_header_filter_module.c ngx_http_status_lines).
 * A status not listed is written as its three digits and a space ("HTTP/1.1 420 ").
 */
const STATUS_LINES: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  402: 'Payment Required',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Not Allowed',
  406: 'Not Acceptable',
  408: 'Request Time-out',
  409: 'Conflict',
  410: 'Gone',
  411: 'Length Required',
  412: 'Precondition Failed',
  413: 'Request Entity Too Large',
  414: 'Request-URI Too Large',
  415: 'Unsupported Media Type',
  416: 'Requested Range Not Satisfiable',
  421: 'Misdirected Request',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  502: 'Bad Gateway',
  503: 'Service Temporarily Unavailable',
  504: 'Gateway Time-out',
  505: 'HTTP Version Not Supported',
  507: 'Insufficient Storage',
};

/**
 * Bytes of nginx 1.22.1's error page for `status` up to its tail (ngx_http_special_response.c
 * ngx_http_error_pages): `<html>`, a title and an h1 that both read "<code> <reason>", as the
 * status line writes them, except 401 (its page reads "Authorization Required") and 494–497
 * (nginx's own 400 pages, with a line of their own): sizes below; 498 gets the 404 page. A status
 * with no reason phrase has no page: undefined.
 */
function pageBytes(status: number): number | undefined {
  const own: Readonly<Record<number, number>> = {
    401: 126,
    494: 180,
    495: 162,
    496: 184,
    497: 202,
  };
  if (own[status] !== undefined) return own[status];
  const code = status === 498 ? 404 : status;
  const reason = STATUS_LINES[code];
  const frame =
    '<html>\r\n<head><title></title></head>\r\n<body>\r\n<center><h1></h1></center>\r\n';
  return reason === undefined ? undefined : frame.length + 2 * `${code} ${reason}`.length;
}

/** The page's tail with server_tokens on: `<hr><center>nginx/1.22.1</center>` CRLF `</body>` … */
const TAIL_BYTES = `<hr><center>${NGINX_SERVER}</center>\r\n</body>\r\n</html>\r\n`.length;

/**
 * Statuses nginx answers by closing the connection without a byte (ngx_http_request.c
 * ngx_http_finalize_request: 408 and 499 terminate the request, 444 is NGX_HTTP_CLOSE).
 */
const DROPS = new Set([408, 444, 499]);

/** Statuses whose error reply closes the connection (ngx_http_special_response_handler). */
const CLOSES = new Set([400, 413, 414, 495, 496, 497, 500, 501]);

/**
 * What nginx 1.22.1 sends itself when it answers `status` with its built-in error page (a
 * rejection by limit_req, or `return <status>`), to a client that keeps its connection alive and
 * is not a browser (nginx pads the page for MSIE and Chrome user agents, `msie_padding`):
 * the status line and Server, Date, Content-Type, Content-Length, Connection, in that order.
 * 494–497 are answered as 400 (nginx's err_status); 408, 444 and 499 get no reply at all.
 */
export function nginxErrorReply(
  status: number,
  wallMs: number,
): { status: number; statusLine: string; fields: SystemHeader[] } {
  if (DROPS.has(status)) {
    return {
      status,
      statusLine: `no reply: nginx closes the connection (status ${status})`,
      fields: [],
    };
  }
  const shown = status >= 494 && status <= 497 ? 400 : status;
  const reason = STATUS_LINES[shown];
  const page = pageBytes(status);
  const fields: SystemHeader[] = [
    { name: 'Server', value: NGINX_SERVER },
    { name: 'Date', value: httpDate(wallMs) },
  ];
  if (page !== undefined) fields.push({ name: 'Content-Type', value: 'text/html' });
  fields.push(
    { name: 'Content-Length', value: String(page === undefined ? 0 : page + TAIL_BYTES) },
    { name: 'Connection', value: CLOSES.has(status) ? 'close' : 'keep-alive' },
  );
  return {
    status: shown,
    statusLine: reason === undefined ? `HTTP/1.1 ${shown} ` : `HTTP/1.1 ${shown} ${reason}`,
    fields,
  };
}

/**
 * The policy name the nginx export writes in `RateLimit-Policy` and the page shows: the limiter's
 * own name, else `ratelimit` (the default zone's name). The export puts it inside an nginx single-quoted string
 * of an add_header value, where `$` starts a variable and `'`, `"` and `\` would need escapes: those
 * and anything outside printable ASCII become `?`.
 */
export function nginxPolicyName(name: string | undefined): string {
  return (name ?? 'ratelimit').replace(/[^\x20-\x7e]|[$'"\\]/g, '?');
}

/** The `RateLimit-Policy` value the nginx export sends for `config` under `name`. */
export function nginxPolicyValue(config: LeakyBucketConfig, name: string): string {
  const quota = quotaOf(config);
  return `"${name}";q=${quota.limit};w=${Math.max(1, toSeconds(quota.windowMs))}`;
}

/**
 * What the export's `add_header … always` lines make nginx send (src/export/nginx.ts): nginx's
 * headers are constants, so `Retry-After` is the time one request takes to drain (1 / rate, rounded
 * up to whole seconds), not the per-request wait, and `RateLimit` (remaining) cannot be sent at all.
 */
export function nginxAddedHeaders(
  config: AlgorithmConfig,
  decision: Decision,
  policyName: string,
): SystemHeader[] {
  if (config.kind !== 'leaky-bucket') return [];
  const fields: SystemHeader[] = [];
  if (decision.outcome === 'reject') {
    const drainMs = ceilDiv(1_000_000, nginxRateMilli(config.rate, config.rateUnit));
    fields.push({ name: 'Retry-After', value: String(toSeconds(drainMs)), added: true });
  }
  fields.push({
    name: 'RateLimit-Policy',
    value: nginxPolicyValue(config, policyName),
    added: true,
  });
  return fields;
}

export const nginxLimitReq: SystemInfo = {
  id: 'nginx',
  name: 'nginx limit_req',
  version: 'nginx 1.22.1',
  group: 'Proxies and gateways',
  kind: 'leaky-bucket',
  algorithms: ['leaky-bucket'],
  urlName: 'nginx',
  summary:
    'Requests drain at rate; up to burst more are held and released at the rate (or passed at once with nodelay); beyond that, rejected.',
  sources: SOURCES,
  params: [
    {
      key: 'rate',
      field: 'rate',
      help: 'Sustained rate (nginx keeps ⌊rate·1000/60⌋ milli-requests/s for r/m).',
      input: 'int',
    },
    {
      key: 'unit',
      field: 'rateUnit',
      help: 'Requests per second or per minute.',
      input: 'choice',
      choices: [
        { value: 'r/s', label: 'r/s' },
        { value: 'r/m', label: 'r/m' },
      ],
    },
    {
      key: 'burst',
      field: 'burst',
      help: 'Excess requests held beyond the rate; burst=5 passes 6 at once.',
      input: 'int',
      implied: 0,
    },
    {
      key: 'delay',
      field: 'delay',
      help: 'delay=N passes the first N of the burst at once and delays the rest; nodelay passes the whole burst at once.',
      input: 'delay',
    },
    {
      key: 'limit_req_status',
      field: 'limitReqStatus',
      help: 'Status of a rejected request (nginx default 503).',
      input: 'int',
      optional: { placeholder: '503' },
    },
  ],
  defaultConfig: { kind: 'leaky-bucket', rate: 2, rateUnit: 'r/s', burst: 5, delay: 0 },
  standardHeadersHow:
    'The nginx export adds them with add_header … always (in the location, and in a named location that error_page sends rejected requests to). nginx headers are constants: Retry-After is 1/rate rounded up, and RateLimit (remaining) cannot be sent.',
  response(config: AlgorithmConfig, decision: Decision, options: SystemResponseOptions = {}) {
    const wallMs = wallClockMs(options);
    const added =
      options.standardHeaders === true
        ? nginxAddedHeaders(config, decision, nginxPolicyName(options.entryName))
        : [];
    if (decision.outcome !== 'reject') {
      // Served by the location (a static file or the upstream): nginx writes Server and Date
      // first and Connection after the upstream's Content-* headers; add_header lines come last.
      return makeResponse(
        200,
        [
          { name: 'Server', value: NGINX_SERVER },
          { name: 'Date', value: httpDate(wallMs) },
          { name: 'Connection', value: 'keep-alive' },
          ...added,
        ],
        SOURCES,
      );
    }
    const reply = nginxErrorReply(
      config.kind === 'leaky-bucket' ? (config.limitReqStatus ?? 503) : 503,
      wallMs,
    );
    // No reply at all (444 …): no headers either, added or not.
    const fields = reply.fields.length === 0 ? [] : [...reply.fields, ...added];
    const base = makeResponse(reply.status, fields, SOURCES);
    return {
      ...base,
      statusLine: reply.statusLine,
      statusText: reply.statusLine.slice(`HTTP/1.1 ${reply.status} `.length),
    };
  },
};
