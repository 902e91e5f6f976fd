import type { AlgorithmConfig, AlgorithmKind } from '../../core';
import type {
  ExportOutcome,
  ExportTarget,
  SystemExportOutcome,
  SystemExportTarget,
} from '../../export/exporters';
import { envoyDuration } from '../../export/exporters';
import { ALGORITHMS } from '../limiter/algorithms';
import { plural } from '../../core';

/** The Export panel's tabs, in order, with the names people know them by. */
export const EXPORT_TARGETS: ReadonlyArray<{ target: ExportTarget; label: string }> = [
  { target: 'nginx', label: 'nginx' },
  { target: 'envoy', label: 'Envoy' },
  { target: 'redis', label: 'Redis Lua' },
  { target: 'go', label: 'Go' },
  { target: 'haproxy', label: 'HAProxy' },
];

// ---- Every system's export has a tab ----

/** Any export the panel can show: the four first targets and the gateway systems'. */
export type AnyExportTarget = ExportTarget | SystemExportTarget;
export type AnyExportOutcome = ExportOutcome | SystemExportOutcome;

/** The gateway systems' tabs, with the names people know them by (after EXPORT_TARGETS). */
export const SYSTEM_EXPORT_TARGETS: ReadonlyArray<{ target: SystemExportTarget; label: string }> = [
  { target: 'traefik', label: 'Traefik' },
  { target: 'kong', label: 'Kong' },
  { target: 'envoy-global', label: 'Envoy global' },
  { target: 'caddy', label: 'Caddy' },
  { target: 'spring-gateway', label: 'Spring' },
  { target: 'express-rate-limit', label: 'express-rate-limit' },
  { target: 'rate-limiter-flexible', label: 'rate-limiter-flexible' },
  { target: 'cloudflare', label: 'Cloudflare API' },
  { target: 'cloudflare-terraform', label: 'Cloudflare Terraform' },
];

/** Every tab's label. */
export function exportLabel(target: AnyExportTarget): string {
  return (
    [...EXPORT_TARGETS, ...SYSTEM_EXPORT_TARGETS].find((t) => t.target === target)?.label ?? target
  );
}

/** The exports that configure each system (src/systems ids), shown first for a limiter of it. */
export const SYSTEM_EXPORTS: Readonly<Record<string, readonly AnyExportTarget[]>> = {
  nginx: ['nginx'],
  envoy: ['envoy'],
  traefik: ['traefik', 'go'],
  'redis-cell': ['redis'],
  'redis-fixed-window': ['redis'],
  'redis-sliding-log': ['redis'],
  'redis-sliding-window': ['redis'],
  cloudflare: ['cloudflare', 'cloudflare-terraform', 'redis'],
  kong: ['kong'],
  'envoy-global': ['envoy-global'],
  caddy: ['caddy'],
  'spring-gateway': ['spring-gateway'],
  'express-rate-limit': ['express-rate-limit'],
  'rate-limiter-flexible': ['rate-limiter-flexible'],
  haproxy: ['haproxy'],
};

/** The file a download of each export is saved as. */
export const EXPORT_FILE_NAMES: Readonly<Record<AnyExportTarget, string>> = {
  nginx: 'limit_req.conf',
  envoy: 'envoy-local-ratelimit.yaml',
  redis: 'limiter.lua',
  go: 'limiter.go',
  haproxy: 'haproxy.cfg',
  traefik: 'traefik-dynamic.yml',
  kong: 'kong.yml',
  'envoy-global': 'ratelimit-config.yaml',
  caddy: 'Caddyfile',
  'spring-gateway': 'application.yml',
  'express-rate-limit': 'rate-limit.mjs',
  'rate-limiter-flexible': 'rate-limiter.mjs',
  cloudflare: 'http_ratelimit-entrypoint.json',
  'cloudflare-terraform': 'cloudflare-ratelimit.tf',
};

/**
 * The tabs for a limiter of system `systemId`, in order: the system's own exports first, then the
 * four first targets (with a reason where they cannot express the algorithm), then every other
 * gateway export that can express it (the ones that cannot are left out: six ⊘ tabs help no one).
 */
export function orderedTargets(
  systemId: string,
  outcomes: Readonly<Record<AnyExportTarget, AnyExportOutcome>>,
): AnyExportTarget[] {
  const own = SYSTEM_EXPORTS[systemId] ?? [];
  const rest = [
    ...EXPORT_TARGETS.map((t) => t.target),
    ...SYSTEM_EXPORT_TARGETS.map((t) => t.target).filter((t) => outcomes[t].ok),
  ];
  return [...own, ...rest.filter((t) => !own.includes(t))];
}

/** The tab a limiter opens on: the system it models, else Redis (which takes every algorithm). */
export function naturalTarget(kind: AlgorithmKind): ExportTarget {
  if (kind === 'leaky-bucket') return 'nginx';
  if (kind === 'token-bucket') return 'envoy';
  return 'redis';
}

/** What the Import box can read. */
export type ImportFormat = 'nginx' | 'envoy' | 'ingress-nginx' | 'haproxy';

/** An Ingress annotation of ingress-nginx's rate limiting (checked before nginx's own words). */
const INGRESS_WORD = /nginx\.ingress\.kubernetes\.io\/limit-/;

const NGINX_WORD = /\blimit_req(?:_zone|_status)?\b/;
const ENVOY_WORD = /\b(?:token_bucket|max_tokens|tokens_per_fill|fill_interval)\b/;
const HAPROXY_WORD = /(?:^|\s)(?:stick-table|http-request|track-sc[0-9])\b|\bhttp_req_rate\b/;

/**
 * Which importer pasted text is for, by its first telling word (`limit_req…` for nginx,
 * `token_bucket` or one of its fields for Envoy, `stick-table` / `http-request` / `http_req_rate`
 * for HAProxy); null when it has none.
 */
export function detectFormat(text: string): ImportFormat | null {
  if (INGRESS_WORD.test(text)) return 'ingress-nginx';
  // haproxy.cfg words (stick-table, http-request, http_req_rate) appear in neither of the others.
  if (HAPROXY_WORD.test(text)) return 'haproxy';
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
    case 'sliding-window-counter':
      if (config.anchor === 'entry') {
        // HAProxy's own words (src/systems/haproxy.ts).
        const expire = config.expireMs === undefined ? '' : `, expire ${config.expireMs} ms`;
        const status = config.denyStatus === undefined ? '' : `, deny_status ${config.denyStatus}`;
        return `gt ${config.limit} per http_req_rate(${config.windowMs} ms)${expire}${status}`;
      }
      return `limit ${config.limit}, window ${config.windowMs} ms`;
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
  haproxy: ['HAProxy stick-table limit', 'HAProxy stick-table limits'],
  'ingress-nginx': ['ingress-nginx rate-limit lane', 'ingress-nginx and Traefik rate-limit lanes'],
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
