/**
 * Every system's sources by system id: the files and documents each model was built from, with the
 * rules each one fixes. Kept out of the registry (../index.ts) so the first page load does not
 * carry the text; the code that writes responses (../respond) and the tests import it.
 */
import type { SourceRef, SystemId } from '../types';
import { CADDY_SOURCES } from './caddy';
import { CLOUDFLARE_SOURCES } from './cloudflare';
import { ENVOY_GLOBAL_SOURCES } from './envoy-global';
import { ENVOY_LOCAL_SOURCES } from './envoy-local';
import { EXPRESS_RATE_LIMIT_SOURCES } from './express-rate-limit';
import { HAPROXY_SOURCES } from './haproxy';
import { KONG_SOURCES } from './kong';
import { NGINX_SOURCES } from './nginx';
import { RATE_LIMITER_FLEXIBLE_SOURCES } from './rate-limiter-flexible';
import { REDIS_CELL_SOURCES } from './redis-cell';
import { REDIS_FIXED_SOURCES, REDIS_LOG_SOURCES, REDIS_TWO_WINDOW_SOURCES } from './redis-patterns';
import { SPRING_SOURCES } from './spring-gateway';
import { TRAEFIK_SOURCES } from './traefik';

/** The sources of each system (every id of SYSTEMS), as its responses cite them. */
export const SYSTEM_SOURCES: Readonly<Record<SystemId, readonly SourceRef[]>> = {
  nginx: NGINX_SOURCES,
  envoy: ENVOY_LOCAL_SOURCES,
  traefik: TRAEFIK_SOURCES,
  haproxy: HAPROXY_SOURCES,
  'redis-cell': REDIS_CELL_SOURCES,
  'redis-fixed-window': REDIS_FIXED_SOURCES,
  'redis-sliding-log': REDIS_LOG_SOURCES,
  'redis-sliding-window': REDIS_TWO_WINDOW_SOURCES,
  cloudflare: CLOUDFLARE_SOURCES,
  kong: KONG_SOURCES,
  'envoy-global': ENVOY_GLOBAL_SOURCES,
  caddy: CADDY_SOURCES,
  'spring-gateway': SPRING_SOURCES,
  'express-rate-limit': EXPRESS_RATE_LIMIT_SOURCES,
  'rate-limiter-flexible': RATE_LIMITER_FLEXIBLE_SOURCES,
};
