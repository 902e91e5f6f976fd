// Long file on purpose: decoding a link is one pass over its parameters with shared origin tracking
// for messages; splitting it would split that state.
/**
 * The URL codec: a PlaygroundConfig as a query string and back.
 *
 * Readable where it can be: one parameter per part, the reference systems' own names and units
 * (`l=nginx:rate=10r/s,burst=20,nodelay`, `l=envoy:max_tokens=10,fill_interval=1s`), durations with
 * units, and nothing that equals its version's default. Compact where it cannot be: a long list of
 * manual times is delta-coded and packed with lz-string. Versioned: `v=1` says which defaults and
 * which grammar the link was written with (defaults.ts, migrate.ts). The grammar itself, and
 * `URL_GRAMMAR` (a table of it), are in url-grammar.ts; writing is in url-encode.ts.
 *
 * Decoding never throws and never runs or renders anything from the link: every value is parsed
 * as plain text into a candidate config, then `repairConfig` keeps its valid parts and replaces
 * each invalid one by its default, and each problem becomes one message that names the parameter,
 * the rule and the value found.
 */
import { DEFAULTS, defaultConfig, defaultsOf } from './defaults';
import type { VersionDefaults } from './defaults';
import { plural } from '../core';
import { parseDuration, parseWhole, quoteText } from './format';
import { migrate } from './migrate';
import { decodeFleet } from './url-fleet';
import { fixNote, repairConfig } from './repair';
import type { PathKey, RepairIssue } from './repair';
import { CONFIG_VERSION, MAX_LIMITERS } from './schema';
import type { LimiterEntry, PlaygroundConfig, SourceKind } from './schema';
import { MAX_MANUAL_TIMES, MAX_SOURCES } from '../sim';
import {
  DEFAULT_SYSTEM,
  cloudflarePeriodOk,
  deriveConfig,
  isDefaultSystem,
  systemOf,
} from '../systems';
import {
  DELAY_RULE,
  FOREIGN_PARAMS,
  GROUPS,
  KIND_BY_NAME,
  KNOWN_PARAMS,
  LIMITER_NAMES,
  LIMITER_URL,
  MAX_LINK_LENGTH,
  NAME_FIELD,
  NGINX_RATE_RULE,
  SINGLES,
  SINGLE_PATHS,
  SOURCE_KIND_NAMES,
  SOURCE_URL,
  STD_HEADERS_FIELD,
  SYSTEM_URL,
  formatValue,
  parseValue,
  sourceSpecs,
  stripQuery,
  unpackTimes,
} from './url-grammar';
import type { FieldSpec, GroupSpec } from './url-grammar';

// ---------------------------------------------------------------------------------------------
// Limits
// ---------------------------------------------------------------------------------------------

/** Messages listed per link; further problems are summed up in one last message. */
export const MAX_ERRORS = 50;

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

/** The origin of item k of a long list (and of the parts inside it), found only when asked for. */
type ItemOrigin = (k: number, inner: readonly PathKey[]) => Origin | undefined;

/**
 * Where each config part came from. Items of the long lists (manual times, clock jumps: thousands)
 * are not stored one by one: their list keeps a function that finds an item's origin when a
 * message needs it, so reading a list costs one entry, not three per item.
 */
class Origins {
  private readonly exact = new Map<string, Origin>();
  private readonly lists = new Map<string, ItemOrigin>();

  set(path: readonly PathKey[], origin: Origin): void {
    this.exact.set(path.join('.'), origin);
  }

  list(path: readonly PathKey[], find: ItemOrigin): void {
    this.lists.set(path.join('.'), find);
  }

  /** The origin of exactly this part. */
  get(path: readonly PathKey[]): Origin | undefined {
    const found = this.exact.get(path.join('.'));
    if (found !== undefined) return found;
    for (let n = path.length - 1; n > 0; n -= 1) {
      const k = path[n];
      if (typeof k !== 'number') continue;
      const find = this.lists.get(path.slice(0, n).join('.'));
      if (find !== undefined) return find(k, path.slice(n + 1));
    }
    return undefined;
  }

  /** The paths stored one by one, in the order they were read. */
  keys(): IterableIterator<string> {
    return this.exact.keys();
  }
}

class Reader {
  readonly origins = new Origins();
  readonly errors: ConfigError[] = [];

  constructor(readonly defaults: VersionDefaults) {}

  error(param: string, message: string, path = ''): void {
    this.errors.push({ path, param, message: `${param === '' ? 'link' : param}: ${message}` });
  }

  origin(path: readonly PathKey[], origin: Origin): void {
    this.origins.set(path, origin);
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
    const aliases = new Map(
      specs.flatMap((s) => (s.alias === undefined ? [] : [[s.alias, s.key]])),
    );
    const seen = new Map<string, string | undefined>();
    /** Keys given under their alias (an offset is not applied to them). */
    const byAlias = new Set<string>();
    for (const [given, text] of options) {
      const key = aliases.get(given) ?? given;
      if (seen.has(key)) {
        this.error(
          param,
          `option ${quoteText(key)} given more than once; used the first`,
          configPath(path),
        );
        continue;
      }
      if (!byKey.has(key) && !extraKeys.includes(key)) {
        const known = [
          ...specs.filter((s) => s.legacy !== true).map((s) => s.key),
          ...extraKeys,
        ].join(', ');
        this.error(
          param,
          `unknown option ${quoteText(key)} for ${what} (known: ${known}); ignored`,
          configPath(path),
        );
        continue;
      }
      seen.set(key, text);
      if (key !== given) byAlias.add(key);
    }
    for (const spec of specs) {
      const fieldPath = [...path, spec.field];
      const place = `${param} ${spec.key}`;
      const rule = spec.rule === undefined ? {} : { rule: spec.rule };
      if (seen.has(spec.key)) {
        const text = seen.get(spec.key);
        const value =
          text === undefined && spec.type === 'flag' ? true : parseValue(spec.type, text ?? '');
        target[spec.field] =
          typeof value === 'number' && spec.offset !== undefined && !byAlias.has(spec.key)
            ? value + spec.offset
            : value;
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
    const sys = SYSTEM_URL.get(head);
    const kind = sys?.system.kind ?? KIND_BY_NAME.get(head);
    if (kind === undefined) {
      this.origin([...path, 'config', 'kind'], {
        param,
        text: head,
        rule: `must start with an algorithm: ${LIMITER_NAMES}`,
      });
      return { config: { kind: head } };
    }
    const spec = sys === undefined ? LIMITER_URL[kind] : { name: head, fields: sys.fields };
    const config: Raw = { kind };
    const entry: Raw = { config };
    if (sys !== undefined) entry.system = sys.system.id;
    // Fields the system always has (HAProxy's per-entry counter), so the link validates as one.
    if (sys?.system.fixedFields !== undefined) Object.assign(config, sys.system.fixedFields);
    const nginx = kind === 'leaky-bucket' && sys === undefined;
    const extra = nginx ? ['rate', 'delay', 'nodelay'] : [];
    if (nginx) {
      // `rate=` comes first in nginx's own order: keep its messages first (see nginx()).
      this.origin([...path, 'config', 'rate'], { param: `${param} rate`, text: undefined });
    }
    const seen = this.readOptions(
      options,
      [NAME_FIELD, ...spec.fields, STD_HEADERS_FIELD],
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
      const o = this.origins.get([...path, 'config', 'name']);
      if (o !== undefined) this.origin([...path, 'name'], o);
    }
    // So is the standard-headers flag.
    if ('standardHeaders' in config) {
      if (config.standardHeaders === true) entry.standardHeaders = true;
      else if (config.standardHeaders !== false) entry.standardHeaders = config.standardHeaders;
      delete config.standardHeaders;
      const o = this.origins.get([...path, 'config', 'standardHeaders']);
      if (o !== undefined) this.origin([...path, 'standardHeaders'], o);
    }
    if (nginx) this.nginx(seen, config, [...path, 'config'], param);
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
        this.error(
          param,
          'both nodelay and delay given (nginx takes one); used nodelay',
          configPath([...path, 'delay']),
        );
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
    const specs = sourceSpecs(kind, this.defaults);
    const seen = this.readOptions(options, specs, source, path, param, kind, extra);
    if (kind === 'manual') this.manual(seen, source, path, param);
    return source;
  }

  manual(seen: Map<string, string | undefined>, source: Raw, path: PathKey[], param: string): void {
    const timesPath = [...path, 'timesMs'];
    let times: unknown[] = [];
    const packed = seen.get('lz');
    const readable = seen.get('times');
    if (seen.has('lz') && seen.has('times')) {
      this.error(param, 'both times and lz given; used times', configPath(timesPath));
    }
    if (seen.has('times')) {
      const items = readable === undefined || readable === '' ? [] : readable.split(';');
      times = items.map((item) => parseDuration(item) ?? item);
      this.origins.list(timesPath, (k, inner) => {
        const item = items[k];
        if (item === undefined || inner.length > 0) return undefined;
        return { param: `${param} times[${k}]`, text: item };
      });
    } else if (seen.has('lz')) {
      const result = unpackTimes(packed ?? '');
      if (typeof result === 'string')
        this.error(`${param} lz`, `${result}; used no times`, configPath(timesPath));
      else times = result;
    } else {
      this.error(
        param,
        'a manual source needs times=… or lz=…; used no times',
        configPath(timesPath),
      );
    }
    if (times.length > MAX_MANUAL_TIMES) {
      this.error(
        `${param} times`,
        `must be a list of at most ${MAX_MANUAL_TIMES} times, got ${times.length} (kept the first ${MAX_MANUAL_TIMES})`,
        configPath(timesPath),
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
      target.jumps = items.map((item) => {
        const at = item.lastIndexOf('@');
        // No `@`: no time, so the check finds it missing, a problem of its own kind (the repair
        // groups items by the problem it finds first, and `at` is checked first).
        if (at < 0) return { byMs: parseDuration(item) ?? item };
        const by = item.slice(0, at);
        const when = item.slice(at + 1);
        return { byMs: parseDuration(by) ?? by, atMs: parseDuration(when) ?? when };
      });
      this.origins.list([...path, 'jumps'], (k, inner) => {
        const item = items[k];
        if (item === undefined) return undefined;
        const jumpParam = `clock jumps[${k}]`;
        const field = inner[0];
        if (inner.length === 0) return { param: jumpParam, text: item };
        if (inner.length > 1 || (field !== 'byMs' && field !== 'atMs')) return undefined;
        const at = item.lastIndexOf('@');
        // No `@`: the whole item is wrong, whichever part the check meets first.
        if (at < 0)
          return {
            param: jumpParam,
            text: item,
            rule: 'must be by@at, two durations (e.g. -5s@10s)',
          };
        return field === 'byMs'
          ? { param: `${jumpParam} by`, text: item.slice(0, at) }
          : { param: `${jumpParam} at`, text: item.slice(at + 1) };
      });
    }
  }
}

/** Reads `search` (a query string, with or without `?`, or a whole link). Never throws. */
export function decodeConfig(search: string): DecodeResult {
  let original = '';
  try {
    original = typeof search === 'string' ? search : String(search);
    return decode(original);
  } catch (error) {
    // Only a non-string argument whose toString throws gets here (properties test strings): a
    // safety net so a page always opens.
    const why = error instanceof Error ? error.name : 'an error';
    return {
      config: defaultConfig(),
      errors: [
        {
          path: '',
          param: '',
          message: `link: could not be read (${quoteText(why)}); loaded the default config`,
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
  if (vTexts.length > 1)
    reader.error('v', `given ${vTexts.length} times; used the first`, 'version');

  const raw = structuredClone(defaults.config) as unknown as Raw;
  const scenario = raw.scenario as Raw;
  const view = raw.view as Raw;
  const metrics = scenario.metrics as Raw;

  const singles = new Map<string, string>();
  const limiterTexts: string[] = [];
  const sourceTexts: string[] = [];
  // Where each part of the config sits in the link, to list its problems in link order.
  const position = new Map<string, number>();
  // Sources other than `none` so far: counted as they come (a filter per parameter was quadratic).
  let sourceCount = 0;
  for (const [index, [key, value]] of params.entries()) {
    if (key === 'v') continue;
    const place =
      key === 'l'
        ? `limiters.${limiterTexts.length}`
        : key === 'src'
          ? `scenario.sources.${sourceCount}`
          : SINGLE_PATHS.get(key);
    if (key === 'src' && value !== 'none') sourceCount += 1;
    if (place !== undefined && !position.has(place)) position.set(place, index);
    if (key === 'l') limiterTexts.push(value);
    else if (key === 'src') sourceTexts.push(value);
    else if (!KNOWN_PARAMS.has(key))
      reader.error('', `unknown parameter ${quoteText(key)}; ignored`);
    else if (singles.has(key)) {
      reader.error(
        key,
        `given more than once; used the first (${quoteText(singles.get(key) ?? '')})`,
        SINGLE_PATHS.get(key) ?? '',
      );
    } else singles.set(key, value);
  }

  if (limiterTexts.length > 0) {
    if (limiterTexts.length > MAX_LIMITERS) {
      reader.error(
        'l',
        `at most ${MAX_LIMITERS} limiters, got ${limiterTexts.length}; kept the first ${MAX_LIMITERS}`,
        'limiters',
      );
    }
    raw.limiters = limiterTexts.slice(0, MAX_LIMITERS).map((text, i) => reader.limiter(text, i));
  }

  if (sourceTexts.length > 0) {
    const none = sourceTexts.indexOf('none');
    if (none >= 0 && sourceTexts.length > 1) {
      reader.error(
        'src',
        '"none" cannot be combined with other sources; ignored it',
        'scenario.sources',
      );
    }
    const texts = sourceTexts.filter((t) => t !== 'none');
    if (texts.length > MAX_SOURCES) {
      reader.error(
        'src',
        `at most ${MAX_SOURCES} traffic sources, got ${texts.length}; kept the first ${MAX_SOURCES}`,
        'scenario.sources',
      );
    }
    scenario.sources = texts.slice(0, MAX_SOURCES).map((text, i) => reader.source(text, i));
  }

  for (const spec of GROUPS) reader.group(spec, singles.get(spec.param), scenario);
  // Fleet settings: absent = no fleet, as in links from before.
  const fleetText = singles.get('fleet');
  if (fleetText !== undefined) {
    const { fleet, unknown, origins } = decodeFleet(fleetText);
    for (const key of unknown)
      reader.error(
        'fleet',
        `has no option ${quoteText(key)}; ignored it`,
        'scenario.deployment.fleet',
      );
    (scenario.deployment as Record<string, unknown>).fleet = fleet;
    reader.origin(['scenario', 'deployment', 'fleet'], { param: 'fleet', text: fleetText });
    // Field by field: a bad option is named (`fleet outage`) and repaired alone (repair.ts).
    for (const o of origins)
      reader.origin(['scenario', 'deployment', 'fleet', ...o.path], {
        param: `fleet ${o.option}`,
        text: o.text,
      });
  }

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
  for (const failure of migrated?.failed ?? []) reader.error('v', failure, 'version');

  // `raw` is this function's own plain candidate (built above from the defaults' clone and parsed
  // text; no key comes from the link): repaired in place, without a copy. A migration's output is
  // copied as any other input.
  const repaired =
    migrated === null
      ? repairConfig(raw, DEFAULTS.config, true)
      : repairConfig(migrated.config, DEFAULTS.config);
  // A system's derived fields (Traefik's maxDelay) follow from its parameters as repaired.
  // The default system of its algorithm is then left unnamed (LimiterEntry.system), as the page
  // holds it: `l=kong:…` reopens as the entry the page had when it wrote it.
  // A system that would refuse the config (a Cloudflare period Cloudflare does not take) is not
  // named: the limiter opens as its algorithm's default system, with the same decisions, and a
  // message names the values the system takes.
  const refused: ConfigError[] = [];
  repaired.config.limiters = repaired.config.limiters.map((entry, i) => {
    if (entry.system === undefined) return legacySystem(entry);
    const { system: id, ...rest } = entry;
    const system = systemOf(entry);
    const config = deriveConfig(system, entry.config);
    const refusal = system.refuses?.(config);
    if (refusal !== undefined && refusal !== null) {
      const path: PathKey[] = ['limiters', i, 'config', refusal.field];
      const param = reader.origins.get(path)?.param ?? `l[${i}]`;
      // A field the link left out or wrote unreadably was filled in by the repair with the
      // algorithm's default, which the system may not take (Cloudflare has no 1 s period): it
      // takes the system's own default instead, and the limiter stays the system the link named.
      const filled = repaired.issues.some((issue) => configPath(issue.path) === configPath(path));
      const own = (system.defaultConfig as unknown as Record<string, number | undefined>)[
        refusal.field
      ];
      const withOwn =
        filled && own !== undefined
          ? deriveConfig(system, { ...config, [refusal.field]: own })
          : undefined;
      if (withOwn !== undefined && (system.refuses?.(withOwn) ?? null) === null) {
        const text = reader.origins.get(path)?.text;
        const label =
          system.params
            .find((p) => p.field === refusal.field)
            ?.choices?.find((c) => c.value === String(own))?.label ?? String(own);
        refused.push({
          path: configPath(path),
          param,
          message: `${param}: ${text === undefined ? 'missing' : `${quoteText(text)} unreadable`}; set to ${label}, ${system.name}'s default`,
        });
        return isDefaultSystem(id, withOwn.kind)
          ? { ...rest, config: withOwn }
          : { ...entry, config: withOwn };
      }
      const instead = DEFAULT_SYSTEM[config.kind];
      // When the default system refuses it too (express-rate-limit's windowMs 0), the field takes
      // that system's default value instead, and the message says which.
      const value = instead.refuses?.(config)
        ? (instead.defaultConfig as unknown as Record<string, number | undefined>)[refusal.field]
        : undefined;
      const fixed = value === undefined ? config : { ...config, [refusal.field]: value };
      const how =
        value === undefined
          ? `opened as ${instead.name}, which decides the same`
          : `set to ${String(value)}, ${instead.name}'s default`;
      refused.push({
        path: configPath(path),
        param,
        message: `${param}: ${refusal.message}; ${how}`,
      });
      return { ...rest, config: deriveConfig(instead, fixed) };
    }
    return isDefaultSystem(id, config.kind) ? { ...rest, config } : { ...entry, config };
  });
  const errors = [...reader.errors, ...refused];
  const seenParams = new Set(errors.map((e) => e.param));
  // Value problems in link order: by the parameter's place in the link, then by the order its
  // options were read (the grammar's order within a parameter).
  const readOrder = new Map([...reader.origins.keys()].map((key, i) => [key, i]));
  // Items of a long list have no read order of their own (see Origins): their index orders them.
  const rank = (issue: RepairIssue): [number, number, number] => {
    let where = params.length;
    let read = readOrder.size;
    let item = -1;
    for (let n = 1; n <= issue.path.length; n += 1) {
      const key = issue.path.slice(0, n).join('.');
      where = position.get(key) ?? where;
      read = readOrder.get(key) ?? read;
      const k = issue.path[n - 1];
      if (typeof k === 'number') item = k;
    }
    return [where, read, item];
  };
  const issues = repaired.issues
    .map((issue, i) => ({ issue, i, rank: rank(issue) }))
    .sort(
      (a, b) =>
        a.rank[0] - b.rank[0] || a.rank[1] - b.rank[1] || a.rank[2] - b.rank[2] || a.i - b.i,
    )
    .map((x) => x.issue);
  for (const issue of issues) {
    const error = describeIssue(issue, reader.origins);
    // One message per link part: rate and rateUnit both come from `rate=`.
    if (error.param !== '' && seenParams.has(error.param)) continue;
    seenParams.add(error.param);
    errors.push(error);
  }
  return { config: repaired.config, errors: capErrors(errors), original, version };
}

/**
 * A limiter a link wrote without a system. The sliding-window counter's head
 * (`l=sliding-window-counter:…`) stood for Cloudflare before the Redis two-window counter had a
 * head of its own: it opens as Cloudflare when Cloudflare takes its window as a period, else as
 * the Redis pattern (the algorithm's default system), with the same decisions either way.
 */
function legacySystem(entry: LimiterEntry): LimiterEntry {
  const c = entry.config;
  if (c.kind !== 'sliding-window-counter' || c.anchor === 'entry') return entry;
  return cloudflarePeriodOk(c.windowMs) ? { system: 'cloudflare', ...entry } : entry;
}

/** The origin of a config part, or of the nearest part holding it. */
function originOf(path: readonly PathKey[], origins: Origins): Origin | undefined {
  for (let n = path.length; n > 0; n -= 1) {
    const found = origins.get(path.slice(0, n));
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

function describeIssue(issue: RepairIssue, origins: Origins): ConfigError {
  const origin = originOf(issue.path, origins);
  const exact = origins.get(issue.path) !== undefined;
  const param = origin?.param ?? configPath(issue.path);
  const rule = exact && origin?.rule !== undefined ? origin.rule : issue.message;
  const place = (path: readonly PathKey[]): string =>
    originOf(path, origins)?.param ?? configPath(path);
  const note = fixNote(issue, place);
  let message: string;
  if (issue.fix === 'dropped') {
    // The message names the field, the value and why itself (repair.ts, dropLacking).
    message = `${param}: ${issue.message}`;
  } else if (origin !== undefined && exact && origin.text === undefined) {
    message = `${param}: missing (${rule})${note}`;
  } else if (origin !== undefined && exact) {
    const got =
      origin.implied === true ? `${origin.text ?? ''} (the default)` : quoteText(origin.text ?? '');
    message = `${param}: ${rule}, got ${got}${note}`;
  } else {
    // A part the link did not write (nothing of its own to quote): named, so the message says
    // which part it is about.
    const last = issue.path.at(-1);
    const part = origin !== undefined && typeof last === 'string' ? `${last} ` : '';
    message = `${param}: ${part}${rule}${note}`;
  }
  return { path: configPath(issue.path), param, message };
}

/**
 * At most MAX_ERRORS items: the first ones, then one made by `more` from how many more there were.
 */
function cap<T>(items: readonly T[], more: (n: number) => T): T[] {
  if (items.length <= MAX_ERRORS) return [...items];
  const kept = items.slice(0, MAX_ERRORS - 1);
  kept.push(more(items.length - kept.length));
  return kept;
}

/** The last line of a capped list of problems. */
function moreNote(n: number, where: string): string {
  return `${where}: and ${plural(n, 'more problem', 'more problems', String)} not listed`;
}

function capErrors(errors: ConfigError[]): ConfigError[] {
  return cap(errors, (n) => ({ path: '', param: '', message: moreNote(n, 'link') }));
}

/**
 * At most MAX_ERRORS messages: the first ones, then one line saying how many more there were. For
 * lists of problems made elsewhere (the saved settings), as `decodeConfig` caps its own.
 */
export function capMessages(messages: readonly string[], where: string): string[] {
  return cap(messages, (n) => moreNote(n, where));
}
