/**
 * Exports of the gateway systems (Kong, Envoy's global rate limit service, Caddy,
 * Spring Cloud Gateway, express-rate-limit, rate-limiter-flexible): each writes the system's own
 * configuration format for a limiter of that system.
 */
import type { ExportResult, ExportUnsupported } from './types';

export type SystemExportTarget =
  | 'kong'
  | 'envoy-global'
  | 'caddy'
  | 'spring-gateway'
  | 'express-rate-limit'
  | 'rate-limiter-flexible'
  | 'traefik'
  | 'cloudflare'
  | 'cloudflare-terraform';

/** Like ExportResult, for a system target. */
export interface SystemExportResult extends Omit<ExportResult, 'target' | 'language'> {
  target: SystemExportTarget;
  language: 'yaml' | 'javascript' | 'caddyfile' | 'json' | 'hcl';
}

export interface SystemExportUnsupported extends Omit<ExportUnsupported, 'target'> {
  target: SystemExportTarget;
}

export type SystemExportOutcome = SystemExportResult | SystemExportUnsupported;
