// Long file on purpose: the declarative table of every link parameter and option; a table reads
// best whole.
/**
 * The link grammar of version 1: the URL name of every config field, how each value is written
 * and read as text, and the packed form of long manual time lists. url-encode.ts writes links
 * with it and url.ts reads them.
 */
// lz-string is CommonJS whose exports Node's ESM loader cannot list: its default import (the whole
// object) is what works both in the bundle and in Node (the probe's command line runs this file).
import LZString from 'lz-string';
import type { AlgorithmKind } from '../core';
import { MAX_MANUAL_TIMES } from '../sim';
import {
  formatDecimal,
  formatDuration,
  parseDecimal,
  parseDuration,
  parseWhole,
  quoteText,
} from './format';
import type { SourceKind } from './schema';
import type { VersionDefaults } from './defaults';
import { SYSTEMS } from '../systems';
import type { SystemInfo, SystemParam } from '../systems';

// ---------------------------------------------------------------------------------------------
// Limits
// ---------------------------------------------------------------------------------------------

/**
 * The longest link text read, in characters (the query string without `?`). Longer links are not
 * read at all: the default config opens with a message saying so. Chat apps, proxies and servers
 * commonly cut URLs somewhere past 8,000 characters.
 */
export const MAX_LINK_LENGTH = 8000;
/** A manual time list is written readably while its text is at most this long, else packed. */
export const READABLE_TIMES_MAX = 100;
/** The longest text a packed list may unpack to (10,000 times in base 36 fit in 120,000). */
const MAX_UNPACKED = 200_000;
/** Parameters the page uses for itself (e.g. `?embed`): read by the UI, skipped here silently. */
export const FOREIGN_PARAMS: readonly string[] = ['embed', 'x', 'xv'];

// ---------------------------------------------------------------------------------------------
// Field tables: the URL name of each config field and how its value is written
// ---------------------------------------------------------------------------------------------

export type FieldType = 'whole' | 'duration' | 'decimal' | 'flag' | 'text' | 'rate';

export interface FieldSpec {
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
  /** An older name of the option, still read (links written before `key` was renamed). */
  alias?: string;
  /** Written as the value minus this under `key` (not under `alias`): SystemParam.urlOffset. */
  offset?: number;
  /**
   * A field the system does not have, read from links older pages wrote and not listed among the
   * known options: the repair drops it with a message (SystemInfo.lacks), so a config holds it only
   * at its neutral value (max_delay=0, Envoy's own), the one value still written.
   */
  legacy?: boolean;
}

export const NAME_FIELD: FieldSpec = { key: 'name', field: 'name', type: 'text', optional: true };

/** Limiters: the URL name of each kind and its options, in the order they are written. */
export const LIMITER_URL: Readonly<
  Record<AlgorithmKind, { name: string; fields: readonly FieldSpec[] }>
> = {
  'token-bucket': {
    name: 'envoy',
    fields: [
      { key: 'max_tokens', field: 'maxTokens', type: 'whole' },
      // envoy.type.v3.TokenBucket: "If not specified, defaults to a single token."
      { key: 'tokens_per_fill', field: 'tokensPerFill', type: 'whole', implied: 1 },
      { key: 'fill_interval', field: 'fillIntervalMs', type: 'duration' },
      { key: 'refill', field: 'refill', type: 'text', optional: true },
      // Envoy has no such option: read from links older pages wrote, and dropped by the repair
      // with a message saying so unless 0 (src/systems/envoy-local.ts `lacks`).
      { key: 'max_delay', field: 'maxDelayMs', type: 'duration', optional: true, legacy: true },
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
  // ---- Built for the gateways ----
  'anchored-window': {
    name: 'anchored-window',
    fields: [
      { key: 'limit', field: 'limit', type: 'whole' },
      { key: 'window', field: 'windowMs', type: 'duration' },
      { key: 'count_rejected', field: 'countRejected', type: 'flag', optional: true },
      { key: 'block', field: 'blockMs', type: 'duration', optional: true },
      { key: 'exec_evenly', field: 'execEvenly', type: 'flag', optional: true },
      {
        key: 'exec_evenly_min_delay',
        field: 'execEvenlyMinDelayMs',
        type: 'duration',
        optional: true,
      },
    ],
  },
  'calendar-windows': {
    name: 'calendar-windows',
    fields: [
      { key: 'second', field: 'second', type: 'whole', optional: true },
      { key: 'minute', field: 'minute', type: 'whole', optional: true },
      { key: 'hour', field: 'hour', type: 'whole', optional: true },
      { key: 'day', field: 'day', type: 'whole', optional: true },
      { key: 'month', field: 'month', type: 'whole', optional: true },
      { key: 'year', field: 'year', type: 'whole', optional: true },
      { key: 'align', field: 'align', type: 'text', optional: true },
      { key: 'count_rejected', field: 'countRejected', type: 'flag', optional: true },
      { key: 'counter_ttl', field: 'counterTtl', type: 'flag', optional: true },
      { key: 'shadow_mode', field: 'shadowMode', type: 'flag', optional: true },
    ],
  },
};

/** URL name → kind; the core's kind names are read too. */
export const KIND_BY_NAME: ReadonlyMap<string, AlgorithmKind> = new Map([
  ...(Object.entries(LIMITER_URL) as Array<[AlgorithmKind, { name: string }]>).map(
    ([kind, spec]) => [spec.name, kind] as const,
  ),
  ...(Object.keys(LIMITER_URL) as AlgorithmKind[]).map((kind) => [kind, kind] as const),
]);
// ---- Systems (src/systems) --------------------------------------------------------------------

/** `std_headers`: the limiter entry's "add standard rate-limit headers" flag (any limiter). */
export const STD_HEADERS_FIELD: FieldSpec = {
  key: 'std_headers',
  field: 'standardHeaders',
  type: 'flag',
  optional: true,
};

/** A system parameter as a link option. */
function systemField(p: SystemParam): FieldSpec {
  const type = p.url ?? (p.input === 'bool' ? 'flag' : p.input === 'choice' ? 'text' : 'whole');
  const spec: FieldSpec = { key: p.urlKey ?? p.key, field: p.field, type };
  if (p.urlKey !== undefined) spec.alias = p.key;
  if (p.urlOffset !== undefined) spec.offset = p.urlOffset;
  if (p.implied !== undefined) spec.implied = p.implied;
  if (p.optional !== undefined || p.absentMeans !== undefined) spec.optional = true;
  return spec;
}

/**
 * A behaviour the system always has, written as a flag its links have always carried (Kong's
 * `counter_ttl`): still written and read, so a link keeps saying it, though no form field sets it;
 * a link without it is given it by the repair, with a message where it changes a decision.
 */
function alwaysFields(sys: SystemInfo): FieldSpec[] {
  return (sys.lacks ?? [])
    .filter((l) => l.always !== undefined && l.neutral === true)
    .map((l) => ({ key: l.key, field: l.field, type: 'flag', optional: true }));
}

/**
 * Systems written under their own head and parameter names (`l=traefik:average=5,burst=10`):
 * every system but the six the algorithms' heads already stand for.
 */
export const SYSTEM_URL: ReadonlyMap<string, { system: SystemInfo; fields: readonly FieldSpec[] }> =
  new Map(
    SYSTEMS.filter((sys) => !KIND_BY_NAME.has(sys.urlName)).map((sys) => [
      sys.urlName,
      { system: sys, fields: [...sys.params.map(systemField), ...alwaysFields(sys)] },
    ]),
  );

export const LIMITER_NAMES = [
  ...Object.values(LIMITER_URL).map((s) => s.name),
  ...SYSTEM_URL.keys(),
].join(', ');

export const NGINX_RATE_RULE = 'must be N r/s or N r/m with N a whole number from 1 to 1000000';
export const DELAY_RULE = 'must be delay=N with N a whole number from 0 to 1000000, or nodelay';
const SOURCE_RATE_RULE =
  'must be N r/s or N r/m (requests per second or per minute) from 0.001 r/s to 100000 r/s';

const RATE: FieldSpec = { key: 'rate', field: 'ratePerSec', type: 'rate', rule: SOURCE_RATE_RULE };
const FROM: FieldSpec = { key: 'from', field: 'startMs', type: 'duration' };
const TO: FieldSpec = { key: 'to', field: 'endMs', type: 'duration' };
const CLIENT: FieldSpec = { key: 'client', field: 'client', type: 'whole', optional: true };
const SPREAD: FieldSpec = { key: 'spread', field: 'spreadMs', type: 'duration', optional: true };
const COUNT: FieldSpec = { key: 'count', field: 'count', type: 'whole' };

/** Traffic sources: options per kind, in the order they are written (manual `times` apart). */
export const SOURCE_URL: Readonly<Record<SourceKind, readonly FieldSpec[]>> = {
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
  // The trace's fingerprint, never its requests.
  trace: [
    { key: 'name', field: 'name', type: 'text' },
    { key: 'bytes', field: 'bytes', type: 'whole' },
    { key: 'requests', field: 'requests', type: 'whole' },
    { key: 'hash', field: 'hash', type: 'text' },
    { key: 'from', field: 'fromMs', type: 'duration', optional: true },
    { key: 'key', field: 'key', type: 'text', optional: true },
    { key: 'span_from', field: 'spanFromMs', type: 'whole', optional: true },
    { key: 'span_to', field: 'spanToMs', type: 'whole', optional: true },
  ],
};
export const SOURCE_KIND_NAMES = Object.keys(SOURCE_URL).join(', ');

/**
 * A source kind's options, each required one implied by the version's default source of that kind
 * when the link leaves it out (as the encoder does): `src=poisson:rate=3r/s` runs from 0 to the
 * default end. What is left out is what the encoder leaves out, so what opens re-encodes no longer.
 */
export function sourceSpecs(kind: SourceKind, defaults: VersionDefaults): FieldSpec[] {
  const base = defaults.source[kind] as unknown as Record<string, unknown>;
  return SOURCE_URL[kind].map((f) =>
    f.optional === true || base[f.field] === undefined ? f : { ...f, implied: base[f.field] },
  );
}

/** A scenario group written as `param=<head>:<option>=<value>,…`. */
export interface GroupSpec {
  param: string;
  group: 'clients' | 'retry' | 'deployment' | 'clock';
  head: FieldSpec;
  fields: readonly FieldSpec[];
}

export const GROUPS: readonly GroupSpec[] = [
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
export const SINGLES: ReadonlyArray<{ param: string; path: readonly string[]; spec: FieldSpec }> = [
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

/** The config path of each single-value parameter, for messages. */
export const SINGLE_PATHS: ReadonlyMap<string, string> = new Map([
  ...SINGLES.map((x) => [x.param, x.path.join('.')] as const),
  ...GROUPS.map((g) => [g.param, `scenario.${g.group}`] as const),
  ['bin', 'scenario.metrics.binMs'],
  ['sel', 'view.selected'],
  ['fleet', 'scenario.deployment.fleet'],
]);

/** Every parameter the codec reads, for the unknown-parameter message. */
export const KNOWN_PARAMS: ReadonlySet<string> = new Set([
  'v',
  'l',
  'src',
  'bin',
  'sel',
  'fleet',
  ...GROUPS.map((g) => g.param),
  ...SINGLES.map((s) => s.param),
]);

/**
 * The grammar, one line per parameter, for documentation and the UI's help. Durations: a number with `ms`, `s`,
 * `m` or `h` (none = ms). Lists inside a value are separated by `;`.
 */
export const URL_GRAMMAR: ReadonlyArray<readonly [param: string, form: string, meaning: string]> = [
  ['v', '1', 'link version (required; a link without it is read as version 1)'],
  ['l', `<kind>:<option>,…  (kind: ${LIMITER_NAMES})`, 'a limiter, repeated for 1–6 lanes'],
  [
    '',
    'envoy:max_tokens=N,tokens_per_fill=N,fill_interval=D[,refill=interval]',
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
  [
    '',
    'trace:name=F,bytes=N,requests=N,hash=H[,from=D][,key=K][,span_from=T,span_to=T]',
    'an access log replayed: its fingerprint only (drop the file to replay it), from D after its first request, keyed by K; of a file too large to hold, the span [T, T) in epoch ms it was read out of',
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
    'N[:state=local|shared-atomic|shared-racy|local-divided|layered,balancer=random|least-outstanding|hash|weighted,rtt=D]',
    'instances and where state lives',
  ],
  [
    'fleet',
    'weights=N;…,service=fixed|uniform|exponential:D,scale=N@D;…,autoscale=Nr/s:D:min-max[:offered],store_rtt=D,jitter=D,timeout=D,outage=D-D;…,down=open|closed|local,status=429|500,sync=D,cache',
    'replicas that come and go and the shared store (all optional)',
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

/**
 * Percent-encodes a value for a query string, keeping the readable characters. `( ) ! ' *` are
 * encoded too (encodeURIComponent keeps them): chat apps and Markdown end an auto-link at a `)`.
 */
export function encodeValue(text: string): string {
  let out = '';
  for (const ch of text) {
    if (SAFE.test(ch)) out += ch;
    else if (ch.length === 1 && ch.charCodeAt(0) < 0x80) {
      out += `%${ch.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`;
    } else {
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

export function formatValue(type: FieldType, value: unknown): string {
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
export function parseValue(type: FieldType, text: string): unknown {
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
export function option(spec: FieldSpec, value: unknown): string {
  if (spec.type === 'flag' && value === true) return spec.key;
  const written = typeof value === 'number' ? value - (spec.offset ?? 0) : value;
  return `${spec.key}=${formatValue(spec.type, written)}`;
}

// ---------------------------------------------------------------------------------------------
// Manual times: `times=0;150ms;1s` or `lz=<packed>`
// ---------------------------------------------------------------------------------------------

export function encodeTimes(timesMs: readonly number[]): string {
  const readable = `times=${timesMs.map(formatDuration).join(';')}`;
  if (readable.length <= READABLE_TIMES_MAX) return readable;
  // Deltas in base 36 pack well: regular clicking repeats the same few deltas.
  let prev = 0;
  const deltas = timesMs.map((t) => {
    const d = t - prev;
    prev = t;
    return d.toString(36);
  });
  const text = deltas.join(',');
  const packed = `lz=${LZString.compressToEncodedURIComponent(`${text}.${fnv1a(text).toString(36)}`)}`;
  // Packing can lose to plain text (times with no pattern): the shorter one, so the link of what a
  // link opened is never longer for its times.
  return packed.length < readable.length ? packed : readable;
}

/**
 * FNV-1a, 32 bits, of a string's UTF-16 units: the checksum after the packed deltas, so a packed
 * list that was cut short or changed is reported instead of read as a shorter or different list
 * (a cut lz-string stream often still unpacks, to a prefix).
 */
function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** Digits of a base-36 delta: at most 8 (36⁸ ms is 89 years), optionally after a `-`. */
const MAX_DELTA_DIGITS = 8;

/** The value of a base-36 digit's char code (0–9, a–z), or −1. */
function digit36(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 97 && code <= 122) return code - 87;
  return -1;
}

/**
 * The times of a packed list, or a sentence saying why they could not be read. One pass over the
 * unpacked text (no split, no per-item strings): a list of 10,000 bad times costs what reading
 * them costs, whatever they are.
 */
export function unpackTimes(packed: string): number[] | string {
  let text: string | null;
  try {
    // lz-string returns null or '' for a stream it cannot read (a cut-short link).
    text = LZString.decompressFromEncodedURIComponent(packed);
  } catch {
    text = null;
  }
  if (typeof text !== 'string' || text === '') {
    return 'could not be unpacked (the link may be cut short or changed)';
  }
  if (text.length > MAX_UNPACKED) {
    return `unpacks to ${text.length} characters, more than the ${MAX_UNPACKED} a list of ${MAX_MANUAL_TIMES} times needs`;
  }
  const dot = text.lastIndexOf('.');
  const body = text.slice(0, Math.max(0, dot));
  if (dot < 0 || fnv1a(body).toString(36) !== text.slice(dot + 1)) {
    return 'does not match its checksum (the link may be cut short or changed)';
  }
  const times: number[] = [];
  let t = 0;
  let start = 0;
  for (;;) {
    let end = body.indexOf(',', start);
    if (end < 0) end = body.length;
    // `-?[0-9a-z]{1,8}`, read as it is checked.
    const negative = body.charCodeAt(start) === 45;
    const first = negative ? start + 1 : start;
    let value = 0;
    let ok = end > first && end - first <= MAX_DELTA_DIGITS;
    for (let i = first; ok && i < end; i += 1) {
      const d = digit36(body.charCodeAt(i));
      if (d < 0) ok = false;
      else value = value * 36 + d;
    }
    if (!ok) {
      return `unpacks to something that is not a list of times (item ${times.length}: ${quoteText(body.slice(start, end))})`;
    }
    t += negative ? -value : value;
    times.push(t);
    if (end === body.length) break;
    start = end + 1;
  }
  return times;
}

/** The query part of a link, a `?search` or a bare query string. */
export function stripQuery(text: string): string {
  const hash = text.indexOf('#');
  const noHash = hash < 0 ? text : text.slice(0, hash);
  const q = noHash.indexOf('?');
  return q < 0 ? noHash : noHash.slice(q + 1);
}
