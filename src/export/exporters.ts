/**
 * Every export of a limiter (each system's own configuration, the Redis Lua scripts, Go) and the
 * Export panel's lists of them. The readers of pasted configs are not here (src/export/index.ts
 * adds them), so the panel's chunk does not carry them: they come with the import form.
 */
import type { AlgorithmConfig } from '../core';
import type { EnvoyOptions } from './envoy';
import { toEnvoy } from './envoy';
import { toGo } from './go';
import type { NginxOptions } from './nginx';
import { toNginx } from './nginx';
import type { RedisOptions } from './redis-lua';
import { toRedisLua } from './redis-lua';
import type { ExportOutcome, ExportTarget } from './types';
import type { HaproxyOptions } from './haproxy';
import { toHaproxy } from './haproxy';

export { toNginx, NGINX_DEFAULTS, NGINX_DEFAULT_STATUS } from './nginx';
export type { NginxOptions } from './nginx';
export { toEnvoy, envoyDuration, ENVOY_DEFAULTS, ENVOY_MIN_FILL_INTERVAL_MS } from './envoy';
export type { EnvoyOptions } from './envoy';
export { toRedisLua, REDIS_OUTCOME } from './redis-lua';
export type { RedisExport, RedisOptions } from './redis-lua';
export { toGo } from './go';
export { canonicalConfig } from './canonical';
export { toHaproxy, haproxyDuration, HAPROXY_COMPLETE, HAPROXY_DEFAULTS } from './haproxy';
export type { HaproxyOptions } from './haproxy';
export { HAPROXY_KEY_LEN, haproxyReplayKey, nginxReplayKey } from './replayKey';
export type { ReplayKey } from './replayKey';
export type * from './types';
export { formatImportError } from './types';

/** Options for every target at once. */
export interface ExportOptions {
  nginx?: NginxOptions;
  envoy?: EnvoyOptions;
  redis?: RedisOptions;
  haproxy?: HaproxyOptions;
}

/** Every target's export of `config`, in the order the Export panel lists them. */
export function exportAll(
  config: AlgorithmConfig,
  options: ExportOptions = {},
): Record<ExportTarget, ExportOutcome> {
  return {
    nginx: toNginx(config, options.nginx),
    envoy: toEnvoy(config, options.envoy),
    redis: toRedisLua(config, options.redis),
    go: toGo(config),
    haproxy: toHaproxy(config, options.haproxy),
  };
}

// ---- Gateway systems ----
export { toKong } from './kong';
export type { KongOptions } from './kong';
export { toEnvoyGlobal } from './envoy-global';
export type { EnvoyGlobalOptions } from './envoy-global';
export { toCaddy } from './caddy';
export { toSpringGateway } from './spring-gateway';
export { toExpressRateLimit, toRateLimiterFlexible } from './express-rate-limit';
export type { ExpressExportOptions } from './express-rate-limit';
export type * from './systems-types';
export { toCloudflare, toCloudflareTerraform, cloudflareEntrypoint } from './cloudflare';

// ---- Traefik, every system export at once, imports ----
export { toTraefik, traefikPeriod } from './traefik';
export type { TraefikOptions } from './traefik';
import { toCaddy as caddyOf } from './caddy';
import { toCloudflare as cloudflareOf, toCloudflareTerraform as terraformOf } from './cloudflare';
import { toEnvoyGlobal as envoyGlobalOf } from './envoy-global';
import {
  toExpressRateLimit as expressOf,
  toRateLimiterFlexible as flexibleOf,
} from './express-rate-limit';
import { toKong as kongOf } from './kong';
import { toSpringGateway as springOf } from './spring-gateway';
import { toTraefik as traefikOf } from './traefik';
import type { SystemExportOutcome, SystemExportTarget } from './systems-types';
import type { KongOptions } from './kong';
import type { TraefikOptions } from './traefik';

/**
 * Every gateway system's export of `config`, in the order the Export panel lists them; `kongPolicy`
 * is the fleet's Kong store policy, when one is set; `standardHeaders`: the limiter's standard
 * headers are added (express-rate-limit then sends draft 6, as the page shows); `traefikRedis`:
 * the instances share a store, so Traefik's export gets its `redis` section.
 */
export function exportSystems(
  config: AlgorithmConfig,
  kongPolicy?: KongOptions['policy'],
  standardHeaders = false,
  traefikRedis?: TraefikOptions['redis'],
): Record<SystemExportTarget, SystemExportOutcome> {
  return {
    traefik: traefikOf(config, traefikRedis === undefined ? {} : { redis: traefikRedis }),
    kong: kongOf(config, kongPolicy === undefined ? {} : { policy: kongPolicy }),
    'envoy-global': envoyGlobalOf(config),
    caddy: caddyOf(config),
    'spring-gateway': springOf(config),
    'express-rate-limit': expressOf(config, standardHeaders ? { standardHeaders: 'draft-6' } : {}),
    'rate-limiter-flexible': flexibleOf(config),
    cloudflare: cloudflareOf(config),
    'cloudflare-terraform': terraformOf(config),
  };
}
