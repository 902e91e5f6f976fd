/**
 * The Cloudflare export, field by field, against Cloudflare's documented schema (Cloudflare does
 * not run here):
 * - waf/rate-limiting-rules/parameters/ (cloudflare/cloudflare-docs
 *   src/content/docs/waf/rate-limiting-rules/parameters.mdx @ 5d2cc64b): `expression` (string, the
 *   rule's field), `requests_to_origin` (boolean, optional), `characteristics` (array of strings,
 *   `cf.colo.id` mandatory; `ip.src` and `cf.unique_visitor_id` exclusive of each other),
 *   `period` (10, 60, 120, 300, 600 or 3600), `requests_per_period` (integer; at least 1 in
 *   terraform-provider-cloudflare internal/services/ruleset/schema.go @ 252f3bd3),
 *   `mitigation_timeout` ("For duration": 0, 10, 60, 120, 300, 600, 3600 or 86400; 0 is the
 *   throttle behaviour), `counting_expression` (optional string).
 *   The period and timeout lists are the same constants the Cloudflare system refuses with
 *   (src/systems/cloudflare.ts cites the same page).
 * - waf/rate-limiting-rules/create-api/: the rule sits in the `http_ratelimit` phase entry point
 *   ruleset (`kind: "zone"`) as a Ruleset Engine rule (`action`, `expression`, `description`,
 *   `enabled`) with a `ratelimit` object.
 * - terraform/additional-configurations/rate-limiting-rules/: `cloudflare_ruleset` with `zone_id`,
 *   `name`, `description`, `kind = "zone"`, `phase = "http_ratelimit"`, `rules = [{ … }]` carrying
 *   the same field names as the API.
 */
import fc from 'fast-check';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import type { SlidingWindowCounterConfig } from '../../../src/core';
import { MAX_COUNT } from '../../../src/core';
import { toCloudflare, toCloudflareTerraform } from '../../../src/export';
import {
  CLOUDFLARE_MIN_REQUESTS,
  CLOUDFLARE_PERIODS_S,
  CLOUDFLARE_TIMEOUTS_S,
  THROTTLE_TIMEOUT_S,
  cloudflare,
} from '../../../src/systems/cloudflare';
import { RUNS, expectRejectedAt, expectValid, mutated, problems, textOf } from './check';

const positiveInt = v.pipe(v.number(), v.integer(), v.minValue(CLOUDFLARE_MIN_REQUESTS));

/** `ratelimit`, as RULE_PAGE lists its fields (score fields left out: the lab has no scores). */
const ratelimit = v.pipe(
  v.strictObject({
    characteristics: v.pipe(v.array(v.pipe(v.string(), v.minLength(1))), v.minLength(1)),
    period: v.picklist(CLOUDFLARE_PERIODS_S as number[]),
    requests_per_period: positiveInt,
    mitigation_timeout: v.picklist([THROTTLE_TIMEOUT_S, ...CLOUDFLARE_TIMEOUTS_S]),
    requests_to_origin: v.optional(v.boolean()),
    counting_expression: v.optional(v.string()),
  }),
  v.check(
    (r) => r.characteristics.includes('cf.colo.id'),
    'characteristics: cf.colo.id is mandatory',
  ),
  v.check(
    (r) =>
      !(r.characteristics.includes('ip.src') && r.characteristics.includes('cf.unique_visitor_id')),
    'characteristics: ip.src and cf.unique_visitor_id exclude each other',
  ),
);

/** One rule of the phase: the actions a rate limiting rule takes (RULE_PAGE, "Then take action"). */
const rule = v.strictObject({
  ref: v.optional(v.string()),
  description: v.optional(v.string()),
  expression: v.pipe(v.string(), v.minLength(1)),
  action: v.picklist(['block', 'managed_challenge', 'js_challenge', 'challenge', 'log']),
  ratelimit,
  enabled: v.optional(v.boolean()),
});

/** The PUT body of the phase entry point. */
const entrypoint = v.strictObject({
  description: v.optional(v.string()),
  rules: v.pipe(v.array(rule), v.minLength(1)),
});

/** The cloudflare_ruleset resource's attributes. */
const terraformRuleset = v.strictObject({
  zone_id: v.string(),
  name: v.pipe(v.string(), v.minLength(1)),
  description: v.optional(v.string()),
  kind: v.literal('zone'),
  phase: v.literal('http_ratelimit'),
  rules: v.pipe(v.array(rule), v.minLength(1)),
});

/**
 * Reads the export's HCL back into a value: this subset (attributes `k = v`, strings, numbers,
 * booleans, lists, objects, `#` comment lines) is JSON once keys are quoted and commas put in.
 */
function readHcl(text: string): { name: string; body: Record<string, unknown> } {
  const head = /^resource "cloudflare_ruleset" "([a-z_]+)" \{$/m.exec(text);
  if (head === null) throw new Error('no cloudflare_ruleset resource');
  const lines = text
    .slice(head.index + head[0].length - 1)
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((l) => l.replace(/^([a-z_]+) = /, '"$1": '));
  const json = lines
    .map((l, i) => {
      const next = lines[i + 1] ?? '';
      const opens = l.endsWith('{') || l.endsWith('[');
      const closes = /^[}\]]/.test(next);
      return opens || closes || next === '' ? l : `${l},`;
    })
    .join('\n');
  return { name: head[1] as string, body: JSON.parse(json) as Record<string, unknown> };
}

type Rule = Record<string, unknown> & { ratelimit: Record<string, unknown> };
const bodyOf = (c: SlidingWindowCounterConfig) =>
  JSON.parse(textOf(toCloudflare(c))) as { rules: Rule[] } & Record<string, unknown>;
const ruleOf = (b: { rules: Rule[] }): Rule => b.rules[0] as Rule;

/** Every config the Cloudflare system accepts: its periods, any limit. */
const cloudflareConfigs: fc.Arbitrary<SlidingWindowCounterConfig> = fc.record({
  kind: fc.constant('sliding-window-counter' as const),
  limit: fc.oneof(fc.integer({ min: 1, max: 100 }), fc.integer({ min: 1, max: MAX_COUNT })),
  windowMs: fc.constantFrom(...CLOUDFLARE_PERIODS_S.map((s) => s * 1000)),
});
const DEFAULT = cloudflare.defaultConfig as SlidingWindowCounterConfig;

describe('Cloudflare export against the rate limiting rule parameters (Cloudflare docs, 2026)', () => {
  it('the API body: every field known, typed and allowed, for every config the system takes', () => {
    fc.assert(
      fc.property(cloudflareConfigs, (c) => expectValid(entrypoint, bodyOf(c))),
      RUNS,
    );
  });

  it('the Terraform resource: the same rule, kind zone, phase http_ratelimit, zone_id to fill in', () => {
    fc.assert(
      fc.property(cloudflareConfigs, (c) => {
        const text = textOf(toCloudflareTerraform(c));
        const { body } = readHcl(text);
        expectValid(terraformRuleset, body);
        // Field for field the API body's rules: one builder, two spellings.
        expect(body.rules).toEqual(bodyOf(c).rules);
        expect(body.zone_id).toBe('<ZONE_ID>');
        expect(text).toMatch(/^# .*Fill in: zone_id/m);
      }),
      RUNS,
    );
  });

  it('semantic: period, requests_per_period are the lab’s window and limit; throttle, no duration', () => {
    fc.assert(
      fc.property(cloudflareConfigs, (c) => {
        const r = ruleOf(bodyOf(c)).ratelimit;
        expect(r.period).toBe(c.windowMs / 1000);
        expect(r.requests_per_period).toBe(c.limit);
        // The lab admits again as soon as the estimate is below the limit: the throttle behaviour.
        expect(r.mitigation_timeout).toBe(0);
        // Every request counts, cached or not: the lab counts every request of the trace.
        expect(r.requests_to_origin).toBe(false);
        expect(r).not.toHaveProperty('counting_expression');
      }),
      RUNS,
    );
  });

  it('characteristics: cf.colo.id first, then the per-client key ip.src', () => {
    expect(ruleOf(bodyOf(DEFAULT)).ratelimit.characteristics).toEqual(['cf.colo.id', 'ip.src']);
  });

  it('action block (the lab models Block: 429), expression every request, enabled', () => {
    const r = ruleOf(bodyOf(DEFAULT));
    expect(r.action).toBe('block');
    expect(r.expression).toBe('true');
    expect(r.enabled).toBe(true);
    expect(r.description).toBe('50 requests per 10 s per IP');
  });

  it('refuses what Cloudflare’s rule cannot express, with a reason', () => {
    const bad = toCloudflare({ kind: 'sliding-window-counter', limit: 5, windowMs: 1000 });
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.reason).toMatch(
      /10 s, 1 min, 2 min, 5 min, 10 min or 1 h only, got 1000 ms/,
    );
    const entry = toCloudflareTerraform({
      kind: 'sliding-window-counter',
      limit: 5,
      windowMs: 10_000,
      anchor: 'entry',
    });
    expect(entry.ok).toBe(false);
    expect(
      toCloudflare({ kind: 'token-bucket', maxTokens: 1, tokensPerFill: 1, fillIntervalMs: 1000 })
        .ok,
    ).toBe(false);
  });

  describe('each check can fail: a mutated export is rejected at that field', () => {
    const at = 'rules.0.ratelimit';
    const cases: [string, (b: { rules: Rule[] } & Record<string, unknown>) => void, string][] = [
      ['unknown rule field', (b) => (ruleOf(b).priority = 1), 'rules.0.priority'],
      ['unknown ratelimit field', (b) => (ruleOf(b).ratelimit.burst = 5), `${at}.burst`],
      ['unknown top-level field', (b) => (b.phase = 'http_ratelimit'), 'phase'],
      ['period 1 s', (b) => (ruleOf(b).ratelimit.period = 1), `${at}.period`],
      ['period 30 s', (b) => (ruleOf(b).ratelimit.period = 30), `${at}.period`],
      ['period as text', (b) => (ruleOf(b).ratelimit.period = '10'), `${at}.period`],
      [
        'mitigation_timeout 45',
        (b) => (ruleOf(b).ratelimit.mitigation_timeout = 45),
        `${at}.mitigation_timeout`,
      ],
      // Not in the API's list: 30 s (the dashboard's old list had it; parameters.mdx does not).
      [
        'mitigation_timeout 30',
        (b) => (ruleOf(b).ratelimit.mitigation_timeout = 30),
        `${at}.mitigation_timeout`,
      ],
      [
        'requests_per_period 0',
        (b) => (ruleOf(b).ratelimit.requests_per_period = 0),
        `${at}.requests_per_period`,
      ],
      [
        'requests_per_period 1.5',
        (b) => (ruleOf(b).ratelimit.requests_per_period = 1.5),
        `${at}.requests_per_period`,
      ],
      ['no cf.colo.id', (b) => (ruleOf(b).ratelimit.characteristics = ['ip.src']), at],
      [
        'ip.src with cf.unique_visitor_id',
        (b) =>
          (ruleOf(b).ratelimit.characteristics = ['cf.colo.id', 'ip.src', 'cf.unique_visitor_id']),
        at,
      ],
      [
        'requests_to_origin as text',
        (b) => (ruleOf(b).ratelimit.requests_to_origin = 'false'),
        `${at}.requests_to_origin`,
      ],
      ['action deny', (b) => (ruleOf(b).action = 'deny'), 'rules.0.action'],
      ['empty expression', (b) => (ruleOf(b).expression = ''), 'rules.0.expression'],
      ['enabled as text', (b) => (ruleOf(b).enabled = 'true'), 'rules.0.enabled'],
      ['no rules', (b) => (b.rules = []), 'rules'],
    ];
    const good = bodyOf(DEFAULT);
    it('every mitigation_timeout the API lists passes: 0, 10, 60, 120, 300, 600, 3600, 86400', () => {
      for (const t of [0, 10, 60, 120, 300, 600, 3600, 86400]) {
        expectValid(
          entrypoint,
          mutated(good, (b) => (ruleOf(b).ratelimit.mitigation_timeout = t)),
        );
      }
    });
    it.each(cases)('%s', (_name, edit, path) => {
      expectValid(entrypoint, good);
      expectRejectedAt(entrypoint, mutated(good, edit), path);
    });

    it('the Terraform resource: wrong kind or phase, an unknown attribute', () => {
      const { body } = readHcl(textOf(toCloudflareTerraform(DEFAULT)));
      expect(problems(terraformRuleset, body)).toEqual([]);
      expectRejectedAt(
        terraformRuleset,
        mutated(body, (b) => (b.kind = 'root')),
        'kind',
      );
      expectRejectedAt(
        terraformRuleset,
        mutated(body, (b) => (b.phase = 'http_request_firewall_custom')),
        'phase',
      );
      expectRejectedAt(
        terraformRuleset,
        mutated(body, (b) => (b.zone = 'x')),
        'zone',
      );
    });
  });
});
