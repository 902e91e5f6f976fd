// Long file on purpose: the valibot schema of the whole PlaygroundConfig (limiters, every traffic
// source, deployment and fleet, clock, view) with its limits: one schema, one file.
/**
 * The valibot schema of the PlaygroundConfig (./schema.ts). The ranges are the core's (`RANGES`)
 * and the simulator's (`MAX_*`), read from their constants, so a config this schema accepts is one
 * `simulate` accepts (a property test checks the two agree). Messages name the accepted range; the
 * codec and the repair add the place and the offending value. Not re-exported by the config barrel:
 * the page's first load never runs it (the repair, fetched to open a link or saved settings, does).
 *
 * Units: every time and duration is a whole number of virtual milliseconds (`…Ms`).
 */
import * as v from 'valibot';
import { EXPIRE_RANGE, HAPROXY_DENY_STATUSES, MAX_COUNT, RANGES, plural } from '../core';
import type { AlgorithmKind } from '../core';
import {
  MAX_ATTEMPTS,
  MAX_BINS,
  MAX_BURST,
  MAX_CLIENTS,
  MAX_CLOCK_JUMPS,
  MAX_DECISIONS,
  MAX_INSTANCES,
  MAX_MANUAL_TIMES,
  MAX_TRACE_SOURCE_REQUESTS,
  MAX_RATE_PER_SEC,
  MAX_SOURCES,
  MAX_UNTIL_MS,
  MAX_WAIT_MS,
  MIN_RATE_PER_SEC,
  MAX_WEIGHT,
  MAX_SCALE_EVENTS,
  MAX_OUTAGES,
  racyFleetProblem,
} from '../sim';
import type { Fleet } from '../sim';
import { SYSTEM_IDS } from '../systems';
import { formatDuration } from './format';
import {
  CONFIG_VERSION,
  MAX_LIMITERS,
  MAX_NAME_LENGTH,
  MAX_SEED,
  MAX_SPEED,
  MIN_SPEED,
  NAME_PATTERN,
  NAME_RULE,
} from './schema';
import type { PlaygroundConfig, SourceKind } from './schema';

// ---------------------------------------------------------------------------------------------
// Building blocks (each message states the accepted range; the value is added where it is known)
// ---------------------------------------------------------------------------------------------

interface Range {
  readonly min: number;
  readonly max: number;
}

/** A whole number in [min, max]. */
function whole(range: Range) {
  const m = `must be a whole number from ${range.min} to ${range.max}`;
  return v.pipe(v.number(m), v.integer(m), v.minValue(range.min, m), v.maxValue(range.max, m));
}

/** A whole number of ms in [min, max]; the message shows the bounds as durations. */
function duration(range: Range, extra = '') {
  const m = `must be a duration from ${formatDuration(range.min)} to ${formatDuration(range.max)} in whole milliseconds${extra}`;
  return v.pipe(v.number(m), v.integer(m), v.minValue(range.min, m), v.maxValue(range.max, m));
}

/** A finite number in [min, max]. */
function decimal(range: Range) {
  const m = `must be a number from ${range.min} to ${range.max}`;
  return v.pipe(v.number(m), v.finite(m), v.minValue(range.min, m), v.maxValue(range.max, m));
}

function oneOf<const T extends readonly [string, ...string[]]>(options: T) {
  return v.picklist(options, `must be one of ${options.join(', ')}`);
}

const flag = v.boolean('must be true or false');

/** An object with these entries. A missing entry is reported with this message at its key. */
function obj<const E extends v.ObjectEntries>(entries: E) {
  return v.object(entries, 'must be an object');
}

// ---------------------------------------------------------------------------------------------
// Limiters (core ranges)
// ---------------------------------------------------------------------------------------------

function windowed<const K extends 'fixed-window' | 'sliding-window-counter'>(kind: K) {
  return obj({
    kind: v.literal(kind),
    limit: whole(RANGES[kind].limit),
    windowMs: duration(RANGES[kind].windowMs),
  });
}

export const FixedWindowSchema = windowed('fixed-window');
export const SlidingWindowCounterSchema = v.pipe(
  obj({
    kind: v.literal('sliding-window-counter'),
    limit: whole(RANGES['sliding-window-counter'].limit),
    windowMs: duration(RANGES['sliding-window-counter'].windowMs),
    // HAProxy: the per-entry anchored counter and the stick-table's expire.
    anchor: v.exactOptional(oneOf(['aligned', 'entry'])),
    expireMs: v.exactOptional(duration(EXPIRE_RANGE)),
    denyStatus: v.exactOptional(
      v.picklist(
        HAPROXY_DENY_STATUSES,
        `must be one of ${HAPROXY_DENY_STATUSES.join(', ')} (HAProxy's built-in error pages)`,
      ),
    ),
  }),
  v.forward(
    v.check(
      (c) => c.denyStatus === undefined || c.anchor === 'entry',
      "is HAProxy's deny_status: it needs anchor 'entry'",
    ),
    ['denyStatus'],
  ),
  v.forward(
    v.check(
      (c) => c.expireMs === undefined || c.anchor === 'entry',
      "is HAProxy's stick-table expire: it needs anchor 'entry'",
    ),
    ['expireMs'],
  ),
  v.forward(
    v.check(
      (c) => c.anchor !== 'entry' || c.windowMs !== 1,
      "must be a duration from 2ms to 24h in whole milliseconds with anchor 'entry' (HAProxy's counter rotates on every event of an odd millisecond when the period is 1 ms)",
    ),
    ['windowMs'],
  ),
);

export const SlidingLogSchema = obj({
  kind: v.literal('sliding-log'),
  limit: whole(RANGES['sliding-log'].limit),
  windowMs: duration(RANGES['sliding-log'].windowMs),
  logRejected: v.exactOptional(flag),
  // Set by the Caddy system (src/systems/caddy.ts derive), never written in links.
  lastMsPasses: v.exactOptional(flag),
});

const TB = RANGES['token-bucket'];
export const TokenBucketSchema = obj({
  kind: v.literal('token-bucket'),
  maxTokens: whole(TB.maxTokens),
  tokensPerFill: whole(TB.tokensPerFill),
  fillIntervalMs: duration(TB.fillIntervalMs),
  refill: v.exactOptional(oneOf(['continuous', 'interval'])),
  maxDelayMs: v.exactOptional(duration(TB.maxDelayMs)),
  maxDelayNs: v.exactOptional(whole(TB.maxDelayNs)),
  idleResetS: v.exactOptional(whole(TB.idleResetS)),
});

const LB = RANGES['leaky-bucket'];
/** nginx's `delay=N`: the core accepts 0 – MAX_COUNT (src/core/validate.ts). */
const DELAY_RANGE: Range = { min: 0, max: MAX_COUNT };
export const LeakyBucketSchema = obj({
  kind: v.literal('leaky-bucket'),
  rate: whole(LB.rate),
  rateUnit: oneOf(['r/s', 'r/m']),
  burst: whole(LB.burst),
  delay: v.union(
    [v.literal('nodelay'), whole(DELAY_RANGE)],
    `must be a whole number from ${DELAY_RANGE.min} to ${DELAY_RANGE.max} or nodelay`,
  ),
  limitReqStatus: v.exactOptional(whole(LB.limitReqStatus)),
});

const GC = RANGES.gcra;
export const GcraSchema = obj({
  kind: v.literal('gcra'),
  count: whole(GC.count),
  periodMs: duration(GC.periodMs),
  burst: whole(GC.burst),
});

// ---- Gateways ----
const AW = RANGES['anchored-window'];
export const AnchoredWindowSchema = v.pipe(
  obj({
    kind: v.literal('anchored-window'),
    limit: whole(AW.limit),
    windowMs: duration(AW.windowMs),
    countRejected: v.exactOptional(flag),
    blockMs: v.exactOptional(duration(AW.blockMs)),
    execEvenly: v.exactOptional(flag),
    execEvenlyMinDelayMs: v.exactOptional(duration(AW.execEvenlyMinDelayMs)),
    cost: v.exactOptional(whole(AW.cost)),
  }),
  v.forward(
    v.check(
      (c) => c.cost === undefined || c.cost <= c.limit,
      'must be at most the limit (points): a request of more points would never pass',
    ),
    ['cost'],
  ),
);

const CW = RANGES['calendar-windows'];
export const CalendarWindowsSchema = v.pipe(
  obj({
    kind: v.literal('calendar-windows'),
    second: v.exactOptional(whole(CW.second)),
    minute: v.exactOptional(whole(CW.minute)),
    hour: v.exactOptional(whole(CW.hour)),
    day: v.exactOptional(whole(CW.day)),
    month: v.exactOptional(whole(CW.month)),
    year: v.exactOptional(whole(CW.year)),
    align: v.exactOptional(oneOf(['calendar', 'epoch'])),
    countRejected: v.exactOptional(flag),
    counterTtl: v.exactOptional(flag),
    shadowMode: v.exactOptional(flag),
  }),
  v.check(
    (c) =>
      c.second !== undefined ||
      c.minute !== undefined ||
      c.hour !== undefined ||
      c.day !== undefined ||
      c.month !== undefined ||
      c.year !== undefined,
    'needs at least one limit: second, minute, hour, day, month or year',
  ),
);

/** Every kind's schema, by kind. */
export const ALGORITHM_SCHEMAS = {
  'fixed-window': FixedWindowSchema,
  'sliding-log': SlidingLogSchema,
  'sliding-window-counter': SlidingWindowCounterSchema,
  'token-bucket': TokenBucketSchema,
  'leaky-bucket': LeakyBucketSchema,
  gcra: GcraSchema,
  'anchored-window': AnchoredWindowSchema,
  'calendar-windows': CalendarWindowsSchema,
} as const satisfies Record<AlgorithmKind, unknown>;

export const AlgorithmConfigSchema = v.variant(
  'kind',
  Object.values(ALGORITHM_SCHEMAS),
  `must be one of ${Object.keys(ALGORITHM_SCHEMAS).join(', ')}`,
);

export const NameSchema = v.pipe(
  v.string(NAME_RULE),
  v.minLength(1, NAME_RULE),
  v.maxLength(MAX_NAME_LENGTH, NAME_RULE),
  v.regex(NAME_PATTERN, NAME_RULE),
);

export const LimiterEntrySchema = obj({
  name: v.exactOptional(NameSchema),
  config: AlgorithmConfigSchema,
  system: v.exactOptional(oneOf(SYSTEM_IDS as unknown as readonly [string, ...string[]])),
  standardHeaders: v.exactOptional(flag),
});

// ---------------------------------------------------------------------------------------------
// Scenario (simulator ranges)
// ---------------------------------------------------------------------------------------------

const TIME: Range = { min: 0, max: MAX_UNTIL_MS };
const END: Range = { min: 1, max: MAX_UNTIL_MS };
const RATE: Range = { min: MIN_RATE_PER_SEC, max: MAX_RATE_PER_SEC };
const SPREAD: Range = { min: 0, max: MAX_WAIT_MS };
const COUNT: Range = { min: 1, max: MAX_BURST };

/**
 * The client a source is pinned to. Its upper bound follows `clients.count`, which this field
 * cannot see: the scenario's cross-check below enforces it.
 */
const client = v.exactOptional(whole({ min: 0, max: MAX_CLIENTS - 1 }));

export const listMessage = (max: number, what: string): string =>
  `must be a list of at most ${max} ${what}`;

/** One manual time (repair.ts checks long lists item by item with it, before the whole config). */
export const ManualTimeSchema = duration(TIME);

/**
 * Exactly what ManualTimeSchema accepts (v.number: a number, not NaN; v.integer: Number.isInteger;
 * then the bounds), as one expression: a list of 10,000 valid times is checked in a tight loop
 * rather than by 10,000 schema runs (tests/config/hostile.test.ts checks the two agree).
 */
export function isManualTime(value: unknown): value is number {
  return (
    typeof value === 'number' && Number.isInteger(value) && value >= TIME.min && value <= TIME.max
  );
}

export const ManualSourceSchema = obj({
  kind: v.literal('manual'),
  timesMs: v.pipe(
    v.array(ManualTimeSchema, listMessage(MAX_MANUAL_TIMES, 'times')),
    v.maxLength(MAX_MANUAL_TIMES, listMessage(MAX_MANUAL_TIMES, 'times')),
  ),
  client,
});

export const BurstSourceSchema = obj({
  kind: v.literal('burst'),
  atMs: duration(TIME),
  count: whole(COUNT),
  spreadMs: v.exactOptional(duration(SPREAD)),
  client,
});

function steady<const K extends 'constant' | 'poisson'>(kind: K) {
  return obj({
    kind: v.literal(kind),
    ratePerSec: decimal(RATE),
    startMs: duration(TIME),
    endMs: duration(END),
    client,
  });
}
export const ConstantSourceSchema = steady('constant');
export const PoissonSourceSchema = steady('poisson');

export const OnOffSourceSchema = obj({
  kind: v.literal('on-off'),
  ratePerSec: decimal(RATE),
  onMs: duration({ min: 1, max: MAX_WAIT_MS }),
  offMs: duration(SPREAD),
  startMs: duration(TIME),
  endMs: duration(END),
  client,
});

export const BoundaryBurstSourceSchema = obj({
  kind: v.literal('boundary-burst'),
  boundaryMs: duration(END),
  count: whole(COUNT),
  spreadMs: v.exactOptional(duration(SPREAD)),
  client,
});

/** What a trace's file name may hold in a link: letters, digits, spaces and `- _ . ( ) + @`. */
export const TRACE_NAME_PATTERN = /^[\p{L}\p{M}\p{N} _.()+@-]+$/u;
export const MAX_TRACE_NAME_LENGTH = 200;
const TRACE_NAME_RULE = `must be 1 to ${MAX_TRACE_NAME_LENGTH} characters: letters, digits, spaces and - _ . ( ) + @`;
const HASH_RULE = 'must be 16 lowercase hexadecimal digits';

/**
 * The key a trace was read with, as a link writes it (src/trace/keys.ts `keySpecText` writes and
 * reads it): the client address is the default and is not written.
 */
export const TRACE_KEY_PATTERN =
  /^(?:xff-first|xff-last|path|client\+path|all|field:[^\p{Cc},]{1,200})$/u;
const TRACE_KEY_RULE = 'must be xff-first, xff-last, path, client+path, all or field:<name>';

/** The largest file size a trace source names (1 TB: more than any file the page reads). */
export const MAX_TRACE_FILE_BYTES = 2 ** 40;

const EPOCH_MS = whole({ min: 0, max: 864e13 });

/** A trace replayed: the link carries its fingerprint, never its requests. */
export const TraceSourceSchema = obj({
  kind: v.literal('trace'),
  name: v.pipe(
    v.string(TRACE_NAME_RULE),
    v.minLength(1, TRACE_NAME_RULE),
    v.maxLength(MAX_TRACE_NAME_LENGTH, TRACE_NAME_RULE),
    v.regex(TRACE_NAME_PATTERN, TRACE_NAME_RULE),
  ),
  bytes: whole({ min: 0, max: MAX_TRACE_FILE_BYTES }),
  requests: whole({ min: 1, max: MAX_TRACE_SOURCE_REQUESTS }),
  hash: v.pipe(v.string(HASH_RULE), v.regex(/^[0-9a-f]{16}$/, HASH_RULE)),
  // Int32 virtual times (src/trace's MAX_REPLAY_SPAN_MS).
  fromMs: v.exactOptional(duration({ min: 0, max: 2 ** 31 - 1 })),
  key: v.exactOptional(
    v.pipe(v.string(TRACE_KEY_RULE), v.regex(TRACE_KEY_PATTERN, TRACE_KEY_RULE)),
  ),
  // The span of a file too large to hold that the trace was read out of, epoch ms (Date's range).
  spanFromMs: v.exactOptional(EPOCH_MS),
  spanToMs: v.exactOptional(EPOCH_MS),
});

export const SOURCE_SCHEMAS = {
  manual: ManualSourceSchema,
  burst: BurstSourceSchema,
  constant: ConstantSourceSchema,
  poisson: PoissonSourceSchema,
  'on-off': OnOffSourceSchema,
  'boundary-burst': BoundaryBurstSourceSchema,
  trace: TraceSourceSchema,
} as const satisfies Record<SourceKind, unknown>;

export const SOURCE_KINDS = Object.keys(SOURCE_SCHEMAS) as SourceKind[];

export const TrafficSourceSchema = v.variant(
  'kind',
  Object.values(SOURCE_SCHEMAS),
  `must be one of ${SOURCE_KINDS.join(', ')}`,
);

export const ClientModelSchema = obj({
  count: whole({ min: 1, max: MAX_CLIENTS }),
  keying: oneOf(['per-client', 'shared']),
  assign: oneOf(['round-robin', 'random']),
});

const WAIT: Range = { min: 1, max: MAX_WAIT_MS };
export const RetryPolicySchema = v.pipe(
  obj({
    onReject: oneOf(['give-up', 'immediate', 'retry-after', 'backoff']),
    maxAttempts: whole({ min: 1, max: MAX_ATTEMPTS }),
    backoffBaseMs: duration(WAIT),
    backoffCapMs: duration(WAIT),
    turnaroundMs: duration(SPREAD),
  }),
  v.forward(
    v.partialCheck(
      [['backoffBaseMs'], ['backoffCapMs']],
      (r) => r.backoffCapMs >= r.backoffBaseMs,
      (issue) =>
        `must be at least the backoff base (${formatDuration((issue.input as { backoffBaseMs: number }).backoffBaseMs)})`,
    ),
    ['backoffCapMs'],
  ),
);

// ---- Fleet: optional; absent = the deployment as before -----------------------------

const REPLICAS: Range = { min: 1, max: MAX_INSTANCES };
export const FleetSchema = obj({
  weights: v.exactOptional(
    v.pipe(
      v.array(whole({ min: 0, max: MAX_WEIGHT }), listMessage(MAX_INSTANCES, 'weights')),
      v.maxLength(MAX_INSTANCES, listMessage(MAX_INSTANCES, 'weights')),
    ),
  ),
  service: v.exactOptional(
    obj({ kind: oneOf(['fixed', 'uniform', 'exponential']), meanMs: duration(SPREAD) }),
  ),
  scale: v.exactOptional(
    v.pipe(
      v.array(
        obj({
          atMs: duration(TIME),
          instances: whole(REPLICAS),
        }),
        listMessage(MAX_SCALE_EVENTS, 'scale events'),
      ),
      v.maxLength(MAX_SCALE_EVENTS, listMessage(MAX_SCALE_EVENTS, 'scale events')),
    ),
  ),
  autoscale: v.exactOptional(
    obj({
      perReplicaRps: decimal({ min: MIN_RATE_PER_SEC, max: MAX_RATE_PER_SEC }),
      everyMs: duration({ min: 1, max: MAX_WAIT_MS }),
      min: whole(REPLICAS),
      max: whole(REPLICAS),
      on: v.exactOptional(oneOf(['passed', 'offered'])),
    }),
  ),
  store: v.exactOptional(
    obj({
      rttMs: duration(SPREAD),
      jitterMs: duration(SPREAD),
      timeoutMs: v.exactOptional(duration({ min: 1, max: MAX_WAIT_MS })),
      outages: v.pipe(
        v.array(
          obj({ fromMs: duration({ min: 0, max: MAX_UNTIL_MS - 1 }), toMs: duration(TIME) }),
          listMessage(MAX_OUTAGES, 'outage windows'),
        ),
        v.maxLength(MAX_OUTAGES, listMessage(MAX_OUTAGES, 'outage windows')),
      ),
      onDown: oneOf(['open', 'closed', 'local']),
      downStatus: v.exactOptional(v.picklist([429, 500], 'must be 429 or 500')),
      syncMs: v.exactOptional(duration({ min: 1, max: MAX_WAIT_MS })),
      cacheOverLimit: v.exactOptional(flag),
      kong: v.exactOptional(oneOf(['cluster', 'redis'])),
    }),
  ),
});

/**
 * Fleet checks that span fields or need the run length: weights that leave the replicas in use
 * with nothing, an autoscaler whose max is below its min, an outage that ends before it starts
 * or lasts longer than the run, 'shared-racy' with fleet settings.
 */
function checkFleet(
  deployment: { instances: number; balancer: string; state: string; fleet?: Fleet },
  untilMs: number,
  addIssue: (message: string, keys: Key[]) => void,
): void {
  const f = deployment.fleet;
  const racy = racyFleetProblem(deployment);
  if (racy !== null) addIssue(racy, ['state']);
  if (f === undefined) return;
  if (f.weights !== undefined) {
    for (const n of [deployment.instances, ...(f.scale ?? []).map((e) => e.instances)]) {
      let sum = 0;
      for (let i = 0; i < n; i += 1) sum += f.weights[i] ?? 1;
      if (sum === 0) {
        addIssue(
          `must give the ${plural(n, 'replica')} in use a total weight of at least 1 (each 0 – ${MAX_WEIGHT}); theirs sum to 0`,
          ['fleet', 'weights'],
        );
        break;
      }
    }
  }
  if (f.autoscale !== undefined && f.autoscale.max < f.autoscale.min) {
    addIssue(`must be from the autoscaler's min (${f.autoscale.min}) to ${MAX_INSTANCES}`, [
      'fleet',
      'autoscale',
      'max',
    ]);
  }
  f.store?.outages.forEach((o, i) => {
    if (o.toMs <= o.fromMs || o.toMs - o.fromMs > untilMs) {
      addIssue(
        `must be from ${formatDuration(o.fromMs + 1)} to ${formatDuration(o.fromMs + untilMs)}: an outage ends after it starts and cannot be longer than the run (${formatDuration(untilMs)})`,
        ['fleet', 'store', 'outages', i, 'toMs'],
      );
    }
  });
}

export const DeploymentSchema = obj({
  instances: whole({ min: 1, max: MAX_INSTANCES }),
  balancer: oneOf(['round-robin', 'random', 'least-outstanding', 'hash', 'weighted']),
  state: oneOf(['local', 'shared-atomic', 'shared-racy', 'local-divided', 'layered']),
  roundTripMs: duration(SPREAD),
  fleet: v.exactOptional(FleetSchema),
});

const JUMP: Range = { min: -MAX_UNTIL_MS, max: MAX_UNTIL_MS };
export const ClockJumpSchema = obj({
  atMs: duration(TIME),
  byMs: v.pipe(
    duration(JUMP, ', not 0'),
    v.check(
      (by) => by !== 0,
      `must be a duration from ${formatDuration(JUMP.min)} to ${formatDuration(JUMP.max)} in whole milliseconds, not 0`,
    ),
  ),
});

export const ClockModelSchema = obj({
  mode: oneOf(['monotonic', 'wall']),
  jumps: v.pipe(
    v.array(ClockJumpSchema, listMessage(MAX_CLOCK_JUMPS, 'jumps')),
    v.maxLength(MAX_CLOCK_JUMPS, listMessage(MAX_CLOCK_JUMPS, 'jumps')),
  ),
});

export const MetricsSchema = obj({
  windowMs: duration({ min: 1, max: MAX_UNTIL_MS }),
  binMs: v.exactOptional(duration({ min: 1, max: MAX_UNTIL_MS })),
});

type Key = string | number;

/**
 * An issue for a cross-check, placed at `keys` below the checked value (valibot prefixes the
 * outer path), with the value found there as its input.
 */
function issueAt(root: unknown, keys: readonly Key[], message: string) {
  let input = root as Record<Key, unknown>;
  let value: unknown = root;
  const items = keys.map((key): v.IssuePathItem => {
    value = input[key];
    const item: v.IssuePathItem = { type: 'unknown', origin: 'value', input, key, value };
    input = value as Record<Key, unknown>;
    return item;
  });
  return { message, input: value, path: items as [v.IssuePathItem, ...v.IssuePathItem[]] };
}

interface SourceShape {
  kind: string;
  client?: number;
  startMs?: number;
  endMs?: number;
  boundaryMs?: number;
  spreadMs?: number;
  spanFromMs?: number;
  spanToMs?: number;
}

/**
 * Checks that span fields: a source's end after its start, a boundary burst's early half starting
 * at 0 or later, and a pinned client that exists. Each issue points at the field to change.
 */
function checkSources(
  scenario: { sources: SourceShape[]; clients: { count: number } },
  addIssue: (message: string, keys: Key[]) => void,
): void {
  scenario.sources.forEach((s, i) => {
    if (s.startMs !== undefined && s.endMs !== undefined && s.endMs <= s.startMs) {
      addIssue(`must be later than the start (${formatDuration(s.startMs)})`, [
        'sources',
        i,
        'endMs',
      ]);
    }
    // A file's span: both ends, or neither (a comparison with an absent end is false).
    if ((s.spanFromMs ?? s.spanToMs) !== undefined && !(s.spanFromMs! < s.spanToMs!)) {
      addIssue('must be later than span_from', ['sources', i, 'spanToMs']);
    }
    if (s.kind === 'boundary-burst' && s.boundaryMs !== undefined) {
      const spread = s.spreadMs ?? 0;
      if (s.boundaryMs < spread + 1) {
        addIssue(
          `must be at least the spread plus 1ms (${formatDuration(spread + 1)}) so the early half starts at 0 or later`,
          ['sources', i, 'boundaryMs'],
        );
      }
    }
    if (s.kind === 'trace' && scenario.sources.findIndex((o) => o.kind === 'trace') < i) {
      addIssue('must be the only access-log replay: a scenario replays at most one trace', [
        'sources',
        i,
        'kind',
      ]);
    }
    if (s.client !== undefined && s.client >= scenario.clients.count) {
      addIssue(
        `must be a client index from 0 to ${scenario.clients.count - 1} (there ${scenario.clients.count === 1 ? 'is' : 'are'} ${plural(scenario.clients.count, 'client')})`,
        ['sources', i, 'client'],
      );
    }
  });
}

/** The traffic sources' list rule (repair.ts cuts a long list with it before the whole check). */
export const SOURCES_MESSAGE = listMessage(MAX_SOURCES, 'traffic sources');

export const ScenarioSchema = v.pipe(
  obj({
    seed: whole({ min: 0, max: MAX_SEED }),
    sources: v.pipe(
      v.array(TrafficSourceSchema, SOURCES_MESSAGE),
      v.maxLength(MAX_SOURCES, SOURCES_MESSAGE),
    ),
    clients: ClientModelSchema,
    retry: RetryPolicySchema,
    deployment: DeploymentSchema,
    clock: ClockModelSchema,
    metrics: MetricsSchema,
  }),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return; // fields first: cross-checks only run on well-typed input
    checkSources(dataset.value, (message, keys) => addIssue(issueAt(dataset.value, keys, message)));
  }),
);

// ---------------------------------------------------------------------------------------------
// View and the whole config
// ---------------------------------------------------------------------------------------------

export const SelectionSchema = v.object(
  {
    lane: whole({ min: 0, max: MAX_LIMITERS - 1 }),
    row: whole({ min: 0, max: MAX_DECISIONS - 1 }),
  },
  'must be a lane and a row, or null',
);

export const ViewSchema = v.pipe(
  obj({
    untilMs: duration({ min: 1, max: MAX_UNTIL_MS }),
    tMs: duration(TIME),
    paused: flag,
    speed: decimal({ min: MIN_SPEED, max: MAX_SPEED }),
    selected: v.nullable(SelectionSchema),
    mode: oneOf(['single', 'compare']),
  }),
  v.forward(
    v.partialCheck(
      [['untilMs'], ['tMs']],
      (view) => view.tMs <= view.untilMs,
      (issue) =>
        `must be a time from 0 to the run length (${formatDuration((issue.input as { untilMs: number }).untilMs)})`,
    ),
    ['tMs'],
  ),
);

/** The limiters' list rule (repair.ts cuts a long list with it before the whole check). */
export const LIMITERS_MESSAGE = `must be a list of 1 to ${MAX_LIMITERS} limiters`;
const limitersMessage = LIMITERS_MESSAGE;

export const PlaygroundConfigSchema = v.pipe(
  obj({
    version: v.literal(CONFIG_VERSION, `must be ${CONFIG_VERSION}`),
    limiters: v.pipe(
      v.array(LimiterEntrySchema, limitersMessage),
      v.minLength(1, limitersMessage),
      v.maxLength(MAX_LIMITERS, limitersMessage),
    ),
    scenario: ScenarioSchema,
    view: ViewSchema,
  }),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const c = dataset.value;
    const selected = c.view.selected;
    if (selected !== null && selected.lane >= c.limiters.length) {
      addIssue(
        issueAt(
          c,
          ['view', 'selected', 'lane'],
          `must be a limiter index from 0 to ${c.limiters.length - 1}`,
        ),
      );
    }
    checkFleet(c.scenario.deployment, c.view.untilMs, (message, keys) =>
      addIssue(issueAt(c, ['scenario', 'deployment', ...keys], message)),
    );
    // The simulator caps the rate chart at MAX_BINS bins (src/sim/validate.ts, validateRun).
    const binMs = c.scenario.metrics.binMs;
    if (binMs !== undefined && Math.ceil(c.view.untilMs / binMs) > MAX_BINS) {
      addIssue(
        issueAt(
          c,
          ['scenario', 'metrics', 'binMs'],
          `must be at least ${formatDuration(Math.ceil(c.view.untilMs / MAX_BINS))} for a run of ${formatDuration(c.view.untilMs)} (at most ${MAX_BINS} bins)`,
        ),
      );
    }
  }),
);

/** True when `value` is a valid PlaygroundConfig (extra keys are ignored). Never throws. */
export function isValidConfig(value: unknown): value is PlaygroundConfig {
  return v.safeParse(PlaygroundConfigSchema, value).success;
}
