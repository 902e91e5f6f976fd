/**
 * What each system sends for a decision: the code that writes a response (status lines, headers,
 * error pages), kept out of the registry so the first load does not carry it. Imported only by the
 * parts that show a response (the inspector, the probe, the experiments' notes, exports).
 */
import type { AlgorithmConfig, Decision } from '../../core';
import { systemOf } from '../index';
import type {
  SystemId,
  SystemInfo,
  SystemModel,
  SystemResponder,
  SystemResponse,
  SystemResponseOptions,
} from '../types';
import { caddyResponse } from './caddy';
import { cloudflareResponse } from './cloudflare';
import { envoyGlobalResponse } from './envoy-global';
import { envoyLocalResponse } from './envoy-local';
import { expressRateLimitSystemResponse } from './express-rate-limit';
import { haproxyResponse } from './haproxy';
import { kongResponse } from './kong';
import { nginxResponse } from './nginx';
import { rateLimiterFlexibleResponse } from './rate-limiter-flexible';
import { redisCellResponse } from './redis-cell';
import {
  redisFixedWindowResponse,
  redisSlidingLogResponse,
  redisTwoWindowResponse,
} from './redis-patterns';
import { springGatewayResponse } from './spring-gateway';
import { traefikResponse } from './traefik';

export {
  SCENARIO_EPOCH_MS,
  httpDate,
  isGenericHeader,
  makeResponse,
  standardFields,
  wallClockMs,
  withAdded,
} from '../response';
export { nginxAddedHeaders, nginxErrorReply } from './nginx';
export { haproxyDenyHeaders, haproxyStatusLine } from './haproxy';
export { envoyXRateLimitHeaders } from './envoy-local';
export { TRAEFIK_STORE_DOWN_BODY, traefikStoreDownResponse } from './traefik';

/** Each system's `response`, by system id (every id of SYSTEMS). */
const RESPONDERS: Readonly<Record<SystemId, SystemResponder>> = {
  nginx: nginxResponse,
  envoy: envoyLocalResponse,
  traefik: traefikResponse,
  haproxy: haproxyResponse,
  'redis-cell': redisCellResponse,
  'redis-fixed-window': redisFixedWindowResponse,
  'redis-sliding-log': redisSlidingLogResponse,
  'redis-sliding-window': redisTwoWindowResponse,
  cloudflare: cloudflareResponse,
  kong: kongResponse,
  'envoy-global': envoyGlobalResponse,
  caddy: caddyResponse,
  'spring-gateway': springGatewayResponse,
  'express-rate-limit': expressRateLimitSystemResponse,
  'rate-limiter-flexible': rateLimiterFlexibleResponse,
};

/** The `response` of `system` (SystemModel.response). Throws for a system with none listed. */
export function responseOf(system: Pick<SystemInfo, 'id'>): SystemResponder {
  const respond = RESPONDERS[system.id];
  if (respond === undefined) throw new Error(`no response is written for system "${system.id}"`);
  return respond;
}

/** `system` with its `response`: the whole SystemModel. */
export function withResponse(system: SystemInfo): SystemInfo & SystemModel {
  return { ...system, response: responseOf(system) };
}

/** What the client receives from a limiter entry's system for `decision`. */
export function entryResponse(
  entry: { system?: SystemId; config: AlgorithmConfig; standardHeaders?: boolean; name?: string },
  decision: Decision,
  policyName: string,
  at: Pick<
    SystemResponseOptions,
    | 'nowMs'
    | 'epochMs'
    | 'key'
    | 'before'
    | 'keyHistoryMs'
    | 'keyHistoryConfig'
    | 'keyHistoryShared'
  > = {},
): SystemResponse {
  return responseOf(systemOf(entry))(entry.config, decision, {
    standardHeaders: entry.standardHeaders === true,
    policyName,
    ...(entry.name === undefined ? {} : { entryName: entry.name }),
    ...at,
  });
}
