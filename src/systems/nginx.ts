/**
 * nginx `limit_req` (ngx_http_limit_req_module), nginx 1.22.1, on the leaky-bucket algorithm.
 *
 * Response: a rejected request gets `limit_req_status` (NGX_HTTP_SERVICE_UNAVAILABLE, 503, unless
 * set: ngx_http_limit_req_merge_conf) and nginx's own error page; limit_req adds no header at all.
 * A delayed request is held by the module's timer and then served normally (200 here).
 */
import { ceilDiv, nginxRateMilli, quotaOf, toSeconds } from '../core';
import type { AlgorithmConfig, Decision } from '../core';
import { makeResponse, statusFor } from './response';
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
    what: 'the error page a rejected request receives (text/html)',
  },
];

/** An sf-string for the policy name (as src/core/response.ts writes it). */
function sfString(value: string): string {
  return `"${value.replace(/[^\x20-\x7e]/g, '?').replace(/[\\"]/g, (c) => `\\${c}`)}"`;
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
  const quota = quotaOf(config);
  const fields: SystemHeader[] = [];
  if (decision.outcome === 'reject') {
    const drainMs = ceilDiv(1_000_000, nginxRateMilli(config.rate, config.rateUnit));
    fields.push({ name: 'Retry-After', value: String(toSeconds(drainMs)), added: true });
  }
  fields.push({
    name: 'RateLimit-Policy',
    value: `${sfString(policyName)};q=${quota.limit};w=${Math.max(1, toSeconds(quota.windowMs))}`,
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
    const status = statusFor(
      decision,
      config.kind === 'leaky-bucket' ? (config.limitReqStatus ?? 503) : 503,
    );
    const fields: SystemHeader[] =
      decision.outcome === 'reject' ? [{ name: 'Content-Type', value: 'text/html' }] : [];
    if (options.standardHeaders === true) {
      fields.push(...nginxAddedHeaders(config, decision, options.policyName ?? config.kind));
    }
    return makeResponse(status, fields, SOURCES);
  },
};
