/**
 * The limiter as an haproxy.cfg frontend: a stick-table storing http_req_rate(<period>), track-sc0
 * on the source address, and a deny rule on sc_http_req_rate(0). HAProxy 2.6 (proven against
 * Debian's 2.6.12 in tests/export/haproxy.server.test.ts). See src/systems/haproxy.ts for the rules.
 */
import type { AlgorithmConfig, SlidingWindowCounterConfig } from '../core';
import { assertAlgorithmConfig, plural } from '../core';
import type { ExportOutcome, ExportUnsupported } from './types';
import type { ReplayKey } from './replayKey';
import { HAPROXY_KEY_LEN, haproxyReplayKey, isKeyGap } from './replayKey';

/** What the frontend is called and how large its table is. */
export interface HaproxyOptions {
  /** The frontend's name. Letters, digits, `-`, `_`, `.`, `:` (HAProxy's proxy names). */
  frontend?: string;
  /** The stick-table's `size` (entries; k, m, g suffixes). Default 100k. */
  size?: string;
  /**
   * The key a loaded log is replayed with: track-sc0 tracks the same part of the request
   * (`req.hdr(x-forwarded-for,1)`, `req.fhdr(<header>,1)`, `path`) in a string table, or keeps
   * `src` and says in its differences why it cannot. Absent, or the client address: `src`.
   */
  replayKey?: ReplayKey;
}

export const HAPROXY_DEFAULTS = { frontend: 'rate_limited', size: '100k' } as const;

/**
 * What the exported frontend needs around it, as its comment says (the proof completes it exactly
 * so: tests/export/haproxy.server.test.ts, `haproxy -c` with no warning).
 */
export const HAPROXY_COMPLETE = [
  'Paste after your global and defaults sections (timeout connect, client and server set there),',
  'then add a bind line and default_backend <your backend> (a backend in mode http).',
] as const;

const NAME = /^[A-Za-z0-9_.:-]{1,64}$/;
const SIZE = /^[1-9][0-9]{0,9}[kmg]?$/;

/**
 * A duration as HAProxy writes times (src/tools.c parse_time_err: us, ms, s, m, h, d): the largest
 * unit that divides it exactly.
 */
export function haproxyDuration(ms: number): string {
  const units: Array<[string, number]> = [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
  ];
  for (const [unit, size] of units) if (ms % size === 0) return `${ms / size}${unit}`;
  return `${ms}ms`;
}

function unsupported(config: AlgorithmConfig): ExportUnsupported {
  const nearest =
    config.kind === 'sliding-window-counter'
      ? 'HAProxy’s counter is this sliding-window counter, but anchored at each client’s first request and counting denied requests too: choose the HAProxy system to see and export it.'
      : 'HAProxy stick-table rate limiting is a sliding-window counter anchored per client that counts denied requests too: choose the HAProxy system to see and export it.';
  return {
    ok: false,
    target: 'haproxy',
    kind: config.kind,
    reason: `HAProxy’s stick-table counters (http_req_rate) cannot express this limiter. ${nearest}`,
  };
}

/** The haproxy.cfg lines for an HAProxy limiter (sliding-window counter with anchor 'entry'). */
export function toHaproxy(config: AlgorithmConfig, options: HaproxyOptions = {}): ExportOutcome {
  assertAlgorithmConfig(config);
  if (config.kind !== 'sliding-window-counter' || config.anchor !== 'entry') {
    return unsupported(config);
  }
  const c: SlidingWindowCounterConfig = config;
  const frontend = options.frontend ?? HAPROXY_DEFAULTS.frontend;
  const size = options.size ?? HAPROXY_DEFAULTS.size;
  if (!NAME.test(frontend)) {
    throw new Error(
      `frontend name must be 1 to 64 letters, digits, "-", "_", ".", ":"; got ${JSON.stringify(frontend)}`,
    );
  }
  if (!SIZE.test(size))
    throw new Error(`size must be a whole number with k, m or g; got ${JSON.stringify(size)}`);
  const replayed = options.replayKey === undefined ? null : haproxyReplayKey(options.replayKey);
  const keyed =
    replayed === null || isKeyGap(replayed) ? { fetch: 'src', type: 'ip', note: '' } : replayed;
  const expire = c.expireMs === undefined ? '' : ` expire ${haproxyDuration(c.expireMs)}`;
  const status = c.denyStatus === undefined ? '' : ` deny_status ${c.denyStatus}`;
  const text = [
    `# HAProxy stick-table rate limiting: at most ${plural(c.limit, 'request')} per ${haproxyDuration(c.windowMs)} per ${keyed.fetch === 'src' ? 'client address' : 'key'}.`,
    ...HAPROXY_COMPLETE.map((line) => `# ${line}`),
    `frontend ${frontend}`,
    // http-request rules run only in HTTP mode: in TCP mode (HAProxy's default when no defaults
    // section sets one) they are ignored with a warning, and nothing is limited.
    '    mode http',
    `    stick-table type ${keyed.type} size ${size}${expire} store http_req_rate(${haproxyDuration(c.windowMs)})`,
    // An empty key is not tracked (replayKey.ts HaproxyKey.nonEmpty): `-m len 1:` matches a
    // string of at least one character (configuration.txt 7.1, "-m len").
    `    http-request track-sc0 ${keyed.fetch}${'nonEmpty' in keyed && keyed.nonEmpty === true ? ` if { ${keyed.fetch} -m len 1: }` : ''}`,
    `    http-request deny${status} if { sc_http_req_rate(0) gt ${c.limit} }`,
    '',
  ].join('\n');
  const differences = [
    ...(replayed !== null && isKeyGap(replayed) ? [replayed.gap] : []),
    `The table holds a finite number of entries (size ${size}): when it is full HAProxy frees the entries closest to expiry, which the playground does not model.`,
    keyed.fetch === 'src'
      ? 'track-sc0 src keys by the client’s address: clients behind one NAT address share a counter (the playground’s clients are its keys).'
      : `Keys longer than ${HAPROXY_KEY_LEN} characters are cut to ${HAPROXY_KEY_LEN} before they are stored (stick-table type string len ${HAPROXY_KEY_LEN}): two that share their first ${HAPROXY_KEY_LEN} share a counter; the playground keeps whole keys.`,
  ];
  if (c.expireMs === undefined) {
    differences.push(
      'Without expire, entries are only freed when the table is full; the playground keeps every client’s counter.',
    );
  }
  return {
    ok: true,
    target: 'haproxy',
    language: 'haproxy',
    text,
    assumes: 'HAProxy 2.6 (checked with 2.6.12 from Debian 12).',
    differences,
    notes: [
      ...(keyed.note === '' ? [] : [keyed.note]),
      'track-sc0 counts each request before the deny rule reads the rate, so denied requests count too: a client that keeps sending stays denied.',
      'Each client’s period starts at its first request (not at a clock boundary) and moves on by one period at a time.',
      c.denyStatus === undefined
        ? 'Without deny_status, deny answers 403 Forbidden.'
        : `A denied request gets HAProxy’s built-in ${c.denyStatus} page (content-type text/html, cache-control no-cache), with no Retry-After or RateLimit headers.`,
    ],
  };
}
