import { quoteText } from './quote';
import type { AlgorithmConfig, AlgorithmKind } from './types';

/** One problem with a config: which field, and a sentence that names the accepted range. */
export interface ConfigIssue {
  /** The field, e.g. 'burst'. */
  field: string;
  /** E.g. "leaky-bucket burst must be a whole number from 0 to 1000000, got 2.5". */
  message: string;
}

/** One day: the longest window, interval or period. */
export const MAX_DURATION_MS = 86_400_000;
/** The largest count (limit, tokens, rate, burst) a limiter accepts. */
export const MAX_COUNT = 1_000_000;

/** HAProxy's stick-table `expire` (sliding-window-counter with anchor 'entry'), in ms. */
export const EXPIRE_RANGE = { min: 1, max: MAX_DURATION_MS } as const;

/**
 * The statuses HAProxy 2.6's `deny deny_status N` accepts without an errorfile: those of its
 * built-in error messages (src/http.c http_err_codes; src/http_htx.c http_parse_http_reply refuses
 * the others with "status code '%d' not handled by default"), except 200, which is no rejection.
 */
export const HAPROXY_DENY_STATUSES: readonly number[] = [
  400, 401, 403, 404, 405, 407, 408, 410, 413, 421, 422, 425, 429, 500, 501, 502, 503, 504,
];

/** The largest per-period limit of a calendar-windows limiter (a year's quota can be large). */
export const MAX_CALENDAR_LIMIT = 1_000_000_000;

interface IntRange {
  min: number;
  max: number;
  optional?: boolean;
}

/** The accepted ranges, per kind and field. The README's table is generated from the same numbers. */
export const RANGES = {
  'fixed-window': {
    limit: { min: 1, max: MAX_COUNT },
    windowMs: { min: 1, max: MAX_DURATION_MS },
  },
  'sliding-log': {
    limit: { min: 1, max: MAX_COUNT },
    windowMs: { min: 1, max: MAX_DURATION_MS },
  },
  'sliding-window-counter': {
    limit: { min: 1, max: MAX_COUNT },
    windowMs: { min: 1, max: MAX_DURATION_MS },
  },
  'token-bucket': {
    maxTokens: { min: 1, max: MAX_COUNT },
    tokensPerFill: { min: 1, max: MAX_COUNT },
    fillIntervalMs: { min: 1, max: MAX_DURATION_MS },
    maxDelayMs: { min: 0, max: MAX_DURATION_MS, optional: true },
    maxDelayNs: { min: 0, max: MAX_DURATION_MS * 1_000_000, optional: true },
    idleResetS: { min: 1, max: 86_400, optional: true },
  },
  'leaky-bucket': {
    rate: { min: 1, max: MAX_COUNT },
    burst: { min: 0, max: MAX_COUNT },
    limitReqStatus: { min: 400, max: 599, optional: true },
  },
  gcra: {
    count: { min: 1, max: MAX_COUNT },
    periodMs: { min: 1, max: MAX_DURATION_MS },
    burst: { min: 0, max: MAX_COUNT },
  },
  'anchored-window': {
    limit: { min: 1, max: MAX_COUNT },
    // 0: the record never expires (rate-limiter-flexible duration 0; see AnchoredWindowConfig).
    windowMs: { min: 0, max: MAX_DURATION_MS },
    blockMs: { min: 0, max: MAX_DURATION_MS, optional: true },
    execEvenlyMinDelayMs: { min: 0, max: MAX_DURATION_MS, optional: true },
    cost: { min: 1, max: MAX_COUNT, optional: true },
  },
  'calendar-windows': {
    second: { min: 1, max: MAX_CALENDAR_LIMIT, optional: true },
    minute: { min: 1, max: MAX_CALENDAR_LIMIT, optional: true },
    hour: { min: 1, max: MAX_CALENDAR_LIMIT, optional: true },
    day: { min: 1, max: MAX_CALENDAR_LIMIT, optional: true },
    month: { min: 1, max: MAX_CALENDAR_LIMIT, optional: true },
    year: { min: 1, max: MAX_CALENDAR_LIMIT, optional: true },
  },
} as const satisfies Record<AlgorithmKind, Record<string, IntRange>>;

export const ALGORITHM_KINDS: readonly AlgorithmKind[] = [
  'fixed-window',
  'sliding-log',
  'sliding-window-counter',
  'token-bucket',
  'leaky-bucket',
  'gcra',
  'anchored-window',
  'calendar-windows',
];

function checkBoolean(issues: ConfigIssue[], kind: string, field: string, value: unknown): void {
  if (value !== undefined && typeof value !== 'boolean') {
    issues.push({
      field,
      message: `${kind} ${field} must be true or false, got ${describeValue(value)}`,
    });
  }
}

/** A short, safe rendering of a bad value for a message (never the value's own toString). */
export function describeValue(value: unknown): string {
  if (typeof value === 'string') return quoteText(value);
  if (
    typeof value === 'number' ||
    typeof value === 'boolean' ||
    value === null ||
    value === undefined
  ) {
    return String(value);
  }
  if (Array.isArray(value)) return `a list of ${value.length}`;
  return typeof value;
}

function checkInt(
  issues: ConfigIssue[],
  kind: string,
  field: string,
  value: unknown,
  range: IntRange,
): void {
  if (value === undefined && range.optional === true) return;
  if (
    typeof value !== 'number' ||
    !Number.isInteger(value) ||
    value < range.min ||
    value > range.max
  ) {
    issues.push({
      field,
      message: `${kind} ${field} must be a whole number from ${range.min} to ${range.max}, got ${describeValue(value)}`,
    });
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Every problem with `config`, or [] when it is valid. Never throws. */
export function checkAlgorithmConfig(config: unknown): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  if (!isRecord(config)) {
    return [
      {
        field: 'kind',
        message: `a limiter config must be an object, got ${describeValue(config)}`,
      },
    ];
  }
  const kind = config.kind;
  if (typeof kind !== 'string' || !(ALGORITHM_KINDS as readonly string[]).includes(kind)) {
    return [
      {
        field: 'kind',
        message: `kind must be one of ${ALGORITHM_KINDS.join(', ')}, got ${describeValue(kind)}`,
      },
    ];
  }
  const ranges: Record<string, IntRange> = RANGES[kind as AlgorithmKind];
  for (const [field, range] of Object.entries(ranges)) {
    checkInt(issues, kind, field, config[field], range);
  }
  if (
    kind === 'sliding-log' &&
    config.logRejected !== undefined &&
    typeof config.logRejected !== 'boolean'
  ) {
    issues.push({
      field: 'logRejected',
      message: `sliding-log logRejected must be true or false, got ${describeValue(config.logRejected)}`,
    });
  }
  if (kind === 'sliding-log' && config.lastMsPasses !== undefined) {
    if (typeof config.lastMsPasses !== 'boolean') {
      issues.push({
        field: 'lastMsPasses',
        message: `sliding-log lastMsPasses must be true or false, got ${describeValue(config.lastMsPasses)}`,
      });
    } else if (config.lastMsPasses && config.logRejected === true) {
      issues.push({
        field: 'lastMsPasses',
        message: 'sliding-log lastMsPasses (a ring of passed requests) cannot go with logRejected',
      });
    }
  }
  if (
    kind === 'token-bucket' &&
    config.refill !== undefined &&
    config.refill !== 'continuous' &&
    config.refill !== 'interval'
  ) {
    issues.push({
      field: 'refill',
      message: `token-bucket refill must be 'continuous' or 'interval', got ${describeValue(config.refill)}`,
    });
  }
  if (kind === 'sliding-window-counter') {
    if (config.anchor !== undefined && config.anchor !== 'aligned' && config.anchor !== 'entry') {
      issues.push({
        field: 'anchor',
        message: `sliding-window-counter anchor must be 'aligned' or 'entry', got ${describeValue(config.anchor)}`,
      });
    }
    if (config.anchor === 'entry' && config.windowMs === 1) {
      issues.push({
        field: 'windowMs',
        message: `sliding-window-counter windowMs must be a whole number from 2 to ${MAX_DURATION_MS} with anchor 'entry': HAProxy's counter rotates on every event of an odd millisecond when the period is 1 ms`,
      });
    }
    if (config.expireMs !== undefined && config.anchor === 'entry') {
      checkInt(issues, kind, 'expireMs', config.expireMs, EXPIRE_RANGE);
    }
    if (
      config.denyStatus !== undefined &&
      (config.anchor !== 'entry' || !HAPROXY_DENY_STATUSES.includes(config.denyStatus as number))
    ) {
      issues.push({
        field: 'denyStatus',
        message:
          config.anchor !== 'entry'
            ? `sliding-window-counter denyStatus needs anchor 'entry' (HAProxy's deny_status)`
            : `sliding-window-counter denyStatus must be one of ${HAPROXY_DENY_STATUSES.join(', ')} (HAProxy's built-in error pages), got ${describeValue(config.denyStatus)}`,
      });
    }
    if (config.expireMs !== undefined && config.anchor !== 'entry') {
      issues.push({
        field: 'expireMs',
        message: `sliding-window-counter expireMs needs anchor 'entry' (HAProxy's stick-table expire)`,
      });
    }
  }
  if (kind === 'anchored-window') {
    checkBoolean(issues, kind, 'countRejected', config.countRejected);
    checkBoolean(issues, kind, 'execEvenly', config.execEvenly);
    const { cost, limit } = config;
    if (typeof cost === 'number' && typeof limit === 'number' && cost > limit) {
      issues.push({
        field: 'cost',
        message: `anchored-window cost must be at most limit (${limit}): a request of ${cost} points would never pass, got ${cost}`,
      });
    }
  }
  if (kind === 'calendar-windows') {
    checkBoolean(issues, kind, 'countRejected', config.countRejected);
    checkBoolean(issues, kind, 'counterTtl', config.counterTtl);
    checkBoolean(issues, kind, 'shadowMode', config.shadowMode);
    if (config.align !== undefined && config.align !== 'calendar' && config.align !== 'epoch') {
      issues.push({
        field: 'align',
        message: `calendar-windows align must be 'calendar' or 'epoch', got ${describeValue(config.align)}`,
      });
    }
    const units = ['second', 'minute', 'hour', 'day', 'month', 'year'] as const;
    if (units.every((u) => config[u] === undefined)) {
      issues.push({
        field: 'second',
        message: `calendar-windows needs at least one limit: second, minute, hour, day, month or year (each a whole number from 1 to ${MAX_CALENDAR_LIMIT})`,
      });
    }
  }
  if (kind === 'leaky-bucket') {
    if (config.rateUnit !== 'r/s' && config.rateUnit !== 'r/m') {
      issues.push({
        field: 'rateUnit',
        message: `leaky-bucket rateUnit must be 'r/s' or 'r/m', got ${describeValue(config.rateUnit)}`,
      });
    }
    if (config.delay !== 'nodelay') {
      if (typeof config.delay === 'number') {
        checkInt(issues, kind, 'delay', config.delay, { min: 0, max: MAX_COUNT });
      } else {
        issues.push({
          field: 'delay',
          message: `leaky-bucket delay must be a whole number from 0 to ${MAX_COUNT} or 'nodelay', got ${describeValue(config.delay)}`,
        });
      }
    }
  }
  return issues;
}

/** Throws a RangeError naming every bad field and its accepted range; returns the config typed. */
export function assertAlgorithmConfig(config: unknown): AlgorithmConfig {
  const issues = checkAlgorithmConfig(config);
  if (issues.length > 0) {
    throw new RangeError(`Invalid limiter config: ${issues.map((i) => i.message).join('; ')}`);
  }
  return config as AlgorithmConfig;
}
