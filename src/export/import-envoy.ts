/**
 * Pasted Envoy YAML -> a token-bucket config. Accepts a whole local_ratelimit filter, its
 * typed_config, a `token_bucket:` block, or just the bucket's fields; finds the first token_bucket
 * nearest the top (descriptors' own buckets are further down). Never throws.
 */
import type { Document, Node, Pair, YAMLMap } from 'yaml';
import { LineCounter, isAlias, isMap, isPair, isScalar, isSeq, parseDocument } from 'yaml';
import type { TokenBucketConfig } from '../core';
import { MAX_COUNT, MAX_DURATION_MS, quoteText } from '../core';
import { ENVOY_MIN_FILL_INTERVAL_MS } from './envoy';
import {
  MAX_IMPORT_ERRORS,
  capImportErrors,
  duplicateKey,
  parseQuietly,
  sizeProblem,
  yamlDepthProblem,
} from './import-limits';
import type { ImportError, ImportResult } from './types';

export interface EnvoyExtras {
  /** The filter's stat_prefix, when the snippet has one. */
  statPrefix?: string;
}

export interface EnvoyImportOptions {
  /**
   * The Envoy the snippet runs on: 'continuous' (default) for Envoy ≥ 1.31, 'interval' for the
   * older timer refill. The YAML is the same for both.
   */
  refill?: 'continuous' | 'interval';
}

const BUCKET_FIELDS = ['max_tokens', 'tokens_per_fill', 'fill_interval'] as const;

/** A protobuf Duration string: seconds with up to 9 fractional digits and an `s`. */
const DURATION = /^(-?)([0-9]+)(?:\.([0-9]{1,9}))?s$/;

function describe(value: unknown): string {
  if (typeof value === 'string') return quoteText(value);
  if (value === null || value === undefined) return 'nothing';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return Array.isArray(value) ? 'a list' : 'a mapping';
}

function keyName(pair: Pair): string | undefined {
  return isScalar(pair.key) ? String(pair.key.value) : undefined;
}

/** The first map, breadth first, that holds `token_bucket` (its value is the bucket) or a bucket field. */
function findBucket(
  root: Node | null,
): { bucket: YAMLMap; parent: YAMLMap | null; keyNode: Node | null } | undefined {
  const queue: unknown[] = [root];
  for (let i = 0; i < queue.length && i < 10_000; i += 1) {
    const node = queue[i];
    if (isMap(node)) {
      for (const pair of node.items) {
        if (keyName(pair) === 'token_bucket' && isMap(pair.value)) {
          return { bucket: pair.value, parent: node, keyNode: pair.key as Node };
        }
      }
      if (node.items.some((p) => (BUCKET_FIELDS as readonly string[]).includes(keyName(p) ?? ''))) {
        return { bucket: node, parent: null, keyNode: null };
      }
      for (const pair of node.items) queue.push(pair.value);
    } else if (isSeq(node)) {
      for (const item of node.items) queue.push(item);
    }
  }
  return undefined;
}

/** A scalar's value, through an alias if need be. */
function valueOf(node: unknown, doc: Document): unknown {
  const target = isAlias(node) ? node.resolve(doc) : node;
  if (isScalar(target)) return target.value;
  if (isMap(target)) return {};
  if (isSeq(target)) return [];
  return undefined;
}

/**
 * The token-bucket config in pasted Envoy YAML, or every error found, each with its line and
 * column. Never throws.
 */
export function importEnvoy(
  text: string,
  options: EnvoyImportOptions = {},
): ImportResult<EnvoyExtras> {
  const refused = sizeProblem(text) ?? yamlDepthProblem(text);
  if (refused !== null) return { ok: false, errors: [refused] };
  const lineCounter = new LineCounter();
  // The parser's own unique-key check compares every key with every other (quadratic: a flat
  // 64 kB mapping took a second): off, and `duplicateKey` below finds them with a set.
  const doc = parseQuietly(() =>
    parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: false }),
  );
  const pos = (offset: number | undefined): { line: number; column: number } => {
    const p = lineCounter.linePos(offset ?? 0);
    return { line: p.line, column: p.col };
  };
  const atNode = (node: unknown, message: string): ImportError => {
    const range = (node as { range?: [number, number, number] } | null)?.range;
    return { ...pos(range?.[0]), message };
  };
  if (doc.errors.length > 0) {
    // Only the errors listed are placed and worded; the rest are counted (capImportErrors).
    const listed = doc.errors.slice(0, MAX_IMPORT_ERRORS + 1).map((e) => ({
      ...pos(e.pos[0]),
      message: `expected valid YAML: ${e.message.split('\n')[0] ?? e.code}`,
    }));
    return { ok: false, errors: capImportErrors(listed, doc.errors.length) };
  }
  const duplicate = duplicateKey(doc.contents);
  if (duplicate !== null) {
    return {
      ok: false,
      errors: [
        atNode(
          duplicate.key,
          `expected valid YAML: map keys must be unique, got ${describe(duplicate.name)} twice`,
        ),
      ],
    };
  }
  const found = findBucket(doc.contents);
  if (found === undefined) {
    return {
      ok: false,
      errors: [
        {
          line: 1,
          column: 1,
          message: 'expected a token_bucket with max_tokens, tokens_per_fill and fill_interval',
        },
      ],
    };
  }
  const { bucket, parent, keyNode } = found;
  const errors: ImportError[] = [];
  const warnings: ImportError[] = [];
  const fields = new Map<string, Pair>();
  for (const pair of bucket.items) {
    const name = keyName(pair);
    if (name === undefined || !(BUCKET_FIELDS as readonly string[]).includes(name)) {
      errors.push(
        atNode(
          pair.key,
          `expected max_tokens, tokens_per_fill or fill_interval, got ${describe(name ?? valueOf(pair.key, doc))}`,
        ),
      );
      continue;
    }
    fields.set(name, pair);
  }
  const bucketAt = keyNode ?? bucket;

  const count = (name: string, fallback: number | undefined): number | undefined => {
    const pair = fields.get(name);
    if (pair === undefined) {
      if (fallback === undefined)
        errors.push(atNode(bucketAt, `expected ${name}: <n> in the token_bucket`));
      return fallback;
    }
    const raw = valueOf(pair.value, doc);
    // Protobuf's JSON form takes a uint32 as a number or a string of digits.
    const n =
      typeof raw === 'number'
        ? raw
        : typeof raw === 'string' && /^[0-9]+$/.test(raw)
          ? Number(raw)
          : NaN;
    if (!Number.isInteger(n) || n < 1 || n > MAX_COUNT) {
      errors.push(
        atNode(
          pair.value ?? pair.key,
          `expected ${name}: a whole number from 1 to ${MAX_COUNT}, got ${describe(raw)}`,
        ),
      );
      return undefined;
    }
    return n;
  };
  const maxTokens = count('max_tokens', undefined);
  // "If not specified, defaults to a single token." (envoy.type.v3.TokenBucket)
  const tokensPerFill = count('tokens_per_fill', 1);

  let fillIntervalMs: number | undefined;
  const fill = fields.get('fill_interval');
  if (fill === undefined) {
    errors.push(
      atNode(
        bucketAt,
        'expected fill_interval: <duration> (e.g. 1s or 0.250s) in the token_bucket',
      ),
    );
  } else {
    const raw = valueOf(fill.value, doc);
    const m = typeof raw === 'string' ? DURATION.exec(raw) : null;
    const where = fill.value ?? fill.key;
    if (m === null) {
      errors.push(
        atNode(where, `expected fill_interval: a duration like 1s or 0.250s, got ${describe(raw)}`),
      );
    } else {
      const nanos = Number((m[3] ?? '').padEnd(9, '0'));
      const ms = Number(m[2]) * 1000 + Math.floor(nanos / 1_000_000);
      if (m[1] === '-' || nanos % 1_000_000 !== 0) {
        errors.push(
          atNode(
            where,
            `expected fill_interval: a positive whole number of milliseconds, got ${describe(raw)}`,
          ),
        );
      } else if (ms < ENVOY_MIN_FILL_INTERVAL_MS) {
        errors.push(
          atNode(
            where,
            `expected fill_interval of at least 50ms (Envoy rejects shorter: "fill timer must be >= 50ms"), got ${describe(raw)}`,
          ),
        );
      } else if (ms > MAX_DURATION_MS) {
        errors.push(
          atNode(
            where,
            `expected fill_interval of at most ${MAX_DURATION_MS / 1000}s, got ${describe(raw)}`,
          ),
        );
      } else fillIntervalMs = ms;
    }
  }

  // Around the bucket: the traps of the filter config itself.
  const extras: EnvoyExtras = {};
  if (parent !== null) {
    const get = (name: string): Pair | undefined => parent.items.find((p) => keyName(p) === name);
    const statPrefix = valueOf(get('stat_prefix')?.value, doc);
    if (typeof statPrefix === 'string') extras.statPrefix = statPrefix;
    const looksLikeFilter = get('stat_prefix') !== undefined || get('@type') !== undefined;
    if (looksLikeFilter) {
      for (const [name, unset] of [
        ['filter_enabled', 'Envoy does not run the filter at all (it defaults to 0% of requests)'],
        [
          'filter_enforced',
          'Envoy only counts, never rejects (shadow mode; it defaults to 0% of requests)',
        ],
      ] as const) {
        const pair = get(name);
        if (pair === undefined) {
          warnings.push(atNode(bucketAt, `${name} is unset: ${unset}`));
          continue;
        }
        const percent = fractionPercent(pair.value, doc);
        if (percent !== null && percent < 100) {
          warnings.push(
            atNode(pair.key, `${name} is ${percent}%: the playground limits every request`),
          );
        }
      }
      const descriptors = get('descriptors');
      if (
        descriptors !== undefined &&
        isSeq(descriptors.value) &&
        descriptors.value.items.length > 0
      ) {
        warnings.push(
          atNode(
            descriptors.key,
            'descriptors have token buckets of their own: only the default token_bucket was imported',
          ),
        );
      }
    }
  }

  if (
    errors.length > 0 ||
    maxTokens === undefined ||
    tokensPerFill === undefined ||
    fillIntervalMs === undefined
  ) {
    errors.sort((a, b) => a.line - b.line || a.column - b.column);
    return { ok: false, errors: capImportErrors(errors) };
  }
  const config: TokenBucketConfig = {
    kind: 'token-bucket',
    maxTokens,
    tokensPerFill,
    fillIntervalMs,
  };
  if (options.refill === 'interval') config.refill = 'interval';
  return { ok: true, config, extras, warnings };
}

const DENOMINATORS: Record<string, number> = {
  HUNDRED: 100,
  TEN_THOUSAND: 10_000,
  MILLION: 1_000_000,
};

/** RuntimeFractionalPercent.default_value as a percentage, or null when it cannot be read. */
function fractionPercent(node: unknown, doc: Document): number | null {
  if (!isMap(node)) return null;
  const defaultValue = node.items.find((p) => keyName(p) === 'default_value')?.value;
  if (!isMap(defaultValue)) return 0; // runtime_key alone: the default is 0%
  const field = (name: string): unknown =>
    valueOf(defaultValue.items.find((p) => isPair(p) && keyName(p) === name)?.value, doc);
  const numerator = field('numerator');
  const denominator = field('denominator') ?? 'HUNDRED';
  const scale = typeof denominator === 'string' ? DENOMINATORS[denominator] : undefined;
  if (scale === undefined) return null;
  const n = numerator === undefined ? 0 : Number(numerator);
  return Number.isFinite(n) ? (n * 100) / scale : null;
}
