/**
 * The Envoy global rate limit export, field by field: its first YAML document against the
 * envoyproxy/ratelimit service's config loader, its second against Envoy's API at 1.31.
 *
 * envoyproxy/ratelimit master f2fb157 (the version src/systems/envoy-global.ts cites),
 * src/config/config_impl.go: validKeys (lines 74-91: domain key value descriptors rate_limit
 * unit requests_per_unit unlimited shadow_mode quota_mode name replaces detailed_metric
 * value_to_metric share_threshold metadata; any other key panics "unknown key"); leaves must be
 * string, int or bool (validateYamlKeys, lines 355-400); YamlRoot {domain, descriptors},
 * YamlDescriptor {key, value, rate_limit, descriptors, shadow_mode, …}, YamlRateLimit
 * {requests_per_unit uint32, unit, unlimited, name, replaces} (lines 21-45); loadConfig: empty
 * domain refused; loadDescriptors (lines 243-300): empty key refused, duplicate composite key
 * refused, unit upper-cased must name a RateLimitResponse.RateLimit.Unit other than UNKNOWN
 * (envoy/service/ratelimit/v3/rls.proto: SECOND MINUTE HOUR DAY WEEK MONTH YEAR).
 *
 * Envoy (envoyproxy/data-plane-api cb79c8e, the API at the v1.31.0 release):
 * - extensions/filters/http/ratelimit/v3/rate_limit.proto, message RateLimit: domain (min_len 1),
 *   stage (≤ 10), request_type (internal | external | both | ""), timeout, failure_mode_deny,
 *   rate_limited_as_resource_exhausted, rate_limit_service (required), enable_x_ratelimit_headers
 *   (OFF | DRAFT_VERSION_03), disable_x_envoy_ratelimited_header, rate_limited_status,
 *   response_headers_to_add (≤ 10), status_on_error, stat_prefix.
 * - config/ratelimit/v3/rls.proto RateLimitServiceConfig: grpc_service (required),
 *   transport_api_version (config_source.proto ApiVersion AUTO | V2 | V3, defined_only).
 * - config/core/v3/grpc_service.proto GrpcService: oneof envoy_grpc | google_grpc (required),
 *   timeout, initial_metadata, retry_policy; EnvoyGrpc: cluster_name (min_len 1), authority,
 *   retry_policy, max_receive_message_length, skip_envoy_headers.
 * - config/route/v3/route_components.proto RateLimit: stage, disable_key, actions (min_items 1),
 *   limit; Action: exactly one of its action_specifier oneof; GenericKey: descriptor_value
 *   (min_len 1), descriptor_key; RemoteAddress: no fields.
 * - HttpFilter (http_connection_manager.proto): name, typed_config | config_discovery,
 *   is_optional, disabled.
 */
import fc from 'fast-check';
import * as v from 'valibot';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import type { CalendarWindowsConfig } from '../../../src/core';
import { calendarUnits } from '../../../src/core';
import { toEnvoyGlobal } from '../../../src/export';
import { envoyGlobal } from '../../../src/systems/envoy-global';
import { RUNS, calendarWindows, expectValid, textOf, uint32, itRejectsEach } from './check';

// ---- envoyproxy/ratelimit config (config_impl.go) ----

const VALID_KEYS = new Set([
  'domain',
  'key',
  'value',
  'descriptors',
  'rate_limit',
  'unit',
  'requests_per_unit',
  'unlimited',
  'shadow_mode',
  'quota_mode',
  'name',
  'replaces',
  'detailed_metric',
  'value_to_metric',
  'share_threshold',
  'metadata',
]);

/** validateYamlKeys: every key is in validKeys, lists hold maps, leaves are string, int or bool. */
function keyProblems(node: unknown, path: string): string[] {
  if (node === null || typeof node !== 'object' || Array.isArray(node)) return [];
  const out: string[] = [];
  for (const [k, value] of Object.entries(node)) {
    const at = path === '' ? k : `${path}.${k}`;
    if (!VALID_KEYS.has(k)) out.push(`${at}: config error, unknown key '${k}'`);
    if (k === 'metadata') continue;
    if (Array.isArray(value)) {
      value.forEach((e, i) => {
        if (e === null || typeof e !== 'object' || Array.isArray(e)) {
          out.push(`${at}.${i}: list of type other than map`);
        } else out.push(...keyProblems(e, `${at}.${i}`));
      });
    } else if (value !== null && typeof value === 'object') out.push(...keyProblems(value, at));
    else if (typeof value === 'number' && !Number.isInteger(value))
      out.push(`${at}: not string, int or bool`);
  }
  return out;
}

const UNITS = ['SECOND', 'MINUTE', 'HOUR', 'DAY', 'WEEK', 'MONTH', 'YEAR'];
const rateLimit = v.pipe(
  v.strictObject({
    requests_per_unit: v.optional(uint32),
    unit: v.optional(v.string()),
    unlimited: v.optional(v.boolean()),
    name: v.optional(v.string()),
    replaces: v.optional(v.array(v.strictObject({ name: v.pipe(v.string(), v.minLength(1)) }))),
  }),
  v.check(
    (r) => (r.unlimited === true) !== UNITS.includes((r.unit ?? '').toUpperCase()),
    'invalid rate limit unit (or a unit with unlimited)',
  ),
);
type Descriptor = {
  key: string;
  value?: string;
  rate_limit?: v.InferOutput<typeof rateLimit>;
  descriptors?: Descriptor[];
};
const descriptor: v.GenericSchema<Descriptor> = v.strictObject({
  key: v.pipe(v.string(), v.minLength(1, 'descriptor has empty key')),
  value: v.optional(v.string()),
  rate_limit: v.optional(rateLimit),
  descriptors: v.optional(v.lazy(() => descriptorList)),
  shadow_mode: v.optional(v.boolean()),
  quota_mode: v.optional(v.boolean()),
  detailed_metric: v.optional(v.boolean()),
  value_to_metric: v.optional(v.boolean()),
  share_threshold: v.optional(v.boolean()),
  metadata: v.optional(v.record(v.string(), v.unknown())),
}) as v.GenericSchema<Descriptor>;
const descriptorList: v.GenericSchema<Descriptor[]> = v.pipe(
  v.array(descriptor),
  v.check((list) => {
    const seen = list.map((d) => (d.value ? `${d.key}_${d.value}` : d.key));
    return new Set(seen).size === seen.length;
  }, 'duplicate descriptor composite key'),
);
const serviceConfig = v.pipe(
  v.unknown(),
  v.rawCheck(({ dataset, addIssue }) => {
    for (const p of keyProblems(dataset.value, '')) addIssue({ message: p });
  }),
  v.strictObject({
    domain: v.pipe(v.string(), v.minLength(1, 'config file cannot have empty domain')),
    descriptors: v.optional(descriptorList),
  }),
);

// ---- Envoy (data-plane-api at 1.31) ----

const envoyGrpc = v.strictObject({
  cluster_name: v.pipe(v.string(), v.minLength(1)),
  authority: v.optional(v.string()),
  retry_policy: v.optional(v.record(v.string(), v.unknown())),
  max_receive_message_length: v.optional(uint32),
  skip_envoy_headers: v.optional(v.boolean()),
});
const grpcService = v.pipe(
  v.strictObject({
    envoy_grpc: v.optional(envoyGrpc),
    google_grpc: v.optional(v.record(v.string(), v.unknown())),
    timeout: v.optional(v.string()),
    initial_metadata: v.optional(v.array(v.unknown())),
    retry_policy: v.optional(v.record(v.string(), v.unknown())),
  }),
  v.check(
    (g) => (g.envoy_grpc === undefined) !== (g.google_grpc === undefined),
    'exactly one of envoy_grpc, google_grpc',
  ),
);
const ratelimitFilterConfig = v.strictObject({
  '@type': v.literal('type.googleapis.com/envoy.extensions.filters.http.ratelimit.v3.RateLimit'),
  domain: v.pipe(v.string(), v.minLength(1)),
  stage: v.optional(v.pipe(uint32, v.maxValue(10))),
  request_type: v.optional(v.picklist(['internal', 'external', 'both', ''])),
  timeout: v.optional(v.string()),
  failure_mode_deny: v.optional(v.boolean()),
  rate_limited_as_resource_exhausted: v.optional(v.boolean()),
  rate_limit_service: v.strictObject({
    grpc_service: grpcService,
    transport_api_version: v.optional(v.picklist(['AUTO', 'V2', 'V3'])),
  }),
  enable_x_ratelimit_headers: v.optional(v.picklist(['OFF', 'DRAFT_VERSION_03'])),
  disable_x_envoy_ratelimited_header: v.optional(v.boolean()),
  rate_limited_status: v.optional(v.record(v.string(), v.unknown())),
  response_headers_to_add: v.optional(v.pipe(v.array(v.unknown()), v.maxLength(10))),
  status_on_error: v.optional(v.record(v.string(), v.unknown())),
  stat_prefix: v.optional(v.string()),
});
const ACTIONS = [
  'source_cluster',
  'destination_cluster',
  'request_headers',
  'remote_address',
  'generic_key',
  'header_value_match',
  'dynamic_metadata',
  'metadata',
  'extension',
  'masked_remote_address',
  'query_parameter_value_match',
  'query_parameters',
] as const;
const action = v.pipe(
  v.strictObject({
    ...Object.fromEntries(ACTIONS.map((a) => [a, v.optional(v.record(v.string(), v.unknown()))])),
    remote_address: v.optional(v.strictObject({})),
    generic_key: v.optional(
      v.strictObject({
        descriptor_value: v.pipe(v.string(), v.minLength(1)),
        descriptor_key: v.optional(v.string()),
      }),
    ),
  }),
  v.check((a) => Object.keys(a).length === 1, 'exactly one action_specifier'),
);
const routeRateLimit = v.strictObject({
  stage: v.optional(v.pipe(uint32, v.maxValue(10))),
  disable_key: v.optional(v.string()),
  actions: v.pipe(v.array(action), v.minLength(1)),
  limit: v.optional(v.record(v.string(), v.unknown())),
});
const envoyPart = v.strictObject({
  http_filters: v.array(
    v.strictObject({
      name: v.literal('envoy.filters.http.ratelimit'),
      typed_config: ratelimitFilterConfig,
      is_optional: v.optional(v.boolean()),
      disabled: v.optional(v.boolean()),
    }),
  ),
  route: v.strictObject({ rate_limits: v.array(routeRateLimit) }),
});

type Parts = {
  service: { domain: string; descriptors: Descriptor[] };
  envoy: {
    http_filters: { typed_config: Record<string, unknown> }[];
    route: { rate_limits: { actions: Record<string, Record<string, string>>[] }[] };
  };
};
function partsOf(config: CalendarWindowsConfig, options = {}): Parts {
  const docs = parseAllDocuments(textOf(toEnvoyGlobal(config, options)));
  if (!Array.isArray(docs) || docs.length !== 2) throw new Error('expected two YAML documents');
  for (const d of docs) expect(d.errors).toEqual([]);
  return { service: docs[0]!.toJS() as Parts['service'], envoy: docs[1]!.toJS() as Parts['envoy'] };
}
const DEFAULT = envoyGlobal.defaultConfig as CalendarWindowsConfig;

describe('Envoy global export: the ratelimit service config against config_impl.go (f2fb157)', () => {
  it('the system default, shadow mode on and off: every key valid, every unit known', () => {
    for (const shadowMode of [false, true])
      expectValid(serviceConfig, partsOf(DEFAULT, { shadowMode }).service);
  });

  it('any calendar windows: the whole service config', () => {
    fc.assert(
      fc.property(calendarWindows, fc.boolean(), (c, shadowMode) => {
        expectValid(serviceConfig, partsOf(c, { shadowMode }).service);
      }),
      RUNS,
    );
  });

  it('rate_limit: unit a Unit name, requests_per_unit uint32', () => {
    fc.assert(
      fc.property(calendarWindows, (c) => {
        for (const d of partsOf(c).service.descriptors) {
          const r = d.descriptors![0]!.rate_limit!;
          expectValid(rateLimit, r);
          expect(UNITS).toContain(r.unit!.toUpperCase());
        }
      }),
      RUNS,
    );
  });

  describe('each check can fail: a mutated service config is rejected at that field', () => {
    const good = partsOf({ kind: 'calendar-windows', second: 5, hour: 100 }).service;
    const cases: [string, (d: Parts['service']) => void, string][] = [
      [
        'unknown key',
        (d) =>
          ((
            d.descriptors[0]!.descriptors![0]!.rate_limit as Record<string, unknown>
          ).requests_per_second = 1),
        'descriptors.0.descriptors.0.rate_limit.requests_per_second',
      ],
      [
        'unit "seconds"',
        (d) => (d.descriptors[0]!.descriptors![0]!.rate_limit!.unit = 'seconds'),
        'descriptors.0.descriptors.0.rate_limit',
      ],
      [
        'requests_per_unit 1.5',
        (d) => (d.descriptors[0]!.descriptors![0]!.rate_limit!.requests_per_unit = 1.5),
        'descriptors.0.descriptors.0.rate_limit.requests_per_unit',
      ],
      [
        'requests_per_unit 2^32',
        (d) => (d.descriptors[0]!.descriptors![0]!.rate_limit!.requests_per_unit = 2 ** 32),
        'descriptors.0.descriptors.0.rate_limit.requests_per_unit',
      ],
      ['empty key', (d) => (d.descriptors[0]!.key = ''), 'descriptors.0.key'],
      [
        'duplicate composite key',
        (d) => (d.descriptors[1]!.value = d.descriptors[0]!.value ?? ''),
        'descriptors',
      ],
      ['empty domain', (d) => (d.domain = ''), 'domain'],
    ];
    itRejectsEach(serviceConfig, good, cases);
  });
});

describe('Envoy global export: the Envoy part against rate_limit.proto and route_components.proto (1.31)', () => {
  it('the system default and any calendar windows: filter and route rate_limits', () => {
    expectValid(envoyPart, partsOf(DEFAULT).envoy);
    fc.assert(
      fc.property(calendarWindows, (c) => expectValid(envoyPart, partsOf(c).envoy)),
      { ...RUNS, numRuns: 100 },
    );
  });

  it('the filter and the service use the same domain', () => {
    const p = partsOf(DEFAULT, { domain: 'edge' });
    expect(p.envoy.http_filters[0]!.typed_config.domain).toBe('edge');
    expect(p.service.domain).toBe('edge');
  });

  describe('each check can fail: a mutated Envoy part is rejected at that field', () => {
    const good = partsOf(DEFAULT).envoy;
    const tc = (d: Parts['envoy']) => d.http_filters[0]!.typed_config;
    const cases: [string, (d: Parts['envoy']) => void, string][] = [
      [
        'enable_x_ratelimit_headers true (the pre-v3 bool)',
        (d) => (tc(d).enable_x_ratelimit_headers = true),
        'http_filters.0.typed_config.enable_x_ratelimit_headers',
      ],
      [
        'transport_api_version V4',
        (d) => ((tc(d).rate_limit_service as Record<string, unknown>).transport_api_version = 'V4'),
        'http_filters.0.typed_config.rate_limit_service.transport_api_version',
      ],
      [
        'no rate_limit_service',
        (d) => delete tc(d).rate_limit_service,
        'http_filters.0.typed_config.rate_limit_service',
      ],
      ['empty domain', (d) => (tc(d).domain = ''), 'http_filters.0.typed_config.domain'],
      [
        'two actions in one',
        (d) => (d.route.rate_limits[0]!.actions[0]!.remote_address = {}),
        'route.rate_limits.0.actions.0',
      ],
      [
        'empty descriptor_value',
        (d) => (d.route.rate_limits[0]!.actions[0]!.generic_key!.descriptor_value = ''),
        'route.rate_limits.0.actions.0.generic_key.descriptor_value',
      ],
      [
        'unknown action',
        (d) => (d.route.rate_limits[0]!.actions[1] = { client_ip: {} }),
        'route.rate_limits.0.actions.1.client_ip',
      ],
      ['no actions', (d) => (d.route.rate_limits[0]!.actions = []), 'route.rate_limits.0.actions'],
    ];
    itRejectsEach(envoyPart, good, cases);
  });
});

/**
 * The descriptor the route's actions produce for one request (generic_key → ("generic_key" or its
 * descriptor_key, value); remote_address → ("remote_address", ip)), looked up as config_impl.go
 * GetLimit does: at each level key_value first, then key alone; the limit at the last entry.
 */
function limitFor(service: Parts['service'], actions: Record<string, Record<string, string>>[]) {
  const entries = actions.map((a) =>
    a.generic_key
      ? [a.generic_key.descriptor_key ?? 'generic_key', a.generic_key.descriptor_value!]
      : ['remote_address', '203.0.113.7'],
  );
  let level: Descriptor[] | undefined = service.descriptors;
  let found: Descriptor['rate_limit'];
  for (const [i, [key, value]] of entries.entries()) {
    const next: Descriptor | undefined =
      level?.find((d) => d.key === key && d.value === value) ??
      level?.find((d) => d.key === key && !d.value);
    if (next?.rate_limit && i === entries.length - 1) found = next.rate_limit;
    level = next?.descriptors;
    if (!level) break;
  }
  return found;
}

describe('Envoy global export means what the lab simulates', () => {
  it('each route rate_limits entry finds exactly the lab’s limit for its unit in the service', () => {
    fc.assert(
      fc.property(calendarWindows, (c) => {
        const { service, envoy } = partsOf(c);
        const units = calendarUnits(c);
        expect(envoy.route.rate_limits).toHaveLength(units.length);
        envoy.route.rate_limits.forEach((rl, i) => {
          expect(limitFor(service, rl.actions)).toEqual({
            unit: units[i]!.unit,
            requests_per_unit: units[i]!.limit,
          });
        });
      }),
      RUNS,
    );
  });

  it('shadow_mode on every limited descriptor exactly when the limiter is in shadow mode', () => {
    for (const shadowMode of [false, true]) {
      const { service } = partsOf({ ...DEFAULT, shadowMode });
      for (const d of service.descriptors) {
        expect((d.descriptors![0] as Record<string, unknown>).shadow_mode === true).toBe(
          shadowMode,
        );
      }
    }
  });
});
