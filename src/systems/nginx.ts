/**
 * nginx `limit_req` (ngx_http_limit_req_module), nginx 1.22.1, on the leaky-bucket algorithm.
 *
 * Response: a rejected request gets `limit_req_status` (NGX_HTTP_SERVICE_UNAVAILABLE, 503, unless
 * set: ngx_http_limit_req_merge_conf) and nginx's own error page; limit_req adds no header at all.
 * A delayed request is held by the module's timer and then served normally (200 here). The
 * response is written by respond/nginx.ts, fetched with the parts that show one.
 */
import { quotaOf, toSeconds } from '../core';
import type { LeakyBucketConfig } from '../core';
import type { SystemInfo } from './types';

/** nginx's `Server` header with `server_tokens on` (its default). */
export const NGINX_SERVER = 'nginx/1.22.1';

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
  // ngx_http_limit_req_module.c (nginx 1.22.1), ngx_http_limit_req_handler: a key that evaluates
  // to the empty string is skipped (`if (key.len == 0) continue;`), so the request is neither
  // limited nor accounted; the docs say "requests with an empty key value are not accounted".
  emptyKey: 'not-limited',
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
};
