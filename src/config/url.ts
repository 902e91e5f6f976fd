/**
 * The URL codec: a PlaygroundConfig as a query string and back.
 *
 * Readable where it can be: one parameter per part, the reference systems' own names and units
 * (`l=nginx:rate=10r/s,burst=20,nodelay`, `l=envoy:max_tokens=10,fill_interval=1s`), durations with
 * units, and nothing that equals its version's default. Compact where it cannot be: a long list of
 * manual times is delta-coded and packed with lz-string. Versioned: `v=1` says which defaults and
 * which grammar the link was written with (defaults.ts, migrate.ts). The grammar is in README-style
 * form in `URL_GRAMMAR` below.
 *
 * Decoding never throws and never runs or renders anything from the link: every value is parsed
 * as plain text into a candidate config, then `repairConfig` keeps its valid parts and replaces
 * each invalid one by its default, and each problem becomes one message that names the parameter,
 * the rule and the value found.
 */
import { compressToEncodedURIComponent, decompressFromEncodedURIComponent } from 'lz-string';
import type { AlgorithmConfig, AlgorithmKind } from '../core';
import type { TrafficSource } from '../sim';
import { DEFAULTS, defaultConfig, defaultsOf } from './defaults';
import type { VersionDefaults } from './defaults';
import { deepEqual } from './equal';
import {
  formatDecimal,
  formatDuration,
  parseDecimal,
  parseDuration,
  parseWhole,
  quoteText,
} from './format';
import { migrate } from './migrate';
import { fixNote, repairConfig } from './repair';
import type { PathKey, RepairIssue } from './repair';
import { CONFIG_VERSION, MAX_LIMITERS } from './schema';
import type { LimiterEntry, PlaygroundConfig, SourceKind } from './schema';
import { MAX_MANUAL_TIMES, MAX_SOURCES } from '../sim';

// ---------------------------------------------------------------------------------------------
// Limits
// ---------------------------------------------------------------------------------------------

/**
 * The longest link text read, in characters (the query string without `?`). Longer links are not
 * read at all: the default config opens with a message saying so. Chat apps, proxies and servers
 * commonly cut URLs somewhere past 8,000 characters.
 */
export const MAX_LINK_LENGTH = 8000;
/** Messages listed per link; further problems are summed up in one last message. */
export const MAX_ERRORS = 50;
/** A manual time list is written readably while its text is at most this long, else packed. */
export const READABLE_TIMES_MAX = 100;
/** The longest text a packed list may unpack to (10,000 times in base 36 fit in 120,000). */
const MAX_UNPACKED = 200_000;
/** Parameters the page uses for itself (e.g. `?embed`): read by the UI, skipped here silently. */
export const FOREIGN_PARAMS: readonly string[] = ['embed'];

// ---------------------------------------------------------------------------------------------
// Result
// ---------------------------------------------------------------------------------------------

/** One problem with a link. */
export interface ConfigError {
  /** The config part it concerns, e.g. 'limiters[1].config.burst' ('' for the link as a whole). */
  path: string;
  /** The link part, e.g. 'l[1] burst', 'src[0]', 'until', '' for the link as a whole. */
  param: string;
  /** A sentence: where, the rule, the value found, e.g. `l[1] burst: must be … from 0 to 1000000, got "-4"`. */
  message: string;
}

export interface DecodeResult {
  /** Always valid: the link's valid parts, defaults for the rest. */
  config: PlaygroundConfig;
  /** Empty when the link was read exactly. */
  errors: ConfigError[];
  /** The link text as given, for a "copy the original link" button. */
  original: string;
  /** The version the link said it was (null when it said none or something unreadable). */
  version: number | null;
}

// ---------------------------------------------------------------------------------------------
// Field tables: the URL name of each config field and how its value is written
// ---------------------------------------------------------------------------------------------

type FieldType = 'whole' | 'duration' | 'decimal' | 'flag' | 'text' | 'rate';

interface FieldSpec {
  /** The name in the link. */
  key: string;
  /** The config field. */
  field: string;
  type: FieldType;
  /** The reference system's value when the option is left out (required fields only). */
  implied?: unknown;
  /** An optional field: absent from the config when absent from the link. */
  optional?: boolean;
  /** The rule as the link writes it, when it reads differently from the schema's message. */
  rule?: string;
}

const NAME_FIELD: FieldSpec = { key: 'name', field: 'name', type: 'text', optional: true };

/** Limiters: the URL name of each kind and its options, in the order they are written. */
const LIMITER_URL: Readonly<Record<AlgorithmKind, { name: string; fields: readonly FieldSpec[] }>> =
  {
    'token-bucket': {
      name: 'envoy',
      fields: [
        { key: 'max_tokens', field: 'maxTokens', type: 'whole' },
        // envoy.type.v3.TokenBucket: "If not specified, defaults to a single token."
        { key: 'tokens_per_fill', field: 'tokensPerFill', type: 'whole', implied: 1 },
        { key: 'fill_interval', field: 'fillIntervalMs', type: 'duration' },
        { key: 'refill', field: 'refill', type: 'text', optional: true },
        { key: 'max_delay', field: 'maxDelayMs', type: 'duration', optional: true },
      ],
    },
    'leaky-bucket': {
      name: 'nginx',
      fields: [
        // rate=10r/s carries rate and rateUnit; delay=N / nodelay is read apart (see readLimiter).
        // nginx limit_req: burst and delay default to 0.
        { key: 'burst', field: 'burst', type: 'whole', implied: 0 },
        { key: 'limit_req_status', field: 'limitReqStatus', type: 'whole', optional: true },
      ],
    },
    gcra: {
      name: 'gcra',
      // redis-cell: CL.THROTTLE <key> <max_burst> <count per period> <period>
      fields: [
        { key: 'max_burst', field: 'burst', type: 'whole' },
        { key: 'count', field: 'count', type: 'whole' },
        { key: 'period', field: 'periodMs', type: 'duration' },
      ],
    },
    'fixed-window': {
      name: 'fixed-window',
      fields: [
        { key: 'limit', field: 'limit', type: 'whole' },
        { key: 'window', field: 'windowMs', type: 'duration' },
      ],
    },
    'sliding-log': {
      name: 'sliding-log',
      fields: [
        { key: 'limit', field: 'limit', type: 'whole' },
        { key: 'window', field: 'windowMs', type: 'duration' },
        { key: 'log_rejected', field: 'logRejected', type: 'flag', optional: true },
      ],
    },
    'sliding-window-counter': {
      name: 'sliding-window-counter',
      fields: [
        { key: 'limit', field: 'limit', type: 'whole' },
        { key: 'window', field: 'windowMs', type: 'duration' },
      ],
    },
  };

/** URL name → kind; the core's kind names are read too. */
const KIND_BY_NAME: ReadonlyMap<string, AlgorithmKind> = new Map([
  ...(Object.entries(LIMITER_URL) as Array<[AlgorithmKind, { name: string }]>).map(
    ([kind, spec]) => [spec.name, kind] as const,
  ),
  ...(Object.keys(LIMITER_URL) as AlgorithmKind[]).map((kind) => [kind, kind] as const),
]);
const LIMITER_NAMES = Object.values(LIMITER_URL)
  .map((s) => s.name)
  .join(', ');

const NGINX_RATE_RULE = 'must be N r/s or N r/m with N a whole number from 1 to 1000000';
const DELAY_RULE = 'must be delay=N with N a whole number from 0 to 1000000, or nodelay';
const SOURCE_RATE_RULE =
  'must be N r/s or N r/m (requests per second or per minute) from 0.001 r/s to 100000 r/s';

const RATE: FieldSpec = { key: 'rate', field: 'ratePerSec', type: 'rate', rule: SOURCE_RATE_RULE };
const FROM: FieldSpec = { key: 'from', field: 'startMs', type: 'duration' };
const TO: FieldSpec = { key: 'to', field: 'endMs', type: 'duration' };
const CLIENT: FieldSpec = { key: 'client', field: 'client', type: 'whole', optional: true };
const SPREAD: FieldSpec = { key: 'spread', field: 'spreadMs', type: 'duration', optional: true };
const COUNT: FieldSpec = { key: 'count', field: 'count', type: 'whole' };

/** Traffic sources: options per kind, in the order they are written (manual `times` apart). */
const SOURCE_URL: Readonly<Record<SourceKind, readonly FieldSpec[]>> = {
  poisson: [RATE, FROM, TO, CLIENT],
  constant: [RATE, FROM, TO, CLIENT],
  'on-off': [
    RATE,
    { key: 'on', field: 'onMs', type: 'duration' },
    { key: 'off', field: 'offMs', type: 'duration' },
    FROM,
    TO,
    CLIENT,
  ],
  burst: [COUNT, { key: 'at', field: 'atMs', type: 'duration' }, SPREAD, CLIENT],
  'boundary-burst': [COUNT, { key: 'at', field: 'boundaryMs', type: 'duration' }, SPREAD, CLIENT],
  manual: [CLIENT],
};
const SOURCE_KIND_NAMES = Object.keys(SOURCE_URL).join(', ');

/** A scenario group written as `param=<head>:<option>=<value>,…`. */
interface GroupSpec {
  param: string;
  group: 'clients' | 'retry' | 'deployment' | 'clock';
  head: FieldSpec;
  fields: readonly FieldSpec[];
}

const GROUPS: readonly GroupSpec[] = [
  {
    param: 'clients',
    group: 'clients',
    head: { key: '', field: 'count', type: 'whole' },
    fields: [
      { key: 'keying', field: 'keying', type: 'text' },
      { key: 'assign', field: 'assign', type: 'text' },
    ],
  },
  {
    param: 'retry',
    group: 'retry',
    head: { key: '', field: 'onReject', type: 'text' },
    fields: [
      { key: 'attempts', field: 'maxAttempts', type: 'whole' },
      { key: 'base', field: 'backoffBaseMs', type: 'duration' },
      { key: 'cap', field: 'backoffCapMs', type: 'duration' },
      { key: 'turnaround', field: 'turnaroundMs', type: 'duration' },
    ],
  },
  {
    param: 'deploy',
    group: 'deployment',
    head: { key: '', field: 'instances', type: 'whole' },
    fields: [
      { key: 'state', field: 'state', type: 'text' },
      { key: 'balancer', field: 'balancer', type: 'text' },
      { key: 'rtt', field: 'roundTripMs', type: 'duration' },
    ],
  },
  {
    param: 'clock',
    group: 'clock',
    head: { key: '', field: 'mode', type: 'text' },
    fields: [], // jumps: read and written apart
  },
];

/** Single-value parameters: name, config path, type. */
const SINGLES: ReadonlyArray<{ param: string; path: readonly string[]; spec: FieldSpec }> = [
  {
    param: 'seed',
    path: ['scenario', 'seed'],
    spec: { key: 'seed', field: 'seed', type: 'whole' },
  },
  {
    param: 'w',
    path: ['scenario', 'metrics', 'windowMs'],
    spec: { key: 'w', field: 'windowMs', type: 'duration' },
  },
  {
    param: 'until',
    path: ['view', 'untilMs'],
    spec: { key: 'until', field: 'untilMs', type: 'duration' },
  },
  { param: 't', path: ['view', 'tMs'], spec: { key: 't', field: 'tMs', type: 'duration' } },
  {
    param: 'paused',
    path: ['view', 'paused'],
    spec: { key: 'paused', field: 'paused', type: 'flag' },
  },
  {
    param: 'speed',
    path: ['view', 'speed'],
    spec: { key: 'speed', field: 'speed', type: 'decimal' },
  },
  { param: 'mode', path: ['view', 'mode'], spec: { key: 'mode', field: 'mode', type: 'text' } },
];

/** Every parameter the codec reads, for the unknown-parameter message. */
const KNOWN_PARAMS: ReadonlySet<string> = new Set([
  'v',
  'l',
  'src',
  'bin',
  'sel',
  ...GROUPS.map((g) => g.param),
  ...SINGLES.map((s) => s.param),
]);

/**
 * The grammar, one line per parameter (also in the README). Durations: a number with `ms`, `s`,
 * `m` or `h` (none = ms). Lists inside a value are separated by `;`.
 */
export const URL_GRAMMAR: ReadonlyArray<readonly [param: string, form: string, meaning: string]> = [
  ['v', '1', 'link version (required; a link without it is read as version 1)'],
  ['l', `<kind>:<option>,…  (kind: ${LIMITER_NAMES})`, 'a limiter, repeated for 1–6 lanes'],
  [
    '',
    'envoy:max_tokens=N,tokens_per_fill=N,fill_interval=D[,refill=interval][,max_delay=D]',
    'Envoy token bucket (tokens_per_fill defaults to 1)',
  ],
  [
    '',
    'nginx:rate=Nr/s|Nr/m[,burst=N][,delay=N|,nodelay][,limit_req_status=NNN]',
    'nginx limit_req (burst and delay default to 0)',
  ],
  ['', 'gcra:max_burst=N,count=N,period=D', 'redis-cell CL.THROTTLE'],
  [
    '',
    'fixed-window|sliding-log|sliding-window-counter:limit=N,window=D[,log_rejected]',
    'windowed counters',
  ],
  ['', 'name=<text> (any kind)', 'a display name: letters, digits, spaces, - _ . ( ) /'],
  [
    'src',
    `<kind>:<option>,…  or none  (kind: ${SOURCE_KIND_NAMES})`,
    'a traffic source, repeated up to 32',
  ],
  ['', 'poisson|constant:rate=Nr/s,from=D,to=D', 'rate per second (or r/m) over [from, to)'],
  ['', 'on-off:rate=Nr/s,on=D,off=D,from=D,to=D', 'a square wave'],
  ['', 'burst:count=N,at=D[,spread=D]', 'N requests at once or spread'],
  ['', 'boundary-burst:count=N,at=D[,spread=D]', 'N just before and N from a boundary'],
  [
    '',
    'manual:times=D;D;…  or manual:lz=<packed>',
    'listed times; long lists are lz-string packed deltas',
  ],
  ['', 'client=N (any kind)', 'pin the source to client N (0-based)'],
  ['clients', 'N[:keying=shared][,assign=random]', 'number of clients and their keys'],
  [
    'retry',
    'give-up|immediate|retry-after|backoff[:attempts=N,base=D,cap=D,turnaround=D]',
    'what a rejected client does',
  ],
  [
    'deploy',
    'N[:state=local|shared-atomic|shared-racy,balancer=random,rtt=D]',
    'instances and where state lives',
  ],
  ['clock', 'monotonic|wall[:jumps=D@D;…]', 'wall-clock jumps as by@at, e.g. -5s@10s'],
  ['seed', 'N', 'seed of every random draw (0 – 4294967295)'],
  ['w', 'D', 'the peak window W ("most passed in any W")'],
  ['bin', 'D or auto', 'rate-chart bin width'],
  ['until', 'D', 'run length'],
  ['t', 'D', 'the virtual time shown'],
  ['paused', '(flag)', 'the clock stands still'],
  ['speed', 'X', 'playback speed, 0.1 – 100'],
  ['sel', 'lane:row or none', 'the selected request'],
  ['mode', 'single|compare', 'one lane or all side by side'],
];

// ---------------------------------------------------------------------------------------------
// Text of values
// ---------------------------------------------------------------------------------------------

/** Characters left as they are in a value: unreserved, plus `: / , = @ ;` which read well. */
const SAFE = /^[A-Za-z0-9\-._~:/,=@;]$/;

/** Percent-encodes a value for a query string, keeping the readable characters. */
function encodeValue(text: string): string {
  let out = '';
  for (const ch of text) {
    if (SAFE.test(ch)) out += ch;
    else {
      try {
        out += encodeURIComponent(ch);
      } catch {
        out += '%EF%BF%BD'; // a lone surrogate (never in a valid config): U+FFFD
      }
    }
  }
  return out;
}

function formatRate(ratePerSec: number): string {
  const perSec = formatDecimal(ratePerSec);
  const perMin = ratePerSec * 60;
  // Prefer r/m when the per-second text is long and the per-minute one is whole and exact,
  // e.g. 1/60 r/s is written 1r/m.
  if (perSec.length > 8 && Number.isInteger(perMin) && perMin / 60 === ratePerSec) {
    return `${perMin}r/m`;
  }
  return `${perSec}r/s`;
}

const RATE_TEXT = /^(.*?)(r\/s|r\/m)?$/;

function parseRate(text: string): number | null {
  const m = RATE_TEXT.exec(text);
  const n = parseDecimal(m?.[1] ?? '');
  if (n === null) return null;
  return m?.[2] === 'r/m' ? n / 60 : n;
}

function formatValue(type: FieldType, value: unknown): string {
  switch (type) {
    case 'duration':
      return formatDuration(value as number);
    case 'decimal':
      return formatDecimal(value as number);
    case 'rate':
      return formatRate(value as number);
    default:
      return String(value);
  }
}

/** The value for a field from its text, or the text itself when it does not parse. */
function parseValue(type: FieldType, text: string): unknown {
  switch (type) {
    case 'whole':
      return parseWhole(text) ?? text;
    case 'duration':
      return parseDuration(text) ?? text;
    case 'decimal':
      return parseDecimal(text) ?? text;
    case 'rate':
      return parseRate(text) ?? text;
    case 'flag':
      // A bare flag (`log_rejected`) is true; `log_rejected=` with nothing after it is not.
      if (text === 'true' || text === '1') return true;
      if (text === 'false' || text === '0') return false;
      return text;
    default:
      return text;
  }
}

/** `key=value`, or the bare key for a true flag. */
function option(spec: FieldSpec, value: unknown): string {
  if (spec.type === 'flag' && value === true) return spec.key;
  return `${spec.key}=${formatValue(spec.type, value)}`;
}

// ---------------------------------------------------------------------------------------------
// Manual times: `times=0;150ms;1s` or `lz=<packed>`
// ---------------------------------------------------------------------------------------------

function encodeTimes(timesMs: readonly number[]): string {
  const readable = `times=${timesMs.map(formatDuration).join(';')}`;
  if (readable.length <= READABLE_TIMES_MAX) return readable;
  // Deltas in base 36 pack well: regular clicking repeats the same few deltas.
  let prev = 0;
  const deltas = timesMs.map((t) => {
    const d = t - prev;
    prev = t;
    return d.toString(36);
  });
  return `lz=${compressToEncodedURIComponent(deltas.join(','))}`;
}

const BASE36 = /^-?[0-9a-z]{1,8}$/;

/** The times of a packed list, or a sentence saying why they could not be read. */
function unpackTimes(packed: string): number[] | string {
  let text: string | null;
  try {
    // lz-string returns null or '' for a stream it cannot read (a cut-short link).
    text = decompressFromEncodedURIComponent(packed);
  } catch {
    text = null;
  }
  if (typeof text !== 'string' || text === '') {
    return 'could not be unpacked (the link may be cut short or changed)';
  }
  if (text.length > MAX_UNPACKED) {
    return `unpacks to ${text.length} characters, more than the ${MAX_UNPACKED} a list of ${MAX_MANUAL_TIMES} times needs`;
  }
  const times: number[] = [];
  let t = 0;
  for (const item of text.split(',')) {
    if (!BASE36.test(item)) {
      return `unpacks to something that is not a list of times (item ${times.length}: ${quoteText(item)})`;
    }
    t += parseInt(item, 36);
    times.push(t);
  }
  return times;
}

// ---------------------------------------------------------------------------------------------
// Encoding
// ---------------------------------------------------------------------------------------------

function encodeLimiter(entry: LimiterEntry): string {
  const config = entry.config as unknown as Record<string, unknown>;
  const spec = LIMITER_URL[entry.config.kind];
  const options: string[] = [];
  if (entry.name !== undefined) options.push(option(NAME_FIELD, entry.name));
  if (entry.config.kind === 'leaky-bucket') {
    const c = entry.config;
    options.push(`rate=${c.rate}${c.rateUnit}`);
    if (c.burst !== 0) options.push(`burst=${c.burst}`);
    if (c.delay === 'nodelay') options.push('nodelay');
    else if (c.delay !== 0) options.push(`delay=${c.delay}`);
    if (c.limitReqStatus !== undefined) options.push(`limit_req_status=${c.limitReqStatus}`);
  } else {
    for (const f of spec.fields) {
      const value = config[f.field];
      if (value === undefined || (f.implied !== undefined && value === f.implied)) continue;
      options.push(option(f, value));
    }
  }
  return `${spec.name}:${options.join(',')}`;
}

function encodeSource(source: TrafficSource): string {
  const s = source as unknown as Record<string, unknown>;
  const options: string[] = [];
  if (source.kind === 'manual') options.push(encodeTimes(source.timesMs));
  for (const f of SOURCE_URL[source.kind]) {
    const value = s[f.field];
    if (value !== undefined) options.push(option(f, value));
  }
  return `${source.kind}:${options.join(',')}`;
}

function encodeGroup(spec: GroupSpec, group: object, base: object): string | null {
  if (deepEqual(group, base)) return null;
  const g = group as Record<string, unknown>;
  const b = base as Record<string, unknown>;
  const options: string[] = [];
  for (const f of spec.fields) {
    if (!deepEqual(g[f.field], b[f.field])) options.push(option(f, g[f.field]));
  }
  if (spec.group === 'clock' && !deepEqual(g.jumps, b.jumps)) {
    const jumps = g.jumps as Array<{ atMs: number; byMs: number }>;
    options.push(
      `jumps=${jumps.map((j) => `${formatDuration(j.byMs)}@${formatDuration(j.atMs)}`).join(';')}`,
    );
  }
  const head = formatValue(spec.head.type, g[spec.head.field]);
  return options.length === 0 ? head : `${head}:${options.join(',')}`;
}

/**
 * The query string (without `?`) for a valid config: `v=1` and every part that differs from the
 * version's defaults. Canonical: equal configs give equal text, and `decodeConfig` gives back a
 * config deep-equal to `config`. A config with very long lists can give a link longer than
 * MAX_LINK_LENGTH, which `decodeConfig` refuses; check with `linkFits`.
 */
export function encodeConfig(config: PlaygroundConfig): string {
  const base = DEFAULTS.config;
  const parts: string[] = [`v=${CONFIG_VERSION}`];
  const put = (param: string, value: string): void => {
    parts.push(value === '' ? param : `${param}=${encodeValue(value)}`);
  };
  if (!deepEqual(config.limiters, base.limiters)) {
    for (const entry of config.limiters) put('l', encodeLimiter(entry));
  }
  const sources = config.scenario.sources;
  if (!deepEqual(sources, base.scenario.sources)) {
    if (sources.length === 0) put('src', 'none');
    for (const source of sources) put('src', encodeSource(source));
  }
  for (const spec of GROUPS) {
    const text = encodeGroup(spec, config.scenario[spec.group], base.scenario[spec.group]);
    if (text !== null) put(spec.param, text);
  }
  for (const single of SINGLES) {
    const value = valueAt(config, single.path);
    if (value === valueAt(base, single.path)) continue;
    if (single.spec.type === 'flag') put(single.param, value === true ? '' : 'false');
    else put(single.param, formatValue(single.spec.type, value));
  }
  const binMs = config.scenario.metrics.binMs;
  if (binMs !== base.scenario.metrics.binMs) {
    put('bin', binMs === undefined ? 'auto' : formatDuration(binMs));
  }
  const sel = config.view.selected;
  if (!deepEqual(sel, base.view.selected)) {
    put('sel', sel === null ? 'none' : `${sel.lane}:${sel.row}`);
  }
  return parts.join('&');
}

/** Whether a link text is short enough to be read (MAX_LINK_LENGTH). */
export function linkFits(query: string): boolean {
  return stripQuery(query).length <= MAX_LINK_LENGTH;
}

function valueAt(root: unknown, path: readonly string[]): unknown {
  let node = root;
  for (const key of path) node = (node as Record<string, unknown>)[key];
  return node;
}

// ---------------------------------------------------------------------------------------------
// Decoding: text → candidate config (with where each value came from)
// ---------------------------------------------------------------------------------------------

/** Where a config part came from in the link. */
interface Origin {
  /** E.g. 'l[1] burst'. */
  param: string;
  /** The text found there; undefined when the part was missing. */
  text: string | undefined;
  /** True when the value is the version's default (the link left it out). */
  implied?: boolean;
  /** The rule as the link writes it, when it differs from the schema's. */
  rule?: string;
}

type Raw = Record<string, unknown>;

/** Splits `head:opt,opt` into the head and `key[=value]` options, in order. */
function splitValue(text: string): { head: string; options: Array<[string, string | undefined]> } {
  const colon = text.indexOf(':');
  const head = colon < 0 ? text : text.slice(0, colon);
  const rest = colon < 0 ? '' : text.slice(colon + 1);
  const options: Array<[string, string | undefined]> = [];
  for (const part of rest.split(',')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    options.push(eq < 0 ? [part, undefined] : [part.slice(0, eq), part.slice(eq + 1)]);
  }
  return { head, options };
}

class Reader {
  readonly origins = new Map<string, Origin>();
  readonly errors: ConfigError[] = [];

  constructor(readonly defaults: VersionDefaults) {}

  error(param: string, message: string, path = ''): void {
    this.errors.push({ path, param, message: `${param === '' ? 'link' : param}: ${message}` });
  }

  origin(path: readonly PathKey[], origin: Origin): void {
    this.origins.set(path.join('.'), origin);
  }

  /**
   * The options of one `key=value,…` list into `target` by `specs`: known keys parsed, unknown and
   * repeated keys reported; each required field absent gets its implied value or stays missing
   * (undefined, so the check names its rule).
   */
  readOptions(
    options: ReadonlyArray<[string, string | undefined]>,
    specs: readonly FieldSpec[],
    target: Raw,
    path: readonly PathKey[],
    param: string,
    what: string,
    extraKeys: readonly string[] = [],
  ): Map<string, string | undefined> {
    const byKey = new Map(specs.map((s) => [s.key, s]));
    const seen = new Map<string, string | undefined>();
    for (const [key, text] of options) {
      if (seen.has(key)) {
        this.error(param, `option ${quoteText(key)} given more than once; used the first`);
        continue;
      }
      if (!byKey.has(key) && !extraKeys.includes(key)) {
        const known = [...specs.map((s) => s.key), ...extraKeys].join(', ');
        this.error(
          param,
          `unknown option ${quoteText(key)} for ${what} (known: ${known}); ignored`,
        );
        continue;
      }
      seen.set(key, text);
    }
    for (const spec of specs) {
      const fieldPath = [...path, spec.field];
      const place = `${param} ${spec.key}`;
      const rule = spec.rule === undefined ? {} : { rule: spec.rule };
      if (seen.has(spec.key)) {
        const text = seen.get(spec.key);
        target[spec.field] =
          text === undefined && spec.type === 'flag' ? true : parseValue(spec.type, text ?? '');
        this.origin(fieldPath, { param: place, text: text ?? '', ...rule });
      } else if (spec.implied !== undefined) {
        target[spec.field] = spec.implied;
        this.origin(fieldPath, {
          param: place,
          text: formatValue(spec.type, spec.implied),
          implied: true,
        });
      } else if (!spec.optional) {
        target[spec.field] = undefined;
        this.origin(fieldPath, { param: place, text: undefined, ...rule });
      }
    }
    return seen;
  }

  limiter(text: string, i: number): Raw {
    const param = `l[${i}]`;
    const path = ['limiters', i];
    this.origin(path, { param, text });
    const { head, options } = splitValue(text);
    const kind = KIND_BY_NAME.get(head);
    if (kind === undefined) {
      this.origin([...path, 'config', 'kind'], {
        param,
        text: head,
        rule: `must start with an algorithm: ${LIMITER_NAMES}`,
      });
      return { config: { kind: head } };
    }
    const spec = LIMITER_URL[kind];
    const config: Raw = { kind };
    const entry: Raw = { config };
    const extra = kind === 'leaky-bucket' ? ['rate', 'delay', 'nodelay'] : [];
    const seen = this.readOptions(
      options,
      [NAME_FIELD, ...spec.fields],
      config,
      [...path, 'config'],
      param,
      spec.name,
      extra,
    );
    // The name lives on the entry, not in the algorithm's config.
    if ('name' in config) {
      entry.name = config.name;
      delete config.name;
      const o = this.origins.get([...path, 'config', 'name'].join('.'));
      if (o !== undefined) this.origin([...path, 'name'], o);
    }
    if (kind === 'leaky-bucket') this.nginx(seen, config, [...path, 'config'], param);
    return entry;
  }

  /** nginx's `rate=10r/s` and `delay=N` / `nodelay`. */
  nginx(seen: Map<string, string | undefined>, config: Raw, path: PathKey[], param: string): void {
    const rateText = seen.get('rate');
    const m = rateText === undefined ? null : /^(\d{1,16})(r\/s|r\/m)$/.exec(rateText);
    if (m !== null) {
      config.rate = Number(m[1]);
      config.rateUnit = m[2];
    } else {
      config.rate = rateText;
      config.rateUnit = undefined;
    }
    const rateOrigin = { param: `${param} rate`, text: rateText, rule: NGINX_RATE_RULE };
    this.origin([...path, 'rate'], rateOrigin);
    this.origin([...path, 'rateUnit'], rateOrigin);
    const delayText = seen.get('delay');
    const delayOrigin = { param: `${param} delay`, text: delayText, rule: DELAY_RULE };
    if (seen.has('nodelay')) {
      const flag = seen.get('nodelay');
      if (delayText !== undefined) {
        this.error(param, 'both nodelay and delay given (nginx takes one); used nodelay');
      }
      config.delay = flag === undefined ? 'nodelay' : `nodelay=${flag}`;
      this.origin([...path, 'delay'], {
        param: `${param} nodelay`,
        text: flag === undefined ? 'nodelay' : `nodelay=${flag}`,
        rule: DELAY_RULE,
      });
    } else if (delayText !== undefined) {
      config.delay = parseValue('whole', delayText);
      this.origin([...path, 'delay'], delayOrigin);
    } else {
      config.delay = 0; // nginx: "By default, delay is zero, i.e. all excessive requests are delayed."
      this.origin([...path, 'delay'], { ...delayOrigin, text: '0', implied: true });
    }
  }

  source(text: string, i: number): Raw {
    const param = `src[${i}]`;
    const path = ['scenario', 'sources', i];
    this.origin(path, { param, text });
    const { head, options } = splitValue(text);
    if (!Object.hasOwn(SOURCE_URL, head)) {
      this.origin([...path, 'kind'], {
        param,
        text: head,
        rule: `must start with a traffic source: ${SOURCE_KIND_NAMES}`,
      });
      return { kind: head };
    }
    const kind = head as SourceKind;
    const source: Raw = { kind };
    const extra = kind === 'manual' ? ['times', 'lz'] : [];
    const seen = this.readOptions(options, SOURCE_URL[kind], source, path, param, kind, extra);
    if (kind === 'manual') this.manual(seen, source, path, param);
    return source;
  }

  manual(seen: Map<string, string | undefined>, source: Raw, path: PathKey[], param: string): void {
    const timesPath = [...path, 'timesMs'];
    let times: unknown[] = [];
    const packed = seen.get('lz');
    const readable = seen.get('times');
    if (seen.has('lz') && seen.has('times')) {
      this.error(param, 'both times and lz given; used times');
    }
    if (seen.has('times')) {
      const items = readable === undefined || readable === '' ? [] : readable.split(';');
      times = items.map((item, k) => {
        this.origin([...timesPath, k], { param: `${param} times[${k}]`, text: item });
        return parseDuration(item) ?? item;
      });
    } else if (seen.has('lz')) {
      const result = unpackTimes(packed ?? '');
      if (typeof result === 'string') this.error(`${param} lz`, `${result}; used no times`);
      else times = result;
    } else {
      this.error(param, 'a manual source needs times=… or lz=…; used no times');
    }
    if (times.length > MAX_MANUAL_TIMES) {
      this.error(
        `${param} times`,
        `must be a list of at most ${MAX_MANUAL_TIMES} times, got ${times.length} (kept the first ${MAX_MANUAL_TIMES})`,
      );
      times.length = MAX_MANUAL_TIMES;
    }
    source.timesMs = times;
    this.origin(timesPath, { param: `${param} times`, text: readable });
  }

  group(spec: GroupSpec, text: string | undefined, scenario: Raw): void {
    const base = this.defaults.config.scenario[spec.group] as unknown as Raw;
    const target: Raw = structuredClone(base);
    scenario[spec.group] = target;
    const path = ['scenario', spec.group];
    const param = spec.param;
    const fields = spec.fields.map((f) => ({ ...f, implied: base[f.field] }));
    if (text === undefined) {
      // Left out: the version's defaults, valid by themselves; cross-checks may still name them.
      for (const f of [spec.head, ...fields]) {
        this.origin([...path, f.field], {
          param: f.key === '' ? param : `${param} ${f.key}`,
          text: formatValue(f.type, base[f.field]),
          implied: true,
        });
      }
      return;
    }
    this.origin(path, { param, text });
    const { head, options } = splitValue(text);
    target[spec.head.field] = parseValue(spec.head.type, head);
    this.origin([...path, spec.head.field], { param, text: head });
    const extra = spec.group === 'clock' ? ['jumps'] : [];
    const seen = this.readOptions(options, fields, target, path, param, param, extra);
    if (spec.group === 'clock' && seen.has('jumps')) {
      const list = seen.get('jumps') ?? '';
      const items = list === '' ? [] : list.split(';');
      target.jumps = items.map((item, k) => {
        const at = item.lastIndexOf('@');
        const by = at < 0 ? item : item.slice(0, at);
        const when = at < 0 ? '' : item.slice(at + 1);
        const jumpPath = [...path, 'jumps', k];
        const jumpParam = `clock jumps[${k}]`;
        this.origin(jumpPath, { param: jumpParam, text: item });
        if (at < 0) {
          // No `@`: the whole item is wrong, whichever part the check meets first.
          const rule = 'must be by@at, two durations (e.g. -5s@10s)';
          this.origin([...jumpPath, 'byMs'], { param: jumpParam, text: item, rule });
          this.origin([...jumpPath, 'atMs'], { param: jumpParam, text: item, rule });
        } else {
          this.origin([...jumpPath, 'byMs'], { param: `${jumpParam} by`, text: by });
          this.origin([...jumpPath, 'atMs'], { param: `${jumpParam} at`, text: when });
        }
        return { byMs: parseDuration(by) ?? by, atMs: parseDuration(when) ?? when };
      });
    }
  }
}

/** The query part of a link, a `?search` or a bare query string. */
function stripQuery(text: string): string {
  const hash = text.indexOf('#');
  const noHash = hash < 0 ? text : text.slice(0, hash);
  const q = noHash.indexOf('?');
  return q < 0 ? noHash : noHash.slice(q + 1);
}

/** Reads `search` (a query string, with or without `?`, or a whole link). Never throws. */
export function decodeConfig(search: string): DecodeResult {
  const original = typeof search === 'string' ? search : String(search);
  try {
    return decode(original);
  } catch (error) {
    // Not expected (properties test it); a safety net so a page always opens.
    return {
      config: defaultConfig(),
      errors: [
        {
          path: '',
          param: '',
          message: `link: could not be read (${quoteText(String(error))}); loaded the default config`,
        },
      ],
      original,
      version: null,
    };
  }
}

function decode(original: string): DecodeResult {
  const query = stripQuery(original);
  if (query.length > MAX_LINK_LENGTH) {
    return {
      config: defaultConfig(),
      errors: [
        {
          path: '',
          param: '',
          message: `link: ${query.length} characters is longer than the ${MAX_LINK_LENGTH} a link may have; loaded the default config (the original link is kept to copy)`,
        },
      ],
      original,
      version: null,
    };
  }
  const params = [...new URLSearchParams(query)].filter(([key]) => !FOREIGN_PARAMS.includes(key));
  if (params.length === 0) return { config: defaultConfig(), errors: [], original, version: null };

  // The version first: it says which defaults the link left out.
  const vTexts = params.filter(([key]) => key === 'v').map(([, value]) => value);
  const preErrors: ConfigError[] = [];
  let version: number | null = null;
  let readAs = 1;
  if (vTexts.length > 0) {
    const text = vTexts[0] ?? '';
    const n = parseWhole(text);
    if (n !== null && n >= 1 && n <= CONFIG_VERSION) {
      version = n;
      readAs = n;
    } else if (n !== null && n > CONFIG_VERSION) {
      version = n;
      readAs = CONFIG_VERSION;
      preErrors.push({
        path: 'version',
        param: 'v',
        message: `v: this link was made by a newer version of Rate Limit Lab (v=${n}); this page reads up to v=${CONFIG_VERSION}, so parts it does not know were replaced by defaults`,
      });
    } else {
      readAs = CONFIG_VERSION;
      preErrors.push({
        path: 'version',
        param: 'v',
        message: `v: must be a version number from 1 to ${CONFIG_VERSION}, got ${quoteText(text)}; read as version ${CONFIG_VERSION}`,
      });
    }
  }
  const defaults = defaultsOf(readAs) ?? DEFAULTS;
  const reader = new Reader(defaults);
  reader.errors.push(...preErrors);
  if (vTexts.length > 1) reader.error('v', `given ${vTexts.length} times; used the first`);

  const raw = structuredClone(defaults.config) as unknown as Raw;
  const scenario = raw.scenario as Raw;
  const view = raw.view as Raw;
  const metrics = scenario.metrics as Raw;

  const singles = new Map<string, string>();
  const limiterTexts: string[] = [];
  const sourceTexts: string[] = [];
  for (const [key, value] of params) {
    if (key === 'v') continue;
    if (key === 'l') limiterTexts.push(value);
    else if (key === 'src') sourceTexts.push(value);
    else if (!KNOWN_PARAMS.has(key))
      reader.error('', `unknown parameter ${quoteText(key)}; ignored`);
    else if (singles.has(key)) {
      reader.error(
        key,
        `given more than once; used the first (${quoteText(singles.get(key) ?? '')})`,
      );
    } else singles.set(key, value);
  }

  if (limiterTexts.length > 0) {
    if (limiterTexts.length > MAX_LIMITERS) {
      reader.error(
        'l',
        `at most ${MAX_LIMITERS} limiters, got ${limiterTexts.length}; kept the first ${MAX_LIMITERS}`,
      );
    }
    raw.limiters = limiterTexts.slice(0, MAX_LIMITERS).map((text, i) => reader.limiter(text, i));
  }

  if (sourceTexts.length > 0) {
    const none = sourceTexts.indexOf('none');
    if (none >= 0 && sourceTexts.length > 1) {
      reader.error('src', '"none" cannot be combined with other sources; ignored it');
    }
    const texts = sourceTexts.filter((t) => t !== 'none');
    if (texts.length > MAX_SOURCES) {
      reader.error(
        'src',
        `at most ${MAX_SOURCES} traffic sources, got ${texts.length}; kept the first ${MAX_SOURCES}`,
      );
    }
    scenario.sources = texts.slice(0, MAX_SOURCES).map((text, i) => reader.source(text, i));
  }

  for (const spec of GROUPS) reader.group(spec, singles.get(spec.param), scenario);

  for (const single of SINGLES) {
    const text = singles.get(single.param);
    const target =
      single.path[0] === 'scenario' ? (single.path[1] === 'metrics' ? metrics : scenario) : view;
    const field = single.path[single.path.length - 1] as string;
    if (text === undefined) {
      reader.origin(single.path, {
        param: single.param,
        text: formatValue(single.spec.type, target[field]),
        implied: true,
      });
      continue;
    }
    // URLSearchParams gives '' for both `paused` and `paused=`: both mean the flag is set.
    target[field] =
      single.spec.type === 'flag' && text === '' ? true : parseValue(single.spec.type, text);
    reader.origin(single.path, { param: single.param, text });
  }

  const bin = singles.get('bin');
  if (bin !== undefined) {
    if (bin === 'auto') delete metrics.binMs;
    else metrics.binMs = parseValue('duration', bin);
    reader.origin(['scenario', 'metrics', 'binMs'], { param: 'bin', text: bin });
  }

  const sel = singles.get('sel');
  if (sel !== undefined) {
    const m = /^([^:]*):(.*)$/.exec(sel);
    const selRule = 'must be lane:row (two whole numbers, e.g. 0:12) or none';
    if (sel === 'none') view.selected = null;
    else if (m === null) view.selected = sel;
    else {
      view.selected = {
        lane: parseValue('whole', m[1] ?? ''),
        row: parseValue('whole', m[2] ?? ''),
      };
      reader.origin(['view', 'selected', 'lane'], { param: 'sel lane', text: m[1] });
      reader.origin(['view', 'selected', 'row'], { param: 'sel row', text: m[2] });
    }
    reader.origin(['view', 'selected'], { param: 'sel', text: sel, rule: selRule });
  }

  const migrated = version !== null && version < CONFIG_VERSION ? migrate(version, raw) : null;
  for (const failure of migrated?.failed ?? []) reader.error('v', failure);

  const repaired = repairConfig(migrated === null ? raw : migrated.config, DEFAULTS.config);
  const errors = [...reader.errors];
  const seenParams = new Set(errors.map((e) => e.param));
  for (const issue of repaired.issues) {
    const error = describeIssue(issue, reader.origins);
    // One message per link part: rate and rateUnit both come from `rate=`.
    if (error.param !== '' && seenParams.has(error.param)) continue;
    seenParams.add(error.param);
    errors.push(error);
  }
  return { config: repaired.config, errors: capErrors(errors), original, version };
}

/** The origin of a config part, or of the nearest part holding it. */
function originOf(
  path: readonly PathKey[],
  origins: ReadonlyMap<string, Origin>,
): Origin | undefined {
  for (let n = path.length; n > 0; n -= 1) {
    const found = origins.get(path.slice(0, n).join('.'));
    if (found !== undefined) return found;
  }
  return undefined;
}

function configPath(path: readonly PathKey[]): string {
  let out = '';
  for (const key of path)
    out += typeof key === 'number' ? `[${key}]` : out === '' ? key : `.${key}`;
  return out;
}

function describeIssue(issue: RepairIssue, origins: ReadonlyMap<string, Origin>): ConfigError {
  const origin = originOf(issue.path, origins);
  const exact = origins.has(issue.path.join('.'));
  const param = origin?.param ?? configPath(issue.path);
  const rule = exact && origin?.rule !== undefined ? origin.rule : issue.message;
  const place = (path: readonly PathKey[]): string =>
    originOf(path, origins)?.param ?? configPath(path);
  const note = fixNote(issue, place);
  let message: string;
  if (origin !== undefined && exact && origin.text === undefined) {
    message = `${param}: missing (${rule})${note}`;
  } else if (origin !== undefined && exact) {
    const got =
      origin.implied === true ? `${origin.text ?? ''} (the default)` : quoteText(origin.text ?? '');
    message = `${param}: ${rule}, got ${got}${note}`;
  } else {
    message = `${param}: ${rule}${note}`;
  }
  return { path: configPath(issue.path), param, message };
}

function capErrors(errors: ConfigError[]): ConfigError[] {
  if (errors.length <= MAX_ERRORS) return errors;
  const kept = errors.slice(0, MAX_ERRORS - 1);
  kept.push({
    path: '',
    param: '',
    message: `link: ${errors.length - kept.length} more problems not listed`,
  });
  return kept;
}

// ---------------------------------------------------------------------------------------------
// Keys
// ---------------------------------------------------------------------------------------------

/** A string that is equal for two valid configs exactly when they are deep-equal (the link). */
export function configKey(config: PlaygroundConfig): string {
  return encodeConfig(config);
}

/** Whether two valid configs are the same. */
export function configsEqual(a: PlaygroundConfig, b: PlaygroundConfig): boolean {
  return deepEqual(a, b);
}

/**
 * A key for what the simulation depends on (limiters, scenario, run length): two configs with the
 * same key give the same simulation result, whatever their time, selection or speed.
 */
export function runKey(config: PlaygroundConfig): string {
  const base = DEFAULTS.config.view;
  return encodeConfig({ ...config, view: { ...base, untilMs: config.view.untilMs } });
}

/** The limiter list as `simulate` takes it: names attached where given. */
export function simLimiters(
  config: PlaygroundConfig,
): Array<AlgorithmConfig | { name: string; config: AlgorithmConfig }> {
  return config.limiters.map((l) =>
    l.name === undefined ? l.config : { name: l.name, config: l.config },
  );
}
