/**
 * What nginx 1.22.1 sends for a `limit_req` decision (nginx.ts has the model): its own status lines
 * and error page for a rejection, the export's `add_header` lines when the limiter adds the
 * standard headers. Fetched only with the parts that show a response.
 */
import { ceilDiv, nginxRateMilli, toSeconds } from '../../core';
import type { AlgorithmConfig, Decision } from '../../core';
import { NGINX_SERVER, nginxPolicyName, nginxPolicyValue } from '../nginx';
import { NGINX_SOURCES } from '../sources/nginx';
import { httpDate, makeResponse, wallClockMs } from '../response';
import type { SystemHeader, SystemResponse, SystemResponseOptions } from '../types';

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

/** The response nginx sends for `decision` (SystemModel.response). */
export function nginxResponse(
  config: AlgorithmConfig,
  decision: Decision,
  options: SystemResponseOptions = {},
): SystemResponse {
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
      NGINX_SOURCES,
    );
  }
  const reply = nginxErrorReply(
    config.kind === 'leaky-bucket' ? (config.limitReqStatus ?? 503) : 503,
    wallMs,
  );
  // No reply at all (444 …): no headers either, added or not.
  const fields = reply.fields.length === 0 ? [] : [...reply.fields, ...added];
  const base = makeResponse(reply.status, fields, NGINX_SOURCES);
  return {
    ...base,
    statusLine: reply.statusLine,
    statusText: reply.statusLine.slice(`HTTP/1.1 ${reply.status} `.length),
  };
}
