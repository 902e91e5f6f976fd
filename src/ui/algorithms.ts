import type { AlgorithmKind } from '../core';

/** One editable parameter of an algorithm, named as the real system names it. */
export interface ParamSpec {
  /** The config field. */
  field: string;
  /** The label: the official name where there is one (`max_tokens`, `burst`). */
  label: string;
  /** Unit shown after the input. */
  unit?: string;
  /** One line: what it does. */
  help: string;
  /** How it is edited. */
  /** int: a whole number; delay: nginx's `delay=N` or `nodelay`; optional ints may be left empty. */
  input: 'int' | 'bool' | 'choice' | 'delay';
  /** Empty means the default (shown as the placeholder). */
  optional?: { placeholder: string };
  /**
   * For an optional choice or flag: the value its absence means. The field is left out of the
   * config when it has this value, so links stay short and say only what differs.
   */
  absentMeans?: string;
  choices?: ReadonlyArray<{ value: string; label: string }>;
}

/** What each algorithm is, what it maps to, and its parameters. */
export interface AlgorithmInfo {
  kind: AlgorithmKind;
  name: string;
  /** The real system it models. */
  system: string;
  summary: string;
  params: readonly ParamSpec[];
}

/** The six optional per-unit limits of a calendar-windows limiter. */
const CALENDAR_LIMIT_PARAMS: readonly ParamSpec[] = (
  ['second', 'minute', 'hour', 'day', 'month', 'year'] as const
).map((unit) => ({
  field: unit,
  label: unit,
  help: `Requests per ${unit} (empty: no ${unit} limit).`,
  input: 'int',
  optional: { placeholder: '—' },
}));

export const ALGORITHMS: Readonly<Record<AlgorithmKind, AlgorithmInfo>> = {
  'token-bucket': {
    kind: 'token-bucket',
    name: 'Token bucket',
    system: 'Envoy local_ratelimit token_bucket',
    summary:
      'A bucket of max_tokens, refilled by tokens_per_fill every fill_interval; each request takes one token. Starts full.',
    params: [
      {
        field: 'maxTokens',
        label: 'max_tokens',
        help: 'Bucket capacity: the largest burst that passes at once.',
        input: 'int',
      },
      {
        field: 'tokensPerFill',
        label: 'tokens_per_fill',
        help: 'Tokens added per fill_interval.',
        input: 'int',
      },
      {
        field: 'fillIntervalMs',
        label: 'fill_interval',
        unit: 'ms',
        help: 'How often tokens_per_fill tokens arrive.',
        input: 'int',
      },
      {
        field: 'refill',
        label: 'refill',
        help: 'Continuous (Envoy ≥ 1.31) or whole fills on a timer (older Envoy).',
        input: 'choice',
        absentMeans: 'continuous',
        choices: [
          { value: 'continuous', label: 'continuous' },
          { value: 'interval', label: 'interval' },
        ],
      },
      {
        field: 'maxDelayMs',
        label: 'max delay',
        unit: 'ms',
        help: 'Wait for a reserved token up to this long instead of rejecting (golang x/time/rate Reserve). 0 = reject.',
        input: 'int',
        optional: { placeholder: '0' },
      },
    ],
  },
  'leaky-bucket': {
    kind: 'leaky-bucket',
    name: 'Leaky bucket',
    system: 'nginx limit_req',
    summary:
      'Requests drain at rate; up to burst more are held and released at the rate (or passed at once with nodelay); beyond that, rejected.',
    params: [
      {
        field: 'rate',
        label: 'rate',
        help: 'Sustained rate (nginx keeps ⌊rate·1000/60⌋ milli-requests/s for r/m).',
        input: 'int',
      },
      {
        field: 'rateUnit',
        label: 'unit',
        help: 'Requests per second or per minute.',
        input: 'choice',
        choices: [
          { value: 'r/s', label: 'r/s' },
          { value: 'r/m', label: 'r/m' },
        ],
      },
      {
        field: 'burst',
        label: 'burst',
        help: 'Excess requests held beyond the rate; burst=5 passes 6 at once.',
        input: 'int',
      },
      {
        field: 'delay',
        label: 'delay',
        help: 'delay=N passes the first N of the burst at once and delays the rest; nodelay passes the whole burst at once.',
        input: 'delay',
      },
      {
        field: 'limitReqStatus',
        label: 'limit_req_status',
        help: 'Status of a rejected request (nginx default 503).',
        input: 'int',
        optional: { placeholder: '503' },
      },
    ],
  },
  'fixed-window': {
    kind: 'fixed-window',
    name: 'Fixed window',
    system: 'Redis INCR + EXPIRE per window',
    summary: 'Counts requests per window aligned to t = 0 and admits up to limit per window.',
    params: [
      { field: 'limit', label: 'limit', help: 'Requests admitted per window.', input: 'int' },
      {
        field: 'windowMs',
        label: 'window',
        unit: 'ms',
        help: 'Window length; windows start at multiples of it.',
        input: 'int',
      },
    ],
  },
  'sliding-log': {
    kind: 'sliding-log',
    name: 'Sliding log',
    system: 'Redis sorted set (ZREMRANGEBYSCORE, ZCARD, ZADD)',
    summary:
      'Keeps a timestamp per admitted request and admits while fewer than limit are younger than the window.',
    params: [
      { field: 'limit', label: 'limit', help: 'Requests admitted in any window.', input: 'int' },
      {
        field: 'windowMs',
        label: 'window',
        unit: 'ms',
        help: 'How long an entry counts.',
        input: 'int',
      },
      {
        field: 'logRejected',
        label: 'log rejected',
        help: 'Also log rejected requests (add-then-count): memory grows with load and hammering clients stay blocked.',
        input: 'bool',
        absentMeans: 'false',
      },
    ],
  },
  'sliding-window-counter': {
    kind: 'sliding-window-counter',
    name: 'Sliding-window counter',
    system: 'Cloudflare rate limiting',
    summary:
      'Estimates the rate as previous·(overlap of the previous window) + current and admits while it is below limit.',
    params: [
      {
        field: 'limit',
        label: 'limit',
        help: 'Requests admitted per sliding window (estimated).',
        input: 'int',
      },
      { field: 'windowMs', label: 'window', unit: 'ms', help: 'Window length.', input: 'int' },
    ],
  },
  gcra: {
    kind: 'gcra',
    name: 'GCRA',
    system: 'redis-cell CL.THROTTLE',
    summary:
      'Tracks a theoretical arrival time (TAT) that advances by period/count per request; admits while TAT is within burst+1 intervals of now.',
    params: [
      {
        field: 'count',
        label: 'count',
        help: 'Requests per period (sustained rate).',
        input: 'int',
      },
      {
        field: 'periodMs',
        label: 'period',
        unit: 'ms',
        help: 'The period count is measured over.',
        input: 'int',
      },
      {
        field: 'burst',
        label: 'max_burst',
        help: 'Requests allowed on top of the first at once (limit = max_burst + 1).',
        input: 'int',
      },
    ],
  },
  // ---- Added for issue 13 (gateways) ----
  'anchored-window': {
    kind: 'anchored-window',
    name: 'Anchored window',
    system: 'express-rate-limit MemoryStore, rate-limiter-flexible RateLimiterMemory',
    summary:
      "A fixed window per key that starts at the key's first request and lasts window; admits up to limit in it.",
    params: [
      { field: 'limit', label: 'limit', help: 'Requests admitted per window.', input: 'int' },
      {
        field: 'windowMs',
        label: 'window',
        unit: 'ms',
        help: "Window length, from the key's first request.",
        input: 'int',
      },
      {
        field: 'countRejected',
        label: 'count rejected',
        help: 'Rejected requests count too (both express-rate-limit and rate-limiter-flexible do).',
        input: 'bool',
        absentMeans: 'false',
      },
      {
        field: 'blockMs',
        label: 'blockDuration',
        unit: 'ms',
        help: 'rate-limiter-flexible: the first reject blocks the key this long. 0 = no block.',
        input: 'int',
        optional: { placeholder: '0' },
      },
      {
        field: 'execEvenly',
        label: 'execEvenly',
        help: 'rate-limiter-flexible: delay admitted requests to spread them over the window.',
        input: 'bool',
        absentMeans: 'false',
      },
      {
        field: 'execEvenlyMinDelayMs',
        label: 'execEvenlyMinDelayMs',
        unit: 'ms',
        help: 'rate-limiter-flexible: the shortest execEvenly delay.',
        input: 'int',
        optional: { placeholder: '0' },
      },
    ],
  },
  'calendar-windows': {
    kind: 'calendar-windows',
    name: 'Calendar windows',
    system: 'Kong rate-limiting, Envoy global rate limit service',
    summary:
      'Several fixed windows at once (second … year), aligned to the UTC calendar; a request passes only if every window has room.',
    params: [
      ...CALENDAR_LIMIT_PARAMS,
      {
        field: 'align',
        label: 'align',
        help: 'calendar: UTC months and years (Kong); epoch: month = 30 d, year = 365 d from 1970 (envoyproxy/ratelimit).',
        input: 'choice',
        absentMeans: 'calendar',
        choices: [
          { value: 'calendar', label: 'calendar' },
          { value: 'epoch', label: 'epoch' },
        ],
      },
      {
        field: 'countRejected',
        label: 'count rejected',
        help: 'Rejected requests count in every window too (envoyproxy/ratelimit).',
        input: 'bool',
        absentMeans: 'false',
      },
      {
        field: 'counterTtl',
        label: 'counter TTL',
        help: 'Kong local policy: a counter lives 30 d (month) / 365 d (year) from its first hit, even inside a longer period.',
        input: 'bool',
        absentMeans: 'false',
      },
    ],
  },
};

/** Display order. */
export const ALGORITHM_ORDER: readonly AlgorithmKind[] = [
  'token-bucket',
  'leaky-bucket',
  'fixed-window',
  'sliding-log',
  'sliding-window-counter',
  'gcra',
  'anchored-window',
  'calendar-windows',
];

/**
 * A lane's name for people: the simulator names unnamed limiters by kind ("token-bucket",
 * "token-bucket #2", also the RateLimit policy name); here the kind becomes its display name.
 */
export function displayName(name: string, kind: AlgorithmKind): string {
  return name.startsWith(kind) ? `${ALGORITHMS[kind].name}${name.slice(kind.length)}` : name;
}
