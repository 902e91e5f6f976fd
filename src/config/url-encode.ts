/** Writing a PlaygroundConfig as a link (the grammar is in url-grammar.ts). */
import type { TrafficSource } from '../sim';
import { DEFAULTS } from './defaults';
import { deepEqual } from './equal';
import { formatDuration } from './format';
import { CONFIG_VERSION } from './schema';
import type { LimiterEntry, PlaygroundConfig } from './schema';
import {
  GROUPS,
  LIMITER_URL,
  MAX_LINK_LENGTH,
  NAME_FIELD,
  SINGLES,
  STD_HEADERS_FIELD,
  SYSTEM_URL,
  encodeTimes,
  encodeValue,
  formatValue,
  option,
  sourceSpecs,
  stripQuery,
} from './url-grammar';
import type { GroupSpec } from './url-grammar';
import { encodeFleet } from './url-fleet';
import { DEFAULT_SYSTEM, cloudflarePeriodOk, systemOf } from '../systems';

// ---------------------------------------------------------------------------------------------
// Encoding
// ---------------------------------------------------------------------------------------------

function encodeLimiter(entry: LimiterEntry): string {
  const config = entry.config as unknown as Record<string, unknown>;
  const sys = systemOf(entry);
  // The algorithm's own head (`sliding-window-counter:`) opens as Cloudflare for a period
  // Cloudflare takes (url.ts, legacySystem): only then does the Redis pattern write its own head.
  const c = entry.config;
  const legacy =
    c.kind === 'sliding-window-counter' &&
    sys === DEFAULT_SYSTEM[c.kind] &&
    !cloudflarePeriodOk(c.windowMs);
  const own = legacy ? undefined : SYSTEM_URL.get(sys.urlName);
  const spec =
    own === undefined ? LIMITER_URL[entry.config.kind] : { name: sys.urlName, fields: own.fields };
  const options: string[] = [];
  if (entry.name !== undefined) options.push(option(NAME_FIELD, entry.name));
  if (entry.config.kind === 'leaky-bucket' && own === undefined) {
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
  if (entry.standardHeaders === true) options.push(STD_HEADERS_FIELD.key);
  return `${spec.name}:${options.join(',')}`;
}

function encodeSource(source: TrafficSource): string {
  const s = source as unknown as Record<string, unknown>;
  const options: string[] = [];
  if (source.kind === 'manual') options.push(encodeTimes(source.timesMs));
  // A required field equal to its kind's default is left out: the decoder implies it.
  for (const f of sourceSpecs(source.kind, DEFAULTS)) {
    const value = s[f.field];
    if (value === undefined || (f.implied !== undefined && value === f.implied)) continue;
    options.push(option(f, value));
  }
  return options.length === 0 ? source.kind : `${source.kind}:${options.join(',')}`;
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
  const fleet = config.scenario.deployment.fleet;
  if (fleet !== undefined) put('fleet', encodeFleet(fleet));
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
