/**
 * Rate Limit Lab export: a limiter as each system's own configuration — nginx `limit_req`, Envoy
 * `local_ratelimit`, HAProxy stick-tables, Traefik, Kong, Envoy's global rate limit service,
 * Caddy, Spring Cloud Gateway, express-rate-limit and rate-limiter-flexible — plus an atomic Redis
 * Lua script for every algorithm (./lua) and Go `x/time/rate`; pasted nginx, Envoy, HAProxy and
 * ingress-nginx snippets back into limiters; a run's decision log (CSV, JSON) and test vectors.
 * Pure TypeScript on top of src/core, src/sim and src/systems.
 */
export * from './exporters';
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
export { importHaproxy } from './import-haproxy';
export type { HaproxyExtras } from './import-haproxy';
export { importIngressNginx, INGRESS_BURST_MULTIPLIER } from './import-ingress-nginx';
export type { IngressLane, IngressNginxImport, IngressNginxResult } from './import-ingress-nginx';
