import type { AlgorithmKind } from '../core';
import { ALGORITHM_NAMES, laneLabel } from '../viz/format';

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

export const ALGORITHMS: Readonly<Record<AlgorithmKind, AlgorithmInfo>> = {
  'token-bucket': {
    kind: 'token-bucket',
    name: ALGORITHM_NAMES['token-bucket'],
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
    name: ALGORITHM_NAMES['leaky-bucket'],
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
    name: ALGORITHM_NAMES['fixed-window'],
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
    name: ALGORITHM_NAMES['sliding-log'],
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
    name: ALGORITHM_NAMES['sliding-window-counter'],
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
    name: ALGORITHM_NAMES['gcra'],
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
};

/** Display order. */
export const ALGORITHM_ORDER: readonly AlgorithmKind[] = [
  'token-bucket',
  'leaky-bucket',
  'fixed-window',
  'sliding-log',
  'sliding-window-counter',
  'gcra',
];

/**
 * A lane's name for people: the simulator names unnamed limiters by kind ("token-bucket",
 * "token-bucket #2", also the RateLimit policy name); here the kind becomes its display name.
 */
export function displayName(name: string, kind: AlgorithmKind): string {
  return laneLabel({ name, config: { kind } });
}
