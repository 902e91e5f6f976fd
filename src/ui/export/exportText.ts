import type { AlgorithmConfig, AlgorithmKind } from '../../core';
import type { ExportTarget } from '../../export';
import { envoyDuration } from '../../export';
import { ALGORITHMS } from '../limiter/algorithms';
import { plural } from '../../core';

/** The Export panel's tabs, in order, with the names people know them by. */
export const EXPORT_TARGETS: ReadonlyArray<{ target: ExportTarget; label: string }> = [
  { target: 'nginx', label: 'nginx' },
  { target: 'envoy', label: 'Envoy' },
  { target: 'redis', label: 'Redis Lua' },
  { target: 'go', label: 'Go' },
];

/** The tab a limiter opens on: the system it models, else Redis (which takes every algorithm). */
export function naturalTarget(kind: AlgorithmKind): ExportTarget {
  if (kind === 'leaky-bucket') return 'nginx';
  if (kind === 'token-bucket') return 'envoy';
  return 'redis';
}

/** What the Import box can read. */
export type ImportFormat = 'nginx' | 'envoy';

const NGINX_WORD = /\blimit_req(?:_zone|_status)?\b/;
const ENVOY_WORD = /\b(?:token_bucket|max_tokens|tokens_per_fill|fill_interval)\b/;

/**
 * Which importer pasted text is for, by its first telling word (`limit_req…` for nginx,
 * `token_bucket` or one of its fields for Envoy); null when it has neither.
 */
export function detectFormat(text: string): ImportFormat | null {
  const nginx = NGINX_WORD.exec(text)?.index;
  const envoy = ENVOY_WORD.exec(text)?.index;
  if (nginx === undefined) return envoy === undefined ? null : 'envoy';
  return envoy === undefined || nginx < envoy ? 'nginx' : 'envoy';
}

/** The string offset of a 1-based line and column, clamped to the text. */
export function offsetOf(text: string, line: number, column: number): number {
  let offset = 0;
  for (let l = 1; l < line; l += 1) {
    const next = text.indexOf('\n', offset);
    if (next < 0) return text.length;
    offset = next + 1;
  }
  const end = text.indexOf('\n', offset);
  const lineEnd = end < 0 ? text.length : end;
  return Math.min(offset + Math.max(0, column - 1), lineEnd);
}

/** A limiter's parameters in the target system's own words, for the import confirmation. */
export function describeConfig(config: AlgorithmConfig): string {
  switch (config.kind) {
    case 'leaky-bucket': {
      const delay = config.delay === 'nodelay' ? 'nodelay' : `delay=${config.delay}`;
      const status =
        config.limitReqStatus === undefined ? '' : `, limit_req_status ${config.limitReqStatus}`;
      return `rate=${config.rate}${config.rateUnit} burst=${config.burst} ${delay}${status}`;
    }
    case 'token-bucket': {
      const refill = config.refill === 'interval' ? ' (timer refill)' : '';
      return `max_tokens ${config.maxTokens}, tokens_per_fill ${config.tokensPerFill}, fill_interval ${envoyDuration(config.fillIntervalMs)}${refill}`;
    }
    default:
      return ALGORITHMS[config.kind].params
        .map((p) => [p.label, (config as unknown as Record<string, unknown>)[p.field]] as const)
        .filter(([, v]) => v !== undefined)
        .map(([label, v]) => `${label} ${String(v)}`)
        .join(', ');
  }
}

/** What one imported limiter is, as the snippet wrote it. */
const WHAT: Record<ImportFormat, readonly [one: string, many: string]> = {
  nginx: ['nginx limit_req line', 'nginx limit_req lines'],
  envoy: ['Envoy token_bucket', 'Envoy token_buckets'],
};

/**
 * The confirmation's first words, saying what happened: "Loaded an nginx limit_req line into the
 * limiter", "Loaded 3 nginx limit_req lines into 3 compare lanes (lanes 1, 3 and 4)".
 */
export function importDone(format: ImportFormat, lanes: readonly number[], target: string): string {
  const [one, many] = WHAT[format];
  if (lanes.length <= 1) return `Loaded an ${one} into ${target}`;
  const numbers = lanes.map((l) => String(l + 1));
  const list = `${numbers.slice(0, -1).join(', ')} and ${numbers.at(-1) ?? ''}`;
  return `Loaded ${plural(lanes.length, one, many)} into ${lanes.length} compare lanes (lanes ${list})`;
}
