/**
 * A Cloudflare rate limiting rule for the lab's Cloudflare limiter, in the two forms Cloudflare
 * takes it: the Rulesets API body for the zone's `http_ratelimit` phase entry point
 * (`PUT /zones/{zone_id}/rulesets/phases/http_ratelimit/entrypoint`) and the same rule as a
 * Terraform `cloudflare_ruleset` resource (Cloudflare provider v5 attribute syntax).
 *
 * Sources (Cloudflare docs, 2026):
 * - RULE_PAGE = waf/rate-limiting-rules/parameters/ — every field of the `ratelimit` object and
 *   the rule's `expression`, their API names and allowed values.
 * - API_PAGE = waf/rate-limiting-rules/create-api/ — rate limiting rules live in the
 *   `http_ratelimit` phase entry point ruleset of the zone (`kind: "zone"`), each rule a regular
 *   Ruleset Engine rule plus a `ratelimit` object.
 * - TERRAFORM_PAGE = terraform/additional-configurations/rate-limiting-rules/ — the
 *   `cloudflare_ruleset` resource with `zone_id`, `name`, `kind = "zone"`,
 *   `phase = "http_ratelimit"` and `rules = [{ … ratelimit = { … } }]`.
 */
import type { AlgorithmConfig } from '../core';
import { assertAlgorithmConfig, plural } from '../core';
import {
  CLOUDFLARE_PERIOD_PLANS,
  CLOUDFLARE_PERIODS_TEXT,
  CLOUDFLARE_TIMEOUTS_TEXT,
  THROTTLE_TIMEOUT_S,
  cloudflarePeriodOk,
} from '../systems/cloudflare';
import type { SystemExportOutcome, SystemExportTarget } from './systems-types';

/** The rate limiting rule parameters page (field names, allowed values). */
export const RULE_PAGE = 'https://developers.cloudflare.com/waf/rate-limiting-rules/parameters/';
/** Creating a rate limiting rule with the Rulesets API (phase, entry point, rule shape). */
export const API_PAGE = 'https://developers.cloudflare.com/waf/rate-limiting-rules/create-api/';
/** Rate limiting rules with Terraform's `cloudflare_ruleset` resource. */
export const TERRAFORM_PAGE =
  'https://developers.cloudflare.com/terraform/additional-configurations/rate-limiting-rules/';

/** The `ratelimit` object of a rule, with only the fields the lab models. */
export interface CloudflareRatelimit {
  characteristics: string[];
  /** Seconds; one of CLOUDFLARE_PERIODS_S. */
  period: number;
  requests_per_period: number;
  /** Seconds; 0 (THROTTLE_TIMEOUT_S) or one of CLOUDFLARE_TIMEOUTS_S. */
  mitigation_timeout: number;
  requests_to_origin: boolean;
}

/** One rule of the `http_ratelimit` phase entry point ruleset. */
export interface CloudflareRule {
  description: string;
  expression: string;
  action: 'block';
  ratelimit: CloudflareRatelimit;
  enabled: boolean;
}

/** The body of `PUT …/rulesets/phases/http_ratelimit/entrypoint`. */
export interface CloudflareEntrypoint {
  description: string;
  rules: CloudflareRule[];
}

const DESCRIPTION = 'Rate limit from Rate Limit Lab';

/** What Cloudflare's rule cannot say about the lab's limiter (shared by both forms). */
const DIFFERENCES = [
  'Cloudflare counts per data centre (cf.colo.id is a mandatory characteristic): a client whose requests reach several data centres gets the limit at each of them; the lab has one counter per key.',
  'Cloudflare’s counters are eventually consistent across the machines of a data centre; the lab decides each request with an exact count.',
];

const NOTES = [
  `mitigation_timeout 0 is Cloudflare’s “Throttle requests over the maximum configured rate” behaviour, which with the Block action only Enterprise plans have: requests pass again as soon as the estimated rate is below requests_per_period, which is what the lab simulates. On other plans set a duration (mitigation_timeout ${CLOUDFLARE_TIMEOUTS_TEXT}, by plan): Cloudflare then blocks every request of the key for that whole time, which the lab does not simulate.`,
  `The period must be one your plan offers (${CLOUDFLARE_PERIOD_PLANS}); the API refuses the rest.`,
  'Blocked requests get 429 with Cloudflare’s 1015 page and Retry-After: 30 (as the lab’s response shows); no rate-limit headers.',
  'expression true matches every request, as the lab counts every request of the trace; the Free plan takes only URI path and verified-bot fields there, so write a path condition instead, e.g. (http.request.uri.path wildcard "/*").',
];

/**
 * The rule for `config`, or why Cloudflare's rule cannot express it. Each field cites RULE_PAGE
 * unless it says otherwise.
 */
export function cloudflareEntrypoint(
  config: AlgorithmConfig,
): { ok: true; body: CloudflareEntrypoint } | { ok: false; reason: string } {
  const c = assertAlgorithmConfig(config);
  if (c.kind !== 'sliding-window-counter' || c.anchor === 'entry') {
    return {
      ok: false,
      reason:
        'A Cloudflare rate limiting rule is a sliding-window counter over aligned periods: choose the Cloudflare system to export it.',
    };
  }
  if (!cloudflarePeriodOk(c.windowMs)) {
    return {
      ok: false,
      reason: `Cloudflare's rules take a period of ${CLOUDFLARE_PERIODS_TEXT} only, got ${c.windowMs} ms.`,
    };
  }
  const ratelimit: CloudflareRatelimit = {
    // "With the same characteristics": cf.colo.id is mandatory; ip.src is "IP", the per-client key
    // the lab's traces carry.
    characteristics: ['cf.colo.id', 'ip.src'],
    // "When rate exceeds … Period": seconds, one of 10, 60, 120, 300, 600, 3600.
    period: c.windowMs / 1000,
    // "When rate exceeds … Requests": the number of requests per period that triggers the action,
    // an integer ≥ 1 (CLOUDFLARE_MIN_REQUESTS; the lab's limit is one already).
    requests_per_period: c.limit,
    // "With the following behavior": 0 throttles (passes again once the rate is below the limit).
    mitigation_timeout: THROTTLE_TIMEOUT_S,
    // "Also apply rate limiting to cached assets" on (requests_to_origin false): cached responses
    // count too, as the lab counts every request.
    requests_to_origin: false,
  };
  const rule: CloudflareRule = {
    description: `${plural(c.limit, 'request', 'requests')} per ${c.windowMs / 1000} s per IP`,
    // "If incoming requests match" (the rule's expression): every request. No
    // counting_expression: it defaults to the rule expression, so every matching request counts.
    expression: 'true',
    // The action the lab's Cloudflare system models: Block, 429 (src/systems/cloudflare.ts).
    action: 'block',
    ratelimit,
    enabled: true,
  };
  return { ok: true, body: { description: DESCRIPTION, rules: [rule] } };
}

/** A Terraform (HCL) value for a JSON value: strings quoted as JSON, objects as `{ k = v }`. */
function hcl(value: unknown, indent: string): string {
  if (Array.isArray(value)) return `[${value.map((v) => hcl(v, indent)).join(', ')}]`;
  if (typeof value === 'object' && value !== null) {
    const inner = `${indent}  `;
    const lines = Object.entries(value).map(([k, v]) => `${inner}${k} = ${hcl(v, inner)}`);
    return `{\n${lines.join('\n')}\n${indent}}`;
  }
  // HCL's quoted strings take JSON's escapes; numbers and booleans are written alike.
  return JSON.stringify(value);
}

function unsupported(target: SystemExportTarget, config: AlgorithmConfig, reason: string) {
  return { ok: false as const, target, kind: config.kind, reason };
}

/** The Rulesets API body for the zone's `http_ratelimit` phase entry point (API_PAGE). */
export function toCloudflare(config: AlgorithmConfig): SystemExportOutcome {
  const built = cloudflareEntrypoint(config);
  if (!built.ok) return unsupported('cloudflare', config, built.reason);
  return {
    ok: true,
    target: 'cloudflare',
    language: 'json',
    text: `${JSON.stringify(built.body, null, 2)}\n`,
    assumes: `Cloudflare Rulesets API: PUT https://api.cloudflare.com/client/v4/zones/{zone_id}/rulesets/phases/http_ratelimit/entrypoint with your zone's ID in the URL; replaces the phase's rules (${API_PAGE}, fields ${RULE_PAGE})`,
    differences: DIFFERENCES,
    notes: NOTES,
  };
}

/** The same rule as a Terraform `cloudflare_ruleset` resource (TERRAFORM_PAGE). */
export function toCloudflareTerraform(config: AlgorithmConfig): SystemExportOutcome {
  const built = cloudflareEntrypoint(config);
  if (!built.ok) return unsupported('cloudflare-terraform', config, built.reason);
  const resource = {
    zone_id: '<ZONE_ID>',
    name: 'http_ratelimit entry point',
    description: built.body.description,
    kind: 'zone',
    phase: 'http_ratelimit',
    rules: built.body.rules,
  };
  const text = `# Cloudflare provider v5. Fill in: zone_id, your zone's ID (Cloudflare dashboard, the
# zone's Overview page). Terraform then owns the zone's http_ratelimit entry point ruleset.
resource "cloudflare_ruleset" "rate_limit" ${hcl(resource, '')}
`;
  return {
    ok: true,
    target: 'cloudflare-terraform',
    language: 'hcl',
    text,
    assumes: `Terraform with the Cloudflare provider v5 (attribute syntax rules = [{ … }]; ${TERRAFORM_PAGE})`,
    differences: DIFFERENCES,
    notes: NOTES,
  };
}
