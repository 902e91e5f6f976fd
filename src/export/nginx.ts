/**
 * config -> nginx `limit_req_zone` / `limit_req` / `limit_req_status` (ngx_http_limit_req_module).
 * Only the leaky-bucket model is nginx's; the other kinds get a typed "unsupported" answer.
 */
import { plural } from '../core';
import type { AlgorithmConfig, LeakyBucketConfig } from '../core';
import { assertAlgorithmConfig, ceilDiv, nginxRateMilli, quoteText, toSeconds } from '../core';
import { nginxPolicyName, nginxPolicyValue } from '../systems';
import type { ExportOutcome, ExportResult, ExportUnsupported } from './types';
import type { ReplayKey } from './replayKey';
import { isKeyGap, nginxReplayKey } from './replayKey';

/** Settings of the snippet that are not part of the limiter. */
export interface NginxOptions {
  /** limit_req_zone's key. Default `$binary_remote_addr`: one bucket per client address. */
  key?: string;
  /** The zone name. Default `ratelimit`. */
  zone?: string;
  /** The zone size in nginx units (`k`, `m`). Default `10m`: about 160,000 keys at 64 bytes each. */
  zoneSize?: string;
  /**
   * The limiter's "add standard rate-limit headers": emit the `add_header … always` lines (and the
   * `error_page` + named location for rejected requests) that make nginx send what the playground
   * shows as added (src/systems/nginx.ts). Default false.
   */
  standardHeaders?: boolean;
  /**
   * The policy name in RateLimit-Policy: the limiter's own name. Default `ratelimit` (whatever the
   * zone is called: the page cannot know an imported zone name). Characters
   * an add_header value cannot hold as they are become `?` (nginxPolicyName).
   */
  policyName?: string;
  /**
   * The key a loaded log is replayed with: the export keys by the same part of the request (a
   * `map` for an X-Forwarded-For hop, `$http_<name>` for a header, `$uri` for the path), or keeps
   * `key` and says in its differences why nginx cannot. Absent, or the client address: `key`.
   */
  replayKey?: ReplayKey;
}

export const NGINX_DEFAULTS = {
  key: '$binary_remote_addr',
  zone: 'ratelimit',
  zoneSize: '10m',
} as const satisfies Required<Omit<NginxOptions, 'standardHeaders' | 'policyName' | 'replayKey'>>;

/** nginx's own default for limit_req_status. */
export const NGINX_DEFAULT_STATUS = 503;

/** ngx_parse_size: digits with an optional k or m (either case); g is not accepted for zones. */
const SIZE = /^[0-9]+[kKmM]?$/;
/** Zone names are plain words in practice; `:` would end the name. */
const ZONE_NAME = /^[A-Za-z0-9_.-]+$/;

/** Bytes of an nginx size, e.g. "10m" -> 10485760. */
export function nginxSizeBytes(size: string): number {
  const last = size.at(-1) ?? '';
  const unit = /[kK]/.test(last) ? 1024 : /[mM]/.test(last) ? 1024 * 1024 : 1;
  return Number(unit === 1 ? size : size.slice(0, -1)) * unit;
}

/** An nginx word, quoted when it holds characters that would end or split it. */
function word(value: string): string {
  if (value !== '' && /^[^\s;{}"'\\#]+$/.test(value)) return value;
  return `"${value.replace(/["\\]/g, (c) => `\\${c}`)}"`;
}

function unsupported(config: AlgorithmConfig): ExportUnsupported {
  const base = "nginx's limit_req is a leaky bucket (rate, burst, delay) and has no";
  const reasons: Record<Exclude<AlgorithmConfig['kind'], 'leaky-bucket'>, string> = {
    'fixed-window': `${base} fixed windows. The nearest is the leaky-bucket model with rate = limit per window and burst = limit − 1 nodelay, which spreads the quota instead of resetting it.`,
    'sliding-log': `${base} request log. The nearest is the leaky-bucket model with rate = limit per window and burst = limit − 1 nodelay.`,
    'sliding-window-counter': `${base} window counters. The nearest is the leaky-bucket model with rate = limit per window and burst = limit − 1 nodelay.`,
    'token-bucket': `${base} token bucket. The nearest is the leaky-bucket model with rate = tokens_per_fill per fill_interval and burst = max_tokens − 1 nodelay (nginx only takes whole r/s or r/m).`,
    gcra: `${base} GCRA. GCRA with count per period and max_burst b behaves much like the leaky-bucket model with rate = count per period, burst = b and nodelay (nginx only takes whole r/s or r/m).`,
    'anchored-window': `${base} windows anchored at a key's first request. The nearest is the leaky-bucket model with rate = limit per window and burst = limit − 1 nodelay.`,
    'calendar-windows': `${base} calendar windows, nor several limits in one zone (several limit_req lines each with its own zone come closest, but each is a leaky bucket).`,
  };
  return {
    ok: false,
    target: 'nginx',
    kind: config.kind,
    reason: reasons[config.kind as keyof typeof reasons],
  };
}

function assumes(c: LeakyBucketConfig): string {
  const checked = 'checked with nginx 1.22.1';
  if (typeof c.delay === 'number' && c.delay > 0) return `nginx ≥ 1.15.7 (delay=); ${checked}`;
  if (c.limitReqStatus !== undefined && c.limitReqStatus !== NGINX_DEFAULT_STATUS) {
    return `nginx ≥ 1.3.15 (limit_req_status); ${checked}`;
  }
  return `nginx ≥ 1.1.3; ${checked}`;
}

/**
 * The limit_req lines for a leaky-bucket config; for any other kind, why nginx cannot express it.
 * Throws a RangeError on an invalid config or option, as createLimiter does.
 */
export function toNginx(config: AlgorithmConfig, options: NginxOptions = {}): ExportOutcome {
  const c = assertAlgorithmConfig(config);
  if (c.kind !== 'leaky-bucket') return unsupported(c);
  // The replay's key wins over the default (or an imported) key, unless it is the client address.
  const replayed =
    options.replayKey === undefined ||
    (options.replayKey.spec.length === 1 && options.replayKey.spec[0]?.kind === 'client')
      ? null
      : nginxReplayKey(options.replayKey);
  const keyed = replayed === null || isKeyGap(replayed) ? null : replayed;
  const key = keyed?.key ?? options.key ?? NGINX_DEFAULTS.key;
  const zone = options.zone ?? NGINX_DEFAULTS.zone;
  const zoneSize = options.zoneSize ?? NGINX_DEFAULTS.zoneSize;
  if (!ZONE_NAME.test(zone))
    throw new RangeError(`zone must be a plain name, got ${quoteText(zone)}`);
  if (!SIZE.test(zoneSize) || nginxSizeBytes(zoneSize) < 32 * 1024) {
    throw new RangeError(
      `zoneSize must be an nginx size of at least 32k, got ${quoteText(zoneSize)}`,
    );
  }
  if (key === '') throw new RangeError('key must not be empty');

  const params = [`zone=${zone}`];
  // nginx rejects burst=0 and delay=0 ("invalid burst value"): they are the defaults, so leave them out.
  if (c.burst > 0) params.push(`burst=${c.burst}`);
  if (c.delay === 'nodelay') params.push('nodelay');
  else if (c.delay > 0) params.push(`delay=${c.delay}`);
  const status = c.limitReqStatus ?? NGINX_DEFAULT_STATUS;

  const lines = [
    '# nginx limit_req (leaky bucket), exported from Rate Limit Lab',
    '',
    '# In the http { } block:',
    ...(keyed?.map ?? []),
    `limit_req_zone ${word(key)} zone=${zone}:${zoneSize} rate=${c.rate}${c.rateUnit};`,
    '',
    '# In the server { } or location { } to limit:',
    `limit_req ${params.join(' ')};`,
  ];
  if (status !== NGINX_DEFAULT_STATUS) lines.push(`limit_req_status ${status};`);
  const rateMilli = nginxRateMilli(c.rate, c.rateUnit);
  if (options.standardHeaders === true) {
    // add_header takes constant values here: Retry-After is the time one request drains
    // (1 / rate, rounded up), and the remaining count (RateLimit) cannot be written at all.
    // The same name and value the page shows (src/systems/nginx.ts).
    const policy = nginxPolicyValue(c, nginxPolicyName(options.policyName));
    const retryS = toSeconds(ceilDiv(1_000_000, rateMilli));
    lines.push(
      `# Standard headers (added; nginx's limit_req sends none). "always" also adds them to errors.`,
      `add_header RateLimit-Policy '${policy}' always;`,
      `error_page ${status} = @ratelimited;`,
      '',
      '# In the same server { }: rejected requests are answered here.',
      'location @ratelimited {',
      `    add_header Retry-After ${retryS} always;`,
      `    add_header RateLimit-Policy '${policy}' always;`,
      `    return ${status};`,
      '}',
    );
  }

  const rate = rateMilli;
  const notes: string[] = [];
  if (c.rateUnit === 'r/m' && (c.rate * 1000) % 60 !== 0) {
    notes.push(
      `rate=${c.rate}r/m is kept as ${rate} milli-requests per second (⌊${c.rate}·1000/60⌋), so one request drains in ${(1_000_000 / rate / 1000).toFixed(3)} s, not ${(60 / c.rate).toFixed(3)} s.`,
    );
  }
  if (c.burst === 0)
    notes.push('No burst: a request that comes sooner than the rate allows is rejected.');
  if (typeof c.delay === 'number' && c.delay >= c.burst && c.burst > 0) {
    notes.push(
      `delay=${c.delay} ≥ burst=${c.burst}: no request is ever delayed (the same as nodelay).`,
    );
  }
  if (status === NGINX_DEFAULT_STATUS) {
    notes.push(
      'Rejected requests get nginx\'s default 503; "limit_req_status 429;" tells clients to slow down instead.',
    );
  }
  if (keyed !== null) notes.unshift(keyed.note);
  const capacity = Math.floor(nginxSizeBytes(zoneSize) / 64);
  const result: ExportResult = {
    ok: true,
    target: 'nginx',
    language: 'nginx',
    text: `${lines.join('\n')}\n`,
    assumes: assumes(c),
    differences: [
      ...(replayed !== null && isKeyGap(replayed) ? [replayed.gap] : []),
      'limit_req itself adds no header to any response: no Retry-After, no RateLimit or X-RateLimit-* (ngx_http_limit_req_module.c, nginx 1.22.1). The playground shows exactly that unless the limiter adds the standard headers.',
      ...(options.standardHeaders === true
        ? [
            "nginx cannot compute a per-request Retry-After or a remaining count: add_header writes constants, so the snippet sends Retry-After as 1/rate rounded up and RateLimit-Policy only; the playground's added headers are those constants.",
          ]
        : []),
      `nginx reads its clock once per event-loop pass (ngx_current_msec), so requests that arrive together share a millisecond; the playground takes each arrival time as given.`,
      `A ${zoneSize} zone holds about ${plural(capacity, 'key')} (64 bytes each); when it is full nginx evicts the least recently used ones, which then start afresh. The playground's zone never fills.`,
    ],
    notes,
  };
  return result;
}
