// Long file on purpose: repair walks the whole config once, part by part, keeping what is valid;
// the parts share the origin and grouping machinery that keeps it linear.
/**
 * Turning untrusted data into a valid PlaygroundConfig that keeps every valid part.
 *
 * The schema finds the problems; each invalid part is replaced by its default (the fallback
 * config's value at the same place when there is one, else the defaults of its kind), and the
 * check runs again, because some checks only run once the fields they compare are valid. A part
 * whose default still fails is replaced together with the part that holds it (a source by its
 * kind's default source, …, the whole config at last), so the loop always ends with a valid config.
 * Traffic sources of an unknown kind, clock jumps and manual times that fail are removed rather
 * than replaced: a made-up request is worse than a missing one. Lists that are too long keep their
 * first items.
 */
import * as v from 'valibot';
import { plural } from '../core';
import type { AlgorithmKind } from '../core';
import { DEFAULTS } from './defaults';
import { describeValue } from './format';
import { MAX_CLOCK_JUMPS, MAX_MANUAL_TIMES, MAX_SOURCES } from '../sim';
import { MAX_LIMITERS } from './schema';
import {
  ALGORITHM_SCHEMAS,
  ClockJumpSchema,
  LIMITERS_MESSAGE,
  ManualTimeSchema,
  PlaygroundConfigSchema,
  SOURCES_MESSAGE,
  isManualTime,
  listMessage,
  SOURCE_SCHEMAS,
} from './valibot-schema';
import type { PlaygroundConfig, SourceKind } from './schema';
import { systemOf } from '../systems';

export type PathKey = string | number;

/** One invalid part and what was done about it. */
export interface RepairIssue {
  /** Where, from the config's root, e.g. ['limiters', 1, 'config', 'burst']. */
  path: PathKey[];
  /** The rule it broke, e.g. "must be a whole number from 0 to 1000000". */
  message: string;
  /** The value found there (undefined when missing). */
  value: unknown;
  /** True when the part was missing rather than wrong. */
  missing: boolean;
  /**
   * What replaced it: 'default' (its default), 'removed', 'truncated' (the first items kept) or
   * 'related' (its default did not fit either, so `replacedPath` was replaced by its default: the
   * field it is checked against, or the part holding it), or 'dropped': a valid field the
   * limiter's system has no option for (SystemInfo.lacks), taken out; `message` then says it all.
   */
  fix: 'default' | 'removed' | 'truncated' | 'related' | 'dropped';
  /** For fix 'related' (and 'removed' of a holder): the part that was replaced. */
  replacedPath?: PathKey[];
  /** For fix 'truncated': how many items were kept. */
  kept?: number;
  /**
   * Further items of the same list with the same problem, each fixed the same way (removed): one
   * issue stands for them all, so a list of 10,000 bad items is one message, not 10,000.
   */
  repeats?: number;
}

export interface RepairResult {
  /** Always valid. */
  config: PlaygroundConfig;
  /** Empty when the input was valid. */
  issues: RepairIssue[];
}

/** Nesting deeper than this is not copied (a config is 5 levels deep). */
const MAX_DEPTH = 12;
/** Keys copied per object: a config object has at most 8. */
const MAX_KEYS = 64;
/** Items copied per list: one more than the longest list allowed, so "too long" is still seen. */
const MAX_ITEMS = 10_001;
/** Repair rounds before giving up on the input (each round fixes at least one part). */
const MAX_ROUNDS = 200;

/** Keys never copied from untrusted data (prototype pollution). */
const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

type Plain = Record<string, unknown>;

function isObject(value: unknown): value is Plain {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Values copied in all: the most a valid config holds (32 lists of 10,000 times) and room for every
 * other part. A saved record of a million nested lists is not copied (nor then walked) whole: past
 * this many values every further value reads as null, which the check then reports where it is.
 */
const MAX_VALUES = MAX_SOURCES * MAX_MANUAL_TIMES + 10_000;

/**
 * A copy of `value` made of plain objects, arrays and primitives only, bounded in depth, keys, items
 * and values in all, without prototype-polluting keys. Other objects (class instances, Maps,
 * Dates) become null, so nothing of theirs (getters, prototypes) is read; functions stay: the
 * schema rejects them.
 */
function toPlain(value: unknown): unknown {
  let left = MAX_VALUES;
  const copy = (node: unknown, depth: number): unknown => {
    if (typeof node !== 'object' || node === null) return node;
    if (depth >= MAX_DEPTH || left <= 0) return null;
    if (Array.isArray(node)) {
      const n = Math.min(node.length, MAX_ITEMS);
      // The items within the budget copied at once (the 10,000 numbers of a list of times: one
      // native copy, not 10,000 pushes), then the objects among them copied in their place.
      const kept = Math.max(0, Math.min(n, left));
      left -= n;
      const out: unknown[] = node.slice(0, kept);
      for (let i = 0; i < kept; i += 1) {
        const item: unknown = out[i];
        if (typeof item === 'object' && item !== null) out[i] = copy(item, depth + 1);
      }
      if (kept < n) out.length = n;
      out.fill(null, kept);
      return out;
    }
    const proto: unknown = Object.getPrototypeOf(node);
    if (proto !== Object.prototype && proto !== null) return null;
    const out: Plain = {};
    let n = 0;
    for (const key of Object.keys(node)) {
      if (FORBIDDEN_KEYS.has(key)) continue;
      if ((n += 1) > MAX_KEYS) break;
      left -= 1;
      out[key] = left < 0 ? null : copy((node as Plain)[key], depth + 1);
    }
    return out;
  };
  return copy(value, 0);
}

/** Fields a check compares with another field of the same part (schema.ts cross-checks). */
const CHECKED_AGAINST: ReadonlyMap<string, string> = new Map([
  ['endMs', 'startMs'],
  ['backoffCapMs', 'backoffBaseMs'],
  ['boundaryMs', 'spreadMs'],
]);

/** Marks a list item to remove once the round is over (indices stay put during a round). */
const REMOVE = Symbol('remove');
/** The default of an optional field: no value. */
const ABSENT = Symbol('absent');
/** No default here: replace the part that holds it. */
const ESCALATE = Symbol('escalate');
type Default = unknown;

function clone<T>(value: T): T {
  return structuredClone(value);
}

function own(obj: unknown, key: PathKey): boolean {
  return typeof obj === 'object' && obj !== null && Object.hasOwn(obj, key);
}

function at(root: unknown, path: readonly PathKey[]): unknown {
  let node = root;
  for (const key of path) {
    if (!own(node, key)) return undefined;
    node = (node as Record<PathKey, unknown>)[key];
  }
  return node;
}

function kindOf<K extends string>(value: unknown, kinds: Readonly<Record<K, unknown>>): K | null {
  const kind = isObject(value) ? value.kind : undefined;
  return typeof kind === 'string' && Object.hasOwn(kinds, kind) ? (kind as K) : null;
}

/** The default for the part at `path` of `working`, with `fallback` preferred where it fits. */
function defaultAt(
  path: readonly PathKey[],
  working: unknown,
  fallback: PlaygroundConfig,
): Default {
  const [a, b, c, d] = path;
  if (a === 'limiters' && path.length >= 2) {
    const i = b as number;
    const entry = at(working, ['limiters', i]);
    const config = isObject(entry) ? entry.config : undefined;
    const kind = kindOf<AlgorithmKind>(config, ALGORITHM_SCHEMAS);
    const fallbackEntry = fallback.limiters[i];
    const first = fallback.limiters[0] ?? DEFAULTS.config.limiters[0];
    if (path.length === 2) {
      if (fallbackEntry !== undefined) return clone(fallbackEntry);
      return { config: clone(kind === null ? first?.config : DEFAULTS.limiter[kind]) };
    }
    if (c === 'name' && path.length === 3) {
      return fallbackEntry?.name ?? ABSENT;
    }
    if (c === 'config') {
      if (kind === null) return path.length === 3 ? clone(first?.config) : ESCALATE;
      const source =
        fallbackEntry?.config.kind === kind ? fallbackEntry.config : DEFAULTS.limiter[kind];
      if (path.length === 3) return clone(source);
      if (path.length === 4)
        return own(source, d as string) ? clone(at(source, [d as string])) : ABSENT;
    }
    return ESCALATE;
  }
  if (a === 'scenario' && b === 'sources' && path.length >= 3) {
    const i = c as number;
    const kind = kindOf<SourceKind>(at(working, ['scenario', 'sources', i]), SOURCE_SCHEMAS);
    if (kind === null) return path.length === 3 ? REMOVE : ESCALATE;
    const fallbackSource = fallback.scenario.sources[i];
    const source = fallbackSource?.kind === kind ? fallbackSource : DEFAULTS.source[kind];
    if (path.length === 3) return clone(source);
    if (d === 'timesMs' && path.length === 5) return REMOVE;
    if (path.length === 4)
      return own(source, d as string) ? clone(at(source, [d as string])) : ABSENT;
    return ESCALATE;
  }
  if (a === 'scenario' && b === 'clock' && c === 'jumps' && path.length >= 4) {
    return path.length === 4 ? REMOVE : ESCALATE;
  }
  if (a === 'scenario' && b === 'deployment' && c === 'fleet' && path.length >= 4) {
    return fleetDefaultAt(path.slice(3), at(fallback, path));
  }
  // Elsewhere the fallback has the same shape: take its value at the same place.
  const parent = at(fallback, path.slice(0, -1));
  const last = path[path.length - 1] as PathKey;
  if (typeof parent !== 'object' || parent === null) return ESCALATE;
  return own(parent, last) ? clone(at(parent, [last])) : ABSENT;
}

/**
 * Field-by-field repair of a fleet: a bad field gives way on its own and the rest of the
 * fleet stays. A bad scale event or outage window is removed (a made-up one would be worse); bad
 * weights, service time or autoscaler are dropped (all replicas then weigh 1, hold requests 50 ms,
 * and nothing autoscales); a bad store field takes the store's default (1 ms away, no jitter, fail
 * open) or, if optional, goes. `rest` is the path inside the fleet; `fromFallback` the fallback
 * config's value at the same place, preferred when it has one.
 */
function fleetDefaultAt(rest: readonly PathKey[], fromFallback: unknown): Default {
  const [part, field, item] = rest;
  const isList = part === 'scale' || (part === 'store' && field === 'outages');
  if (fromFallback !== undefined && !(isList && rest.length >= (part === 'scale' ? 2 : 3)))
    return clone(fromFallback);
  if (rest.length === 1) return ABSENT;
  if (part === 'scale') return rest.length === 2 ? REMOVE : ESCALATE;
  if (part === 'service' && rest.length === 2) {
    const service: Plain = { kind: 'fixed', meanMs: 50 };
    return own(service, field as string) ? service[field as string] : ESCALATE;
  }
  if (part === 'store') {
    if (field === 'outages')
      return rest.length === 3 && typeof item === 'number' ? REMOVE : ESCALATE;
    if (rest.length !== 2) return ESCALATE;
    const store: Plain = { rttMs: 1, jitterMs: 0, outages: [], onDown: 'open' };
    return own(store, field as string) ? clone(store[field as string]) : ABSENT;
  }
  // A weight, an autoscaler field: the list or the autoscaler goes as a whole.
  return ESCALATE;
}

/**
 * Where the nearest existing part of `path` sits in a depth-first walk of `root`, as the position of
 * each key among its holder's keys (a part missing, such as a removed item, takes its holder's
 * place; the numbers of a list of times take their list's). Comparing two of these in order of
 * their positions is comparing their places in the walk, without walking the rest of `root`: a
 * garbage config of a million parts costs as much to order as a small one.
 */
function placeOf(root: unknown, path: readonly PathKey[]): number[] {
  const place: number[] = [];
  let node = root;
  for (let n = 0; n < path.length && n <= MAX_DEPTH; n += 1) {
    if (typeof node !== 'object' || node === null) break;
    const key = path[n] as PathKey;
    let index: number;
    if (Array.isArray(node)) {
      if (typeof key !== 'number' || !(key >= 0 && key < node.length)) break;
      const item: unknown = node[key];
      if (typeof item !== 'object' || item === null) break;
      index = key;
    } else {
      index = Object.keys(node).indexOf(String(key));
      if (index < 0) break;
    }
    place.push(index);
    node = (node as Record<PathKey, unknown>)[key];
  }
  return place;
}

/** Depth-first order of two places: key by key, a holder before the parts inside it. */
function comparePlaces(a: readonly number[], b: readonly number[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i += 1) {
    const d = (a[i] as number) - (b[i] as number);
    if (d !== 0) return d;
  }
  return a.length - b.length;
}

/** Sorts items by their path's place in `root`, then outer before inner, then as they came. */
function sortByOrder<T>(
  root: unknown,
  items: readonly T[],
  pathOf: (item: T) => readonly PathKey[],
): T[] {
  return items
    .map((item, i) => {
      const path = pathOf(item);
      return { item, i, place: placeOf(root, path), depth: path.length };
    })
    .sort((a, b) => comparePlaces(a.place, b.place) || a.depth - b.depth || a.i - b.i)
    .map((x) => x.item);
}

/** A path as one Map/Set key (NUL cannot appear in a schema key or an index). */
function pathKey(path: readonly PathKey[], length = path.length): string {
  let out = '';
  for (let n = 0; n < length; n += 1) out += `\u0000${String(path[n])}`;
  return out;
}

/** Whether `path` or a part holding it is in `handled`: depth² work, whatever the count. */
function insideHandled(handled: ReadonlySet<string>, path: readonly PathKey[]): boolean {
  for (let n = 0; n <= path.length; n += 1) if (handled.has(pathKey(path, n))) return true;
  return false;
}

/** The keys of a valibot issue's path. */
function keysOf(issue: v.BaseIssue<unknown>): PathKey[] {
  return (issue.path ?? []).map((item) => item.key as PathKey);
}

function samePath(a: readonly PathKey[], b: readonly PathKey[]): boolean {
  return a.length === b.length && a.every((key, i) => b[i] === key);
}

/** Removes the items marked REMOVE from a list, in place. */
function compact(list: unknown[]): void {
  let j = 0;
  for (let i = 0; i < list.length; i += 1) {
    const item: unknown = list[i];
    if (item === REMOVE) continue;
    list[j] = item;
    j += 1;
  }
  list.length = j;
}

// ---------------------------------------------------------------------------------------------
// Long lists: each item checked once, bad items removed and grouped, before the whole config
// ---------------------------------------------------------------------------------------------

/**
 * What checking one item found: its issues (null when it is valid) and, for a failing item, the
 * kind of problem it groups under (the rule and where in the item it failed).
 */
interface Verdict {
  issues: readonly v.BaseIssue<unknown>[] | null;
  kind: string;
}

/**
 * Long lists already checked, set aside while the whole config is checked round after round: each
 * empty list standing in the config for one (by identity) → the list it stands for.
 */
type SetAside = WeakMap<object, unknown[]>;

/**
 * Puts the lists set aside back into `output` (the schema's copy of `input`, same shape): where
 * `input` still holds a stand-in (its source was not replaced by a default), the output gets the
 * list. Sources are the only place lists are set aside.
 */
function putBack(input: unknown, output: PlaygroundConfig, set: SetAside): void {
  if (!isObject(input) || !isObject(input.scenario)) return;
  const sources = input.scenario.sources;
  if (!Array.isArray(sources)) return;
  sources.forEach((source: unknown, i) => {
    const stand = isObject(source) ? source.timesMs : undefined;
    const list = typeof stand === 'object' && stand !== null ? set.get(stand) : undefined;
    const out = output.scenario.sources[i];
    if (list !== undefined && out?.kind === 'manual') out.timesMs = list as number[];
  });
}

/** Primitive items checked so far, by value: a list of one bad value repeated is one check. */
type Verdicts = Map<unknown, Verdict>;

const VALID: Verdict = { issues: null, kind: '' };

/** The schema's verdict on one item, remembered for primitive items (one Map lookup per repeat). */
function itemVerdict(schema: v.GenericSchema, item: unknown, verdicts: Verdicts): Verdict {
  const primitive = typeof item !== 'object' || item === null;
  if (primitive) {
    const known = verdicts.get(item);
    if (known !== undefined) return known;
  }
  const result = v.safeParse(schema, item);
  let verdict = VALID;
  if (!result.success) {
    const first = result.issues[0];
    const missing = first?.path?.[first.path.length - 1]?.origin === 'key';
    const message = missing ? 'is missing' : (first?.message ?? '');
    const inner = first === undefined ? [] : keysOf(first);
    verdict = { issues: result.issues, kind: `${inner.join('\u0000')}\u0001${message}` };
  }
  // Bounded: a list has at most MAX_ITEMS items, so at most that many distinct values.
  if (primitive) verdicts.set(item, verdict);
  return verdict;
}

/** Cuts `list` to its first `max` items, with the issue the length check would report. */
function cut(
  list: unknown[],
  max: number,
  message: string,
  path: readonly PathKey[],
  issues: RepairIssue[],
): void {
  if (list.length <= max) return;
  issues.push({
    path: [...path],
    message,
    value: new Array<unknown>(list.length),
    missing: false,
    fix: 'truncated',
    kept: max,
  });
  list.length = max;
}

/**
 * Cuts one list to its first `max` items (as the length check would), checks each against
 * `schema` (or `valid`, which says exactly what the schema would, for the common valid item),
 * removes each failing item in the same pass, and records one issue per kind of problem (the rule
 * and where in the item it failed) at its first item, with `repeats` for the others. Linear in the
 * list: a primitive value already met (in `verdicts`, shared by lists of one schema) costs a Map
 * lookup, the same value as the item before a comparison.
 */
function sweepList(
  list: unknown[],
  schema: v.GenericSchema,
  max: number,
  what: string,
  path: readonly PathKey[],
  issues: RepairIssue[],
  verdicts: Verdicts,
  valid: (item: unknown) => boolean = () => false,
  failAlike = false,
): void {
  cut(list, max, listMessage(max, what), path, issues);
  const groups = new Map<string, RepairIssue>();
  // With `failAlike` (the schema gives every failing item the same first issue), the group of the
  // first failing item takes all the others: 10,000 distinct bad times (or objects), one check.
  let alikeGroup: RepairIssue | undefined;
  // The last failing primitive and its group: a run of one bad value repeated (10,000 × `-1`)
  // costs a comparison per item, not a Map lookup.
  let lastItem: unknown = REMOVE;
  let lastGroup: RepairIssue | undefined;
  // Valid items move up over the removed ones as the list is read: one pass, no marks to sweep.
  let kept = 0;
  for (let k = 0; k < list.length; k += 1) {
    const item: unknown = list[k];
    // `valid` says exactly what the schema would for the common case (a valid time): no run.
    if (valid(item)) {
      list[kept] = item;
      kept += 1;
      continue;
    }
    if (item === lastItem && lastGroup !== undefined) {
      lastGroup.repeats = (lastGroup.repeats ?? 0) + 1;
      continue;
    }
    const primitive = typeof item !== 'object' || item === null;
    if (alikeGroup !== undefined) {
      alikeGroup.repeats = (alikeGroup.repeats ?? 0) + 1;
      continue;
    }
    const { issues: found, kind } = itemVerdict(schema, item, verdicts);
    if (found === null) {
      list[kept] = item;
      kept += 1;
      continue;
    }
    const group = groups.get(kind);
    if (group !== undefined) {
      group.repeats = (group.repeats ?? 0) + 1;
      if (primitive) [lastItem, lastGroup] = [item, group];
      continue;
    }
    const first = found[0];
    if (first === undefined) continue;
    const inner = keysOf(first);
    const missing = first.path?.[first.path.length - 1]?.origin === 'key';
    const itemPath = [...path, k];
    const issue: RepairIssue = {
      path: [...itemPath, ...inner],
      message: missing ? 'is missing' : first.message,
      value: missing ? undefined : first.input,
      missing,
      fix: 'removed',
      ...(inner.length > 0 ? { replacedPath: itemPath } : {}),
    };
    groups.set(kind, issue);
    issues.push(issue);
    if (primitive) [lastItem, lastGroup] = [item, issue];
    if (failAlike) alikeGroup = issue;
  }
  list.length = kept;
}

/**
 * The long lists of a config (manual times, clock jumps: up to 10,000 items each) checked item by
 * item before the whole config is: each failing item is removed, as the repair loop would remove
 * it, but its problem is grouped with the same problem of other items, and the whole-config check
 * then meets only valid items. Without it, 10,000 bad items were 10,000 schema issues per round.
 */
function sweepLists(config: unknown, issues: RepairIssue[], set: SetAside): void {
  if (!isObject(config)) return;
  // The lists of parts, cut first as their length check would cut them: otherwise the first
  // whole-config check meets (and reports) every one of 10,001 saved limiters.
  if (Array.isArray(config.limiters))
    cut(config.limiters, MAX_LIMITERS, LIMITERS_MESSAGE, ['limiters'], issues);
  if (!isObject(config.scenario)) return;
  const { sources, clock } = config.scenario;
  if (Array.isArray(sources))
    cut(sources, MAX_SOURCES, SOURCES_MESSAGE, ['scenario', 'sources'], issues);
  if (Array.isArray(sources)) {
    // One verdict per distinct time for all the lists: each is checked by the same schema.
    const verdicts: Verdicts = new Map();
    sources.forEach((source: unknown, i) => {
      if (isObject(source) && source.kind === 'manual' && Array.isArray(source.timesMs)) {
        const path = ['scenario', 'sources', i, 'timesMs'];
        const times = source.timesMs as unknown[];
        sweepList(
          times,
          ManualTimeSchema,
          MAX_MANUAL_TIMES,
          'times',
          path,
          issues,
          verdicts,
          isManualTime,
          // duration(): a pipe of one message for every check, so every failing item (a number out
          // of range, a string, an object) fails first with that message at the item itself.
          true,
        );
        // Every time left is valid now: the whole-config check sees an empty list in its place
        // (nothing it checks depends on the times) and the list is put back afterwards.
        const stand = [] as unknown[];
        set.set(stand, times);
        source.timesMs = stand;
      }
    });
  }
  if (isObject(clock) && Array.isArray(clock.jumps)) {
    const path = ['scenario', 'clock', 'jumps'];
    sweepList(clock.jumps, ClockJumpSchema, MAX_CLOCK_JUMPS, 'jumps', path, issues, new Map());
  }
}

/**
 * A valid config from any value: its valid parts kept, each invalid part replaced by its default
 * (from `fallback` where it has the same part, else the defaults of the part's kind), with one
 * issue per replaced part. Never throws. `owned`: `input` is made of plain objects, arrays and
 * primitives only, by the caller, and nothing else holds it (decodeConfig's candidate): it is
 * repaired in place rather than copied first. Leave it false for anything from outside.
 */
export function repairConfig(
  input: unknown,
  fallback?: PlaygroundConfig,
  owned = false,
): RepairResult {
  const base = fallback !== undefined && isValid(fallback) ? fallback : DEFAULTS.config;
  try {
    return repair(input, base, owned);
  } catch (error) {
    // Only a hostile object (a Proxy, a throwing getter) gets here: toPlain reads it.
    return {
      config: clone(base),
      issues: [
        {
          path: [],
          message: `could not be read (${error instanceof Error ? error.name : 'an error'})`,
          value: undefined,
          missing: false,
          fix: 'default',
        },
      ],
    };
  }
}

function isValid(config: unknown): boolean {
  return v.safeParse(PlaygroundConfigSchema, config).success;
}

function repair(input: unknown, base: PlaygroundConfig, owned: boolean): RepairResult {
  // A candidate the caller built itself from plain parts (decodeConfig's) and gives away is
  // repaired in place: copying its 200,000 times was a pass of its own on opening a link.
  const root: { config: unknown } = { config: owned ? input : toPlain(input) };
  const issues: RepairIssue[] = [];
  const setAside: SetAside = new WeakMap();
  sweepLists(root.config, issues, setAside);
  // The first issue of each path, so a part that fails again is found without a scan of them all.
  const issueAt = new Map<string, RepairIssue>();
  // Parts already replaced by a default: if one fails again, its holder is replaced instead.
  const replacedObjects = new WeakSet<object>();
  const replacedLeaves = new WeakMap<object, Set<PathKey>>();

  for (let round = 0; round < MAX_ROUNDS; round += 1) {
    const result = v.safeParse(PlaygroundConfigSchema, root.config);
    if (result.success) {
      // Listed in the order of the config's parts, whatever round found them (the lists set aside
      // hold only numbers, which take their list's place: the order is the same without them).
      dropLacking(result.output, issues);
      const sorted = sortByOrder(result.output, issues, (i) => i.path);
      putBack(root.config, result.output, setAside);
      return { config: result.output, issues: sorted };
    }

    // In document order, so a part comes before the parts inside it; a part inside one already
    // handled this round waits for the next round.
    const found = sortByOrder(
      root.config,
      result.issues.map((issue) => ({ issue, path: keysOf(issue) })),
      (x) => x.path,
    );
    const handled = new Set<string>();
    const marked = new Set<unknown[]>();
    for (const { issue, path } of found) {
      if (insideHandled(handled, path)) continue;
      handled.add(pathKey(path));
      const missing = issue.path?.[issue.path.length - 1]?.origin === 'key';
      const record = (fix: RepairIssue['fix'], extra: Partial<RepairIssue> = {}): void => {
        const item: RepairIssue = {
          path,
          message: missing ? 'is missing' : issue.message,
          value: missing ? undefined : issue.input,
          missing,
          fix,
          ...extra,
        };
        issues.push(item);
        if (!issueAt.has(pathKey(path))) issueAt.set(pathKey(path), item);
      };

      // A list that is too long keeps its first items.
      const list = at(root, ['config', ...path]);
      if (issue.type === 'max_length' && Array.isArray(list)) {
        const max = issue.requirement as number;
        list.length = max;
        record('truncated', { kept: max });
        continue;
      }

      let target = path;
      for (;;) {
        if (target.length === 0) {
          root.config = clone(base);
          replacedObjects.add(root.config as object);
          break;
        }
        const last = target[target.length - 1] as PathKey;
        const holder = at(root, ['config', ...target.slice(0, -1)]);
        const current = at(holder, [last]);
        const tried =
          typeof current === 'object' && current !== null
            ? replacedObjects.has(current)
            : typeof holder === 'object' &&
              holder !== null &&
              replacedLeaves.get(holder)?.has(last) === true;
        // A field checked against another (end after start…) whose default still fails: reset
        // the other one before giving up on the part that holds both.
        const partner = tried && typeof last === 'string' ? CHECKED_AGAINST.get(last) : undefined;
        if (
          partner !== undefined &&
          typeof holder === 'object' &&
          holder !== null &&
          replacedLeaves.get(holder)?.has(partner) !== true
        ) {
          target = [...target.slice(0, -1), partner];
          continue;
        }
        const value =
          last === 'kind' || tried || typeof holder !== 'object' || holder === null
            ? ESCALATE
            : defaultAt(target, root.config, base);
        if (value === ESCALATE) {
          target = target.slice(0, -1);
          continue;
        }
        const h = holder as Record<PathKey, unknown>;
        if (value === ABSENT) {
          // Reflect.deleteProperty: the key is one of ours (the schema's), never a prototype key.
          Reflect.deleteProperty(h, last);
        } else {
          h[last] = value;
          if (value === REMOVE && Array.isArray(h)) marked.add(h);
        }
        if (typeof value === 'object' && value !== null) replacedObjects.add(value);
        else {
          const set = replacedLeaves.get(h) ?? new Set<PathKey>();
          set.add(last);
          replacedLeaves.set(h, set);
        }
        break;
      }
      // After an outer replacement, nothing inside it needs handling this round.
      handled.add(pathKey(target));
      const removed = target.length > 0 && at(root, ['config', ...target]) === REMOVE;
      const fix: RepairIssue['fix'] = removed
        ? 'removed'
        : samePath(target, path)
          ? 'default'
          : 'related';
      const extra = samePath(target, path) ? {} : { replacedPath: target };
      // A part whose default failed again: the first issue (with the value actually found)
      // stays, and says what finally replaced it.
      const earlier = issueAt.get(pathKey(path));
      if (earlier === undefined) record(fix, extra);
      else if (fix !== 'default') Object.assign(earlier, { fix }, extra);
    }
    // Only the lists an item was marked in: a walk of the whole input was a pass over a garbage
    // record of a million nested lists every round.
    for (const list of marked) compact(list);
  }
  return {
    config: clone(base),
    issues: [
      ...issues,
      {
        path: [],
        message: 'could not be repaired part by part',
        value: undefined,
        missing: false,
        fix: 'default',
      },
    ],
  };
}

/**
 * Takes out of each limiter's config the fields its system has no option for (SystemInfo.lacks:
 * Envoy's local_ratelimit never delays, so a `maxDelayMs` an older page wrote under Envoy goes),
 * each with an issue naming the field, the value and why; a value that asks for nothing the system
 * does not do (`neutral`, max_delay 0) is left as it is, the decisions being the system's. The config stays valid: every such field
 * is optional in the schema.
 */
function dropLacking(config: PlaygroundConfig, issues: RepairIssue[]): void {
  config.limiters.forEach((entry, i) => {
    const system = systemOf(entry);
    for (const lack of system.lacks ?? []) {
      const fields = entry.config as unknown as Record<string, unknown>;
      if (lack.always !== undefined) {
        // A behaviour the system always has: set, and said where it changes a decision.
        if (fields[lack.field] === lack.neutral) continue;
        const value = fields[lack.field];
        const matters = lack.always.matters(entry.config);
        fields[lack.field] = lack.neutral;
        if (!matters) continue;
        issues.push({
          path: ['limiters', i, 'config', lack.field],
          message: `${system.name} ${lack.why}; ${lack.always.changed}`,
          value,
          missing: value === undefined,
          fix: 'dropped',
        });
        continue;
      }
      if (!(lack.field in fields)) continue;
      const value = fields[lack.field];
      if (value === lack.neutral) continue;
      Reflect.deleteProperty(fields, lack.field);
      const shown = `${lack.key}=${String(value)}${lack.unit === undefined ? '' : ` ${lack.unit}`}`;
      const instead = lack.instead === undefined ? '' : ` — ${lack.instead}`;
      issues.push({
        path: ['limiters', i, 'config', lack.field],
        message: `${system.name} ${lack.why}; ${shown} was dropped${instead}`,
        value,
        missing: false,
        fix: 'dropped',
      });
    }
  });
}

/** "limiters[1].config.burst" for ['limiters', 1, 'config', 'burst']. */
export function formatPath(path: readonly PathKey[]): string {
  let out = '';
  for (const key of path)
    out += typeof key === 'number' ? `[${key}]` : out === '' ? key : `.${key}`;
  return out === '' ? 'config' : out;
}

/** A sentence for an issue: place, rule, value found, and what replaced it when not its default. */
export function formatRepairIssue(issue: RepairIssue, place = formatPath(issue.path)): string {
  if (issue.fix === 'dropped') return `${place}: ${issue.message}`;
  const got = issue.missing ? '' : `, got ${describeValue(issue.value)}`;
  return `${place}: ${issue.message}${got}${fixNote(issue)}`;
}

/** What replaced a part, when it was not simply its default. */
export function fixNote(issue: RepairIssue, place = formatPath): string {
  const n = issue.repeats ?? 0;
  const more =
    n === 0
      ? ''
      : `; the same for ${plural(n, 'more item', 'more items', String)} of this list (removed)`;
  return fixOnly(issue, place) + more;
}

function fixOnly(issue: RepairIssue, place: (path: readonly PathKey[]) => string): string {
  switch (issue.fix) {
    case 'removed': {
      const removed = issue.replacedPath ?? issue.path;
      const where = place(removed);
      return where === place(issue.path) ? ' (removed)' : ` (removed ${where})`;
    }
    case 'truncated':
      return ` (kept the first ${issue.kept ?? 0})`;
    case 'related':
      return ` (${issue.replacedPath?.length === 0 ? 'loaded the default config' : `replaced ${place(issue.replacedPath ?? [])} by its default`})`;
    default:
      return '';
  }
}

/**
 * `patch` laid over `base` (objects merged key by key, lists and values replaced), then repaired
 * with `base` as the fallback: every invalid part of the patch keeps base's value. For applying
 * edits or saved settings that may be stale or wrong.
 */
export function mergeValid(base: PlaygroundConfig, patch: unknown): RepairResult {
  return repairConfig(merge(toPlain(base), toPlain(patch)), base);
}

function merge(base: unknown, patch: unknown): unknown {
  if (patch === undefined) return base;
  if (!isObject(base) || !isObject(patch)) return patch;
  const out: Plain = { ...base };
  for (const [key, value] of Object.entries(patch)) out[key] = merge(base[key], value);
  return out;
}
