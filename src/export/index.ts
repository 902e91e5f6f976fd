/**
 * Rate Limit Lab export: the playground's limiter as nginx, Envoy, Redis Lua or Go, and nginx or
 * Envoy snippets back into a limiter. Pure TypeScript.
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

export { toNginx, NGINX_DEFAULTS, NGINX_DEFAULT_STATUS } from './nginx';
export type { NginxOptions } from './nginx';
export { toEnvoy, envoyDuration, ENVOY_DEFAULTS, ENVOY_MIN_FILL_INTERVAL_MS } from './envoy';
export type { EnvoyOptions } from './envoy';
export { toRedisLua, REDIS_OUTCOME } from './redis-lua';
export type { RedisExport, RedisOptions } from './redis-lua';
export { toGo } from './go';
export { importNginx } from './import-nginx';
export type { NginxExtras } from './import-nginx';
export { importEnvoy } from './import-envoy';
export {
  MAX_IMPORT_CHARS,
  MAX_IMPORT_DEPTH,
  MAX_IMPORT_ERRORS,
  MAX_IMPORT_FLOW,
} from './import-limits';
export type { EnvoyExtras, EnvoyImportOptions } from './import-envoy';
export { canonicalConfig } from './canonical';
export type * from './types';
export { formatImportError } from './types';

/** Options for every target at once. */
export interface ExportOptions {
  nginx?: NginxOptions;
  envoy?: EnvoyOptions;
  redis?: RedisOptions;
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
  };
}

// ---- Added for issue 13 (i13b): gateway systems ----
export { toKong } from './kong';
export type { KongOptions } from './kong';
export { toEnvoyGlobal } from './envoy-global';
export type { EnvoyGlobalOptions } from './envoy-global';
export { toCaddy } from './caddy';
export { toSpringGateway } from './spring-gateway';
export { toExpressRateLimit, toRateLimiterFlexible } from './express-rate-limit';
export type * from './systems-types';
