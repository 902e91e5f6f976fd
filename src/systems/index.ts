/**
 * The systems registry: every real product the playground models, one file per system.
 *
 * How to add a system:
 * 1. Write `src/systems/<id>.ts` exporting a `SystemInfo` (types.ts): its id (also its link head,
 *    `l=<id>:…`), name, the version modelled, the source files each rule comes from (cite file and
 *    version in comments next to each rule), its parameters under its own names mapped onto the
 *    algorithm's config fields (`params`), `derive` for fields the system computes itself, a
 *    default config and the differences from the playground; and `respond/<id>.ts`, its
 *    `response()`: the status and headers the system really sends, with headers the user adds
 *    (`standardHeaders`) marked `added` (a module of its own: only the parts that show a response
 *    fetch it).
 *    Build on a core algorithm; if none fits, add one to src/core first (exact integers, the
 *    decide/inspect contract, differential + property + known-answer tests in tests/core).
 * 2. List it in `SYSTEMS` below, in the order the chooser shows it within its group, and its
 *    response in `RESPONDERS` (respond/index.ts).
 * 3. Prove it against the real implementation where it runs here (tests/export/*.server.test.ts:
 *    skip loudly when the program is missing), export it (src/export), and add its row to the
 *    README's table of systems.
 *
 * Pure TypeScript on top of src/core (a lint rule keeps React, zustand, d3 and clocks out).
 */
import type { AlgorithmConfig, AlgorithmKind } from '../core';
import { caddy } from './caddy';
import { envoyGlobal } from './envoy-global';
import { expressRateLimit } from './express-rate-limit';
import { kong } from './kong';
import { rateLimiterFlexible } from './rate-limiter-flexible';
import { springGateway } from './spring-gateway';
import { cloudflare } from './cloudflare';
import { envoyLocal } from './envoy-local';
import { nginxLimitReq } from './nginx';
import { redisCell } from './redis-cell';
import { redisFixedWindow, redisSlidingLog, redisTwoWindow } from './redis-patterns';
import { traefik } from './traefik';
import { haproxy } from './haproxy';
import type { SystemGroup, SystemId, SystemInfo } from './types';

export type * from './types';
export { NGINX_SERVER, nginxPolicyName, nginxPolicyValue } from './nginx';
export { HAPROXY_VERSION } from './haproxy';
export {
  CLOUDFLARE_PERIODS_S,
  CLOUDFLARE_PERIODS_TEXT,
  CLOUDFLARE_TIMEOUTS_S,
  CLOUDFLARE_TIMEOUTS_TEXT,
  cloudflarePeriodOk,
} from './cloudflare';
export {
  goDurationString,
  traefikMaxDelayExact,
  traefikMaxDelayMs,
  traefikMaxDelayNs,
  traefikTtlSeconds,
} from './traefik';

/** Every system, in chooser order within each group. */
export const SYSTEMS: readonly SystemInfo[] = [
  nginxLimitReq,
  envoyLocal,
  traefik,
  haproxy,
  redisCell,
  redisFixedWindow,
  redisSlidingLog,
  redisTwoWindow,
  cloudflare,
  kong,
  envoyGlobal,
  caddy,
  springGateway,
  expressRateLimit,
  rateLimiterFlexible,
];

/** Chooser groups, in order. */
export const SYSTEM_GROUPS: readonly SystemGroup[] = [
  'Proxies and gateways',
  'Redis and app libraries',
  'CDN and edge',
];

const BY_ID: ReadonlyMap<SystemId, SystemInfo> = new Map(SYSTEMS.map((s) => [s.id, s]));

/**
 * The system an algorithm stood for before systems existed: a limiter entry without `system` is
 * this one, so old links open unchanged.
 */
export const DEFAULT_SYSTEM: Readonly<Record<AlgorithmKind, SystemInfo>> = {
  'leaky-bucket': nginxLimitReq,
  'token-bucket': envoyLocal,
  gcra: redisCell,
  'fixed-window': redisFixedWindow,
  'sliding-log': redisSlidingLog,
  // Cloudflare takes only a few periods (cloudflare.ts); the Redis pattern takes any window.
  'sliding-window-counter': redisTwoWindow,
  'anchored-window': expressRateLimit,
  'calendar-windows': kong,
};

/** Ids a limiter entry may name (the defaults included). */
export const SYSTEM_IDS: readonly SystemId[] = SYSTEMS.map((s) => s.id);

/** The system with this id, or undefined. */
export function systemById(id: SystemId): SystemInfo | undefined {
  return BY_ID.get(id);
}

/**
 * The system of a limiter: `system` when it names one built on the config's algorithm, else the
 * algorithm's default system (DEFAULT_SYSTEM).
 */
export function systemOf(entry: { system?: SystemId; config: AlgorithmConfig }): SystemInfo {
  const named = entry.system === undefined ? undefined : BY_ID.get(entry.system);
  if (named !== undefined && named.algorithms.includes(entry.config.kind)) return named;
  return DEFAULT_SYSTEM[entry.config.kind];
}

/**
 * A limiter's system name as it runs in this deployment. Kong's name states its policy
 * (`kong.ts`: "local policy"); behind a fleet store the policy is the store's (Kong's cluster or
 * redis policy, or an atomic shared store, which is none of Kong's), so the name says that instead.
 */
export function systemNameIn(
  entry: { system?: SystemId; config: AlgorithmConfig },
  deployment?: { state?: string; fleet?: { store?: { kong?: 'cluster' | 'redis' } } },
): string {
  const system = systemOf(entry);
  const store = deployment?.state === 'shared-atomic' || deployment?.state === 'layered';
  if (system.id !== 'kong' || deployment === undefined || !store) return system.name;
  const policy = deployment.fleet?.store?.kong;
  return `Kong rate-limiting plugin (${policy === undefined ? 'an atomic shared store, not a Kong policy' : `${policy} policy`})`;
}

/** Whether `id` is the default system of `kind` (a limiter entry then leaves `system` out). */
export function isDefaultSystem(id: SystemId, kind: AlgorithmKind): boolean {
  return DEFAULT_SYSTEM[kind].id === id;
}

/** A system's config after its own derived fields (`derive`), or the config unchanged. */
export function deriveConfig(system: SystemInfo, config: AlgorithmConfig): AlgorithmConfig {
  return system.derive === undefined ? config : system.derive(config);
}
