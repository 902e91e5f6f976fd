import type { AlgorithmKind } from '../../core';
import { ALGORITHM_NAMES } from '../../viz/format';
import { DEFAULT_SYSTEM } from '../../systems';
import type { SystemInfo } from '../../systems';

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
  /**
   * The product's own value when its config leaves the option out, as shown beside the field
   * ("nginx's default: 0"): SystemParam `productDefault ?? implied`. Absent: required, no default.
   */
  productDefault?: string;
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

/** A system's parameters as fields: labelled with the system's own names. */
export function paramSpecs(system: SystemInfo): ParamSpec[] {
  return system.params.map((p) => {
    const spec: ParamSpec = { field: p.field, label: p.key, help: p.help, input: p.input };
    if (p.unit !== undefined) spec.unit = p.unit;
    if (p.optional !== undefined) spec.optional = p.optional;
    if (p.absentMeans !== undefined) spec.absentMeans = p.absentMeans;
    if (p.choices !== undefined) spec.choices = p.choices;
    const byDefault = p.productDefault ?? p.implied;
    if (byDefault !== undefined) {
      // The product alone, as lanes name it: "nginx", "Traefik", "Spring Cloud Gateway".
      const who = system.shortName ?? system.name.split(' ')[0] ?? system.name;
      const unit = p.unit === undefined ? '' : ` ${p.unit}`;
      spec.productDefault = `${who}'s default: ${String(byDefault)}${unit}`;
    }
    return spec;
  });
}

type AlgorithmText = Omit<AlgorithmInfo, 'params'>;

const TEXTS: Readonly<Record<AlgorithmKind, AlgorithmText>> = {
  'token-bucket': {
    kind: 'token-bucket',
    name: ALGORITHM_NAMES['token-bucket'],
    system: 'Envoy local_ratelimit token_bucket',
    summary:
      'A bucket of max_tokens, refilled by tokens_per_fill every fill_interval; each request takes one token. Starts full.',
  },
  'leaky-bucket': {
    kind: 'leaky-bucket',
    name: ALGORITHM_NAMES['leaky-bucket'],
    system: 'nginx limit_req',
    summary:
      'Requests drain at rate; up to burst more are held and released at the rate (or passed at once with nodelay); beyond that, rejected.',
  },
  'fixed-window': {
    kind: 'fixed-window',
    name: ALGORITHM_NAMES['fixed-window'],
    system: 'Redis INCR + EXPIRE per window',
    summary: 'Counts requests per window aligned to t = 0 and admits up to limit per window.',
  },
  'sliding-log': {
    kind: 'sliding-log',
    name: ALGORITHM_NAMES['sliding-log'],
    system: 'Redis sorted set (ZREMRANGEBYSCORE, ZCARD, ZADD)',
    summary:
      'Keeps a timestamp per admitted request and admits while fewer than limit are younger than the window.',
  },
  'sliding-window-counter': {
    kind: 'sliding-window-counter',
    name: ALGORITHM_NAMES['sliding-window-counter'],
    system: 'Redis two-window counter',
    summary:
      'Estimates the rate as previous·(overlap of the previous window) + current and admits while it is below limit.',
  },
  gcra: {
    kind: 'gcra',
    name: ALGORITHM_NAMES['gcra'],
    system: 'redis-cell CL.THROTTLE',
    summary:
      'Tracks a theoretical arrival time (TAT) that advances by period/count per request; admits while TAT is within burst+1 intervals of now.',
  },
  // ---- Built for the gateways ----
  'anchored-window': {
    kind: 'anchored-window',
    name: ALGORITHM_NAMES['anchored-window'],
    system: 'express-rate-limit MemoryStore, rate-limiter-flexible RateLimiterMemory',
    summary:
      "A fixed window per key that starts at the key's first request and lasts window; admits up to limit in it.",
  },
  'calendar-windows': {
    kind: 'calendar-windows',
    name: ALGORITHM_NAMES['calendar-windows'],
    system: 'Kong rate-limiting, Envoy global rate limit service',
    summary:
      'Several fixed windows at once (second … year), aligned to the UTC calendar; a request passes only if every window has room.',
  },
};

/** Each algorithm with the parameters of the system it stood for before systems existed. */
export const ALGORITHMS: Readonly<Record<AlgorithmKind, AlgorithmInfo>> = Object.fromEntries(
  (Object.keys(TEXTS) as AlgorithmKind[]).map((kind) => [
    kind,
    { ...TEXTS[kind], params: paramSpecs(DEFAULT_SYSTEM[kind]) },
  ]),
) as unknown as Record<AlgorithmKind, AlgorithmInfo>;

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
