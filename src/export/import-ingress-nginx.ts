/**
 * ingress-nginx rate-limit annotations → the limiters they become, twice: under ingress-nginx
 * itself (nginx `limit_req`) and under Traefik's ingress-nginx compatibility provider (Traefik's
 * `rateLimit` middleware). Pure: text in, lanes out; never throws.
 *
 * ingress-nginx, controller-v1.15.1 (the last release; the project was retired in March 2026):
 * - internal/ingress/annotations/ratelimit/main.go: `limit-rps`, `limit-rpm`, `limit-connections`
 *   read as ints (a value that is not an int is a validation error: the annotation group fails);
 *   `limit-burst-multiplier` as an int, default 5 when absent or invalid (`defBurst`), and taken as
 *   given otherwise, 0 included; zone burst = limit × multiplier; zone name
 *   `<namespace>_<name>_<uid>` + `_rps` / `_rpm` / `_conn`, shared size 5m; `limit-whitelist` is an
 *   alias of `limit-allowlist`, a list of CIDRs.
 * - internal/ingress/controller/template/template.go (buildRateLimitZones, buildRateLimit):
 *   `limit_req_zone $limit_<id> zone=<zone>:5m rate=<n>r/s;` (r/m for rpm), and in the location, in
 *   this order, `limit_conn <zone> <n>;`, `limit_req zone=<rps zone> burst=<b> nodelay;`,
 *   `limit_req zone=<rpm zone> burst=<b> nodelay;` — each only when its limit is > 0.
 * - rootfs/etc/nginx/template/nginx.tmpl: `geo $remote_addr $allowlist_<id>` (allowlisted → 1) and
 *   `map $allowlist_<id> $limit_<id>` → `$binary_remote_addr` (LimitConnZoneVariable, config.go)
 *   or "" for allowlisted clients, whose requests nginx then does not limit (an empty key is not
 *   accounted). `limit_req_status` is `limit-req-status-code`, 503 by default (config.go).
 *
 * Traefik v3.7.9, pkg/provider/kubernetes/ingress-nginx:
 * - middleware.go buildRateLimit: rpm > 0 → rateLimit {average: rpm, period: 1m, burst: rpm × m};
 *   rps > 0 → {average: rps, period: 1s, burst: rps × m}; m = limit-burst-multiplier, default 5
 *   (kubernetes.go defaultLimitBurstMultiplier) and 5 again when < 1 (getLimitBurstMultiplier).
 * - translator.go: the router chains `<router>-limit-rpm`, then `<router>-limit-rps`, then
 *   `<router>-limit-connections` (an inFlightReq middleware by source IP: buildLimitConnections).
 * - annotations.go has no limit-whitelist / limit-allowlist field: Traefik ignores it.
 * - The rateLimit middleware itself (src/systems/traefik.ts): a token bucket that makes a request
 *   wait up to 1/(2·rate) for its token, else answers 429.
 */
import { LineCounter, isMap, isScalar, parseAllDocuments } from 'yaml';
import type { AlgorithmConfig } from '../core';
import { assertAlgorithmConfig, quoteText } from '../core';
import { traefik } from '../systems/traefik';
import {
  capImportErrors,
  duplicateKey,
  parseQuietly,
  sizeProblem,
  yamlDepthProblem,
} from './import-limits';
import type { ImportError } from './types';

const PREFIX = 'nginx.ingress.kubernetes.io/';
/** ingress-nginx's default burst multiplier (ratelimit/main.go defBurst; Traefik's kubernetes.go). */
export const INGRESS_BURST_MULTIPLIER = 5;

/** One limiter the annotations become. */
export interface IngressLane {
  /** src/systems id: 'nginx' (ingress-nginx) or 'traefik' (Traefik's compatibility provider). */
  system: 'nginx' | 'traefik';
  /** A lane name (letters, digits, spaces): "nginx limit-rps 10". */
  name: string;
  config: AlgorithmConfig;
}

export interface IngressNginxImport {
  ok: true;
  /** `namespace/name` of the Ingress read. */
  ingress: string;
  /** What ingress-nginx renders: limit_req_zone / limit_req (and limit_conn) lines. */
  nginxText: string;
  /** What Traefik's provider builds: its dynamic configuration, as YAML. */
  traefikText: string;
  /** ingress-nginx's lanes, in its order (rps, then rpm), then Traefik's (rpm, then rps). */
  lanes: IngressLane[];
  /** What the annotations do that the lanes do not model (connections, allowlist), in words. */
  notes: string[];
  warnings: ImportError[];
}

export type IngressNginxResult = IngressNginxImport | { ok: false; errors: ImportError[] };

/** base64url without padding, as ratelimit/main.go encode() writes the zone's id. */
function encodeId(s: string): string {
  const bytes = new TextEncoder().encode(s);
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** A scalar's text (a map or list gives undefined). */
function scalarText(node: unknown): string | undefined {
  if (!isScalar(node)) return undefined;
  const v = node.value;
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean'
    ? String(v)
    : undefined;
}

interface Annotation {
  value: string;
  line: number;
  column: number;
}

/**
 * The limiters an Ingress manifest's rate-limit annotations become under ingress-nginx and under
 * Traefik, or every error with its line and column. Several documents (`---`) may be pasted: the
 * first Ingress with limit-rps or limit-rpm is read.
 */
export function importIngressNginx(text: string): IngressNginxResult {
  const refused = sizeProblem(text) ?? yamlDepthProblem(text);
  if (refused !== null) return { ok: false, errors: [refused] };
  const lineCounter = new LineCounter();
  // Quiet, and unique keys checked with a set below (import-limits.ts): the parser's own check
  // is quadratic, and its errors' stack traces were most of an import of hostile text.
  const docs = parseQuietly(() =>
    parseAllDocuments(text, { lineCounter, prettyErrors: false, uniqueKeys: false }),
  );
  const pos = (offset: number | undefined) => {
    const p = lineCounter.linePos(offset ?? 0);
    return { line: p.line, column: p.col };
  };
  const list = Array.isArray(docs) ? docs : [];
  const yamlErrors = list.flatMap((d) =>
    d.errors.map((e) => ({
      ...pos(e.pos[0]),
      message: `expected valid YAML: ${e.message.split('\n')[0] ?? e.code}`,
    })),
  );
  if (yamlErrors.length > 0) return { ok: false, errors: capImportErrors(yamlErrors) };
  for (const doc of list) {
    const duplicate = duplicateKey(doc.contents);
    if (duplicate === null) continue;
    const at = pos((duplicate.key as { range?: number[] } | null)?.range?.[0]);
    return {
      ok: false,
      errors: [
        {
          ...at,
          message: `expected valid YAML: map keys must be unique, got ${quoteText(duplicate.name)} twice`,
        },
      ],
    };
  }

  const warnings: ImportError[] = [];
  let chosen: { annotations: Map<string, Annotation>; ingress: string; uid: string } | null = null;
  for (const doc of list) {
    const root = doc.contents;
    if (!isMap(root)) continue;
    const kind = scalarText(root.get('kind', true));
    const metadata = root.get('metadata', true);
    if (!isMap(metadata)) continue;
    const anns = metadata.get('annotations', true);
    if (!isMap(anns)) continue;
    const annotations = new Map<string, Annotation>();
    for (const pair of anns.items) {
      const key = scalarText(pair.key) ?? '';
      if (!key.startsWith(PREFIX)) continue;
      const v = pair.value;
      const where = pos(
        (isScalar(v) ? v.range?.[0] : undefined) ?? (pair.key as { range?: number[] }).range?.[0],
      );
      annotations.set(key.slice(PREFIX.length), {
        value: scalarText(v) ?? '',
        ...where,
      });
    }
    const name = scalarText(metadata.get('name', true)) ?? 'ingress';
    const namespace = scalarText(metadata.get('namespace', true)) ?? 'default';
    const limited = annotations.has('limit-rps') || annotations.has('limit-rpm');
    if (!limited) continue;
    if (chosen !== null) {
      warnings.push({
        line: pos(root.range?.[0]).line,
        column: 1,
        message: `another Ingress (${quoteText(`${namespace}/${name}`)}) with rate limits is left out: one Ingress is imported at a time`,
      });
      continue;
    }
    if (kind !== undefined && kind !== 'Ingress') {
      warnings.push({
        ...pos(root.range?.[0]),
        message: `expected kind: Ingress, got ${quoteText(String(kind))}; its annotations are read anyway`,
      });
    }
    chosen = {
      annotations,
      ingress: `${namespace}/${name}`,
      uid: scalarText(metadata.get('uid', true)) ?? '<uid>',
    };
  }
  if (chosen === null) {
    return {
      ok: false,
      errors: [
        {
          line: 1,
          column: 1,
          message: `expected an Ingress whose metadata.annotations has ${PREFIX}limit-rps or ${PREFIX}limit-rpm`,
        },
      ],
    };
  }

  const { annotations, ingress, uid } = chosen;
  const errors: ImportError[] = [];
  /** An annotation as ingress-nginx's parser.GetIntAnnotation reads it (strconv.Atoi). */
  const int = (key: string): { value: number; at: Annotation } | null => {
    const at = annotations.get(key);
    if (at === undefined) return null;
    if (!/^[+-]?\d{1,9}$/.test(at.value.trim()) || at.value.trim() !== at.value) {
      errors.push({
        line: at.line,
        column: at.column,
        message: `${PREFIX}${key}: expected a whole number in quotes ("10"), got ${JSON.stringify(at.value)}`,
      });
      return null;
    }
    return { value: Number(at.value), at };
  };
  const rps = int('limit-rps');
  const rpm = int('limit-rpm');
  const conn = int('limit-connections');
  const multAt = annotations.get('limit-burst-multiplier');
  // main.go: an invalid multiplier falls back to defBurst (no error).
  const multOk = multAt !== undefined && /^[+-]?\d{1,9}$/.test(multAt.value);
  const nginxMult = multOk ? Number(multAt.value) : INGRESS_BURST_MULTIPLIER;
  if (multAt !== undefined && !multOk) {
    warnings.push({
      line: multAt.line,
      column: multAt.column,
      message: `${PREFIX}limit-burst-multiplier ${JSON.stringify(multAt.value)} is not a whole number: both ingress-nginx and Traefik use ${INGRESS_BURST_MULTIPLIER}`,
    });
  }
  // middleware.go getLimitBurstMultiplier: below 1 means 5.
  const traefikMult = nginxMult < 1 ? INGRESS_BURST_MULTIPLIER : nginxMult;
  if (multOk && nginxMult < 1 && multAt !== undefined) {
    warnings.push({
      line: multAt.line,
      column: multAt.column,
      message: `limit-burst-multiplier ${nginxMult}: ingress-nginx renders burst=${Math.max(0, nginxMult)}×limit (no burst at all when 0), Traefik uses ${INGRESS_BURST_MULTIPLIER}×limit instead`,
    });
  }
  if (errors.length > 0) return { ok: false, errors: capImportErrors(errors) };
  for (const v of [rps, rpm]) {
    if (v !== null && v.value < 0) {
      warnings.push({
        line: v.at.line,
        column: v.at.column,
        message: 'a negative limit renders nothing in ingress-nginx or Traefik: no limit',
      });
    }
  }
  const rpsN = Math.max(0, rps?.value ?? 0);
  const rpmN = Math.max(0, rpm?.value ?? 0);
  if (rpsN === 0 && rpmN === 0) {
    return {
      ok: false,
      errors: [
        {
          line: (rps ?? rpm)?.at.line ?? 1,
          column: (rps ?? rpm)?.at.column ?? 1,
          message:
            'expected limit-rps or limit-rpm above 0: with both 0 neither ingress-nginx nor Traefik limits requests',
        },
      ],
    };
  }

  const [namespace = 'default', name = 'ingress'] = ingress.split('/');
  const zone = `${namespace}_${name}_${uid}`;
  const id = encodeId(zone);
  const lanes: IngressLane[] = [];
  const nginxLines: string[] = [];
  const locationLines: string[] = [];
  const traefikMiddlewares: string[] = [];
  const router = `${namespace}-${name}-rule-0-path-0`;
  const fail = (message: string, at: Annotation) =>
    errors.push({ line: at.line, column: at.column, message });
  const nginxLane = (n: number, unit: 'r/s' | 'r/m', key: string, at: Annotation) => {
    const burst = n * Math.max(0, nginxMult);
    try {
      const config = assertAlgorithmConfig({
        kind: 'leaky-bucket',
        rate: n,
        rateUnit: unit,
        burst,
        delay: 'nodelay',
      });
      lanes.push({ system: 'nginx', name: `nginx ${key} ${n}`, config });
    } catch (e) {
      fail(`${PREFIX}${key}: ${e instanceof Error ? e.message : String(e)}`, at);
    }
    const suffix = unit === 'r/s' ? 'rps' : 'rpm';
    nginxLines.push(`limit_req_zone $limit_${id} zone=${zone}_${suffix}:5m rate=${n}${unit};`);
    locationLines.push(`    limit_req zone=${zone}_${suffix} burst=${burst} nodelay;`);
  };
  const traefikLane = (n: number, periodMs: number, key: string, at: Annotation) => {
    const burst = n * traefikMult;
    try {
      const config = assertAlgorithmConfig(
        traefik.derive!({
          kind: 'token-bucket',
          maxTokens: burst,
          tokensPerFill: n,
          fillIntervalMs: periodMs,
        }),
      );
      lanes.push({ system: 'traefik', name: `Traefik ${key} ${n}`, config });
    } catch (e) {
      fail(`${PREFIX}${key} (Traefik): ${e instanceof Error ? e.message : String(e)}`, at);
    }
    traefikMiddlewares.push(
      `    ${router}-${key}:\n      rateLimit:\n        average: ${n}\n        period: ${periodMs === 1000 ? '1s' : '1m'}\n        burst: ${burst}`,
    );
  };
  const connN = Math.max(0, conn?.value ?? 0);
  if (connN > 0) {
    nginxLines.push(`limit_conn_zone $limit_${id} zone=${zone}_conn:5m;`);
    locationLines.push(`    limit_conn ${zone}_conn ${connN};`);
  }
  // ingress-nginx's order: rps, then rpm (template.go buildRateLimit).
  if (rps !== null && rpsN > 0) nginxLane(rpsN, 'r/s', 'limit-rps', rps.at);
  if (rpm !== null && rpmN > 0) nginxLane(rpmN, 'r/m', 'limit-rpm', rpm.at);
  // Traefik's order: rpm, then rps (translator.go).
  if (rpm !== null && rpmN > 0) traefikLane(rpmN, 60_000, 'limit-rpm', rpm.at);
  if (rps !== null && rpsN > 0) traefikLane(rpsN, 1000, 'limit-rps', rps.at);
  if (errors.length > 0) return { ok: false, errors: capImportErrors(errors) };
  if (connN > 0) {
    traefikMiddlewares.push(
      `    ${router}-limit-connections:\n      inFlightReq:\n        amount: ${connN}\n        sourceCriterion:\n          ipStrategy: {}`,
    );
  }

  const allow = annotations.get('limit-allowlist') ?? annotations.get('limit-whitelist');
  const notes: string[] = [];
  if (rpsN > 0 && rpmN > 0) {
    notes.push(
      'Both limits apply to every request: ingress-nginx passes a request only when both limit_req lines pass it, Traefik chains limit-rpm before limit-rps. The lanes show each limit alone.',
    );
  }
  notes.push(
    'ingress-nginx rejects with 503 (limit-req-status-code in the ConfigMap changes it); Traefik answers 429 with Retry-After.',
  );
  if (connN > 0) {
    notes.push(
      `limit-connections ${connN}: at most ${connN} connections open at once per client IP (nginx limit_conn; Traefik: an inFlightReq middleware counting requests in flight per source IP). Not modelled: the playground's requests have no duration.`,
    );
  }
  if (allow !== undefined) {
    const allowKey = annotations.has('limit-allowlist') ? 'limit-allowlist' : 'limit-whitelist';
    notes.push(
      `${allowKey} ${allow.value}: ingress-nginx does not limit clients from these CIDRs at all (their key $limit_<id> is empty). Traefik's provider ignores this annotation: those clients are limited like everyone else. Not modelled: every client here is limited.`,
    );
  }
  if (uid === '<uid>') {
    notes.push(
      'The zone names hold the Ingress uid, which Kubernetes assigns; the manifest has none, so <uid> stands in.',
    );
  }

  const nginxText = [
    `# http block (ingress-nginx controller-v1.15.1 renders, for ${ingress}):`,
    `geo $remote_addr $allowlist_${id} {`,
    '    default 0;',
    ...(allow === undefined ? [] : allow.value.split(',').map((c) => `    ${c.trim()} 1;`)),
    '}',
    `map $allowlist_${id} $limit_${id} {`,
    '    0 $binary_remote_addr;',
    '    1 "";',
    '}',
    ...nginxLines,
    'limit_req_status 503;',
    '',
    '# in each of its locations:',
    'location / {',
    ...locationLines,
    '}',
    '',
  ].join('\n');
  const traefikText = [
    `# Traefik v3.7.9 kubernetesIngressNGINX provider builds, for ${ingress}:`,
    'http:',
    '  middlewares:',
    ...traefikMiddlewares,
    '',
  ].join('\n');
  return { ok: true, ingress, nginxText, traefikText, lanes, notes, warnings };
}
