/**
 * The Kong rate-limiting export, field by field, against Kong's own schemas at Kong 3.10.0
 * (Kong/kong master 22246ef, the version src/systems/kong.ts cites):
 * - kong/plugins/rate-limiting/schema.lua (lines 7-221): config fields second … year (number,
 *   gt 0), limit_by (one_of consumer credential ip service header path, default consumer),
 *   header_name (typedefs.header_name), path (typedefs.path), policy (one_of local cluster redis;
 *   local redis only when DB-less, lines 49-70), fault_tolerant, redis (redis_schema), hide_client_headers,
 *   error_code (number gt 0), error_message, sync_rate (number, default −1); custom_validator
 *   validate_periods_order (lines 10-36: a longer period's limit not lower than a shorter one's;
 *   sync_rate only with redis unless −1; with redis ≥ 0.02 or −1); entity_checks (lines 198-220:
 *   at_least_one_of the six periods; policy redis → redis.host, redis.port, redis.timeout
 *   required; limit_by header → header_name; limit_by path → path).
 * - kong/tools/redis/schema.lua: host (typedefs.host), port (0 … 65535, default 6379), timeout
 *   (0 … 2^31 − 2, default 2000), username, password, database (integer), ssl, ssl_verify,
 *   server_name.
 * - kong/tools/http.lua validate_header_name: ^[a-zA-Z0-9-_]+$; kong/db/schema/typedefs.lua
 *   typedefs.path: starts with "/", no "//".
 * - kong/db/schema/others/declarative_config.lua line 255: _format_version one_of 1.1, 2.1, 3.0
 *   (a string); kong/db/schema/entities/services.lua (fields and the `url` shorthand) and
 *   plugins.lua (name required, instance_name, config, protocols, enabled, tags).
 * Fields are checked after Kong's defaults are filled in, as Kong validates them.
 */
import fc from 'fast-check';
import * as v from 'valibot';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import type { CalendarWindowsConfig } from '../../../src/core';
import { calendarUnits, createLimiter } from '../../../src/core';
import { toKong } from '../../../src/export';
import type { KongOptions } from '../../../src/export';
import { kong } from '../../../src/systems/kong';
import { randomTrace, seeded } from '../gen';
import {
  RUNS,
  calendarWindows,
  expectRejectedAt,
  expectValid,
  mutated,
  problems,
  textOf,
  itRejectsEach,
} from './check';

const PERIODS = ['second', 'minute', 'hour', 'day', 'month', 'year'] as const;
const gt0 = v.pipe(v.number(), v.gtValue(0));
const integerIn = (min: number, max: number) =>
  v.pipe(v.number(), v.integer(), v.minValue(min), v.maxValue(max));

const redisConfig = v.strictObject({
  host: v.optional(v.pipe(v.string(), v.minLength(1))),
  port: v.optional(integerIn(0, 65_535)),
  timeout: v.optional(integerIn(0, 2 ** 31 - 2)),
  username: v.optional(v.string()),
  password: v.optional(v.string()),
  database: v.optional(v.pipe(v.number(), v.integer())),
  ssl: v.optional(v.boolean()),
  ssl_verify: v.optional(v.boolean()),
  server_name: v.optional(v.string()),
});

/** schema.lua's config record, with its custom validator and entity checks on the whole record. */
const rateLimitingConfig = v.pipe(
  v.strictObject({
    second: v.optional(gt0),
    minute: v.optional(gt0),
    hour: v.optional(gt0),
    day: v.optional(gt0),
    month: v.optional(gt0),
    year: v.optional(gt0),
    limit_by: v.optional(v.picklist(['consumer', 'credential', 'ip', 'service', 'header', 'path'])),
    header_name: v.optional(v.pipe(v.string(), v.regex(/^[a-zA-Z0-9-_]+$/))),
    path: v.optional(
      v.pipe(
        v.string(),
        v.startsWith('/'),
        v.check((p) => !p.includes('//'), 'must not have empty segments'),
      ),
    ),
    // With a database; DB-less Kong offers local and redis only (checked in its own test below).
    policy: v.optional(v.picklist(['local', 'cluster', 'redis'])),
    fault_tolerant: v.optional(v.boolean()),
    redis: v.optional(redisConfig),
    hide_client_headers: v.optional(v.boolean()),
    error_code: v.optional(gt0),
    error_message: v.optional(v.string()),
    sync_rate: v.optional(v.number()),
  }),
  v.check(
    (c) => PERIODS.some((p) => c[p] !== undefined),
    'at_least_one_of second, minute, hour, day, month, year',
  ),
  v.check((c) => {
    for (const [i, lower] of PERIODS.entries()) {
      const v1 = c[lower];
      if (v1 === undefined) continue;
      for (const upper of PERIODS.slice(i + 1)) {
        const v2 = c[upper];
        if (v2 !== undefined && v2 < v1) return false;
      }
    }
    return true;
  }, 'validate_periods_order: a longer period has a lower limit than a shorter one'),
  v.check((c) => {
    const policy = c.policy ?? 'local';
    const syncRate = c.sync_rate ?? -1;
    if (policy !== 'redis') return syncRate === -1;
    return syncRate === -1 || syncRate >= 0.02;
  }, 'sync_rate: only with the redis policy, and then -1 or at least 0.02'),
  v.check(
    (c) => c.policy !== 'redis' || (c.redis?.host ?? '') !== '',
    'policy redis needs redis.host (port and timeout have defaults)',
  ),
  v.check(
    (c) => c.limit_by !== 'header' || c.header_name !== undefined,
    'limit_by header needs header_name',
  ),
  v.check((c) => c.limit_by !== 'path' || c.path !== undefined, 'limit_by path needs path'),
);

const plugin = v.strictObject({
  name: v.literal('rate-limiting'),
  instance_name: v.optional(v.string()),
  config: rateLimitingConfig,
  protocols: v.optional(v.array(v.string())),
  enabled: v.optional(v.boolean()),
  tags: v.optional(v.array(v.string())),
});
const service = v.strictObject({
  name: v.optional(v.pipe(v.string(), v.minLength(1))),
  // services.lua shorthand: url sets protocol, host, port and path.
  url: v.optional(v.pipe(v.string(), v.url(), v.regex(/^https?:\/\//))),
  protocol: v.optional(v.string()),
  host: v.optional(v.string()),
  port: v.optional(integerIn(0, 65_535)),
  path: v.optional(v.string()),
  retries: v.optional(integerIn(0, 32_767)),
  connect_timeout: v.optional(integerIn(1, 2 ** 31 - 2)),
  write_timeout: v.optional(integerIn(1, 2 ** 31 - 2)),
  read_timeout: v.optional(integerIn(1, 2 ** 31 - 2)),
  tags: v.optional(v.array(v.string())),
  enabled: v.optional(v.boolean()),
  plugins: v.optional(v.array(plugin)),
  routes: v.optional(v.array(v.unknown())),
});
const declarative = v.strictObject({
  _format_version: v.picklist(['1.1', '2.1', '3.0']),
  _transform: v.optional(v.boolean()),
  _comment: v.optional(v.string()),
  services: v.array(service),
});

type Doc = {
  _format_version: unknown;
  services: {
    name: string;
    url: string;
    plugins: { name: string; config: Record<string, unknown> }[];
  }[];
};
function docOf(config: CalendarWindowsConfig, options: KongOptions = {}): Doc {
  return parse(textOf(toKong(config, options))) as Doc;
}
const configOf = (d: Doc): Record<string, unknown> => d.services[0]!.plugins[0]!.config;
const DEFAULT = kong.defaultConfig as CalendarWindowsConfig;
const policies = fc.constantFrom<KongOptions['policy']>('local', 'cluster', 'redis', undefined);

describe('Kong rate-limiting export against schema.lua (Kong 3.10.0)', () => {
  it('the system default, each store policy: every field known, typed and in range', () => {
    for (const policy of ['local', 'cluster', 'redis'] as const) {
      expectValid(declarative, docOf(DEFAULT, { policy }));
    }
  });

  it('the whole declarative file for any calendar windows and policy', () => {
    fc.assert(
      fc.property(calendarWindows, policies, (c, policy) => {
        expectValid(declarative, docOf(c, policy === undefined ? {} : { policy }));
      }),
      RUNS,
    );
  });

  it('_format_version: the string "3.0", not the number 3', () => {
    const text = textOf(toKong(DEFAULT));
    expect(docOf(DEFAULT)._format_version).toBe('3.0');
    expect(
      problems(declarative, parse(text.replace(/_format_version: .*/, '_format_version: 3.0'))),
    ).toEqual(['_format_version: Invalid type: Expected ("1.1" | "2.1" | "3.0") but received 3']);
  });

  it('second … year: numbers > 0, a longer period never below a shorter one', () => {
    fc.assert(
      fc.property(calendarWindows, (c) => {
        const conf = configOf(docOf(c));
        const written = PERIODS.filter((p) => conf[p] !== undefined);
        expect(written).toEqual(calendarUnits(c).map((u) => u.unit));
        for (const [i, p] of written.entries()) {
          expect(conf[p]).toBeGreaterThan(0);
          for (const q of written.slice(i + 1))
            expect(conf[q]).toBeGreaterThanOrEqual(conf[p] as number);
        }
      }),
      RUNS,
    );
  });

  it('limit_by: the four the export offers are schema.lua’s; header and path are not offered', () => {
    for (const limitBy of ['consumer', 'credential', 'ip', 'service'] as const) {
      expectValid(declarative, docOf(DEFAULT, { limitBy }));
    }
    // They need header_name / path (schema.lua entity_checks), which the lab has no value for:
    // written without them, Kong refuses the plugin.
    for (const limitBy of ['header', 'path']) {
      const doc = mutated(docOf(DEFAULT), (d) => (configOf(d).limit_by = limitBy));
      expectRejectedAt(declarative, doc, 'services.0.plugins.0.config');
    }
  });

  it('policy, redis and sync_rate: redis gets a host, sync_rate −1; the others no sync_rate', () => {
    for (const policy of ['local', 'cluster'] as const) {
      const conf = configOf(docOf(DEFAULT, { policy }));
      expect(conf.policy).toBe(policy);
      expect(conf).not.toHaveProperty('sync_rate');
      expect(conf).not.toHaveProperty('redis');
    }
    const conf = configOf(docOf(DEFAULT, { policy: 'redis' }));
    expectValid(redisConfig, conf.redis);
    expect(conf.sync_rate).toBe(-1);
  });

  it('policy cluster is one Kong refuses DB-less, and the export says so', () => {
    const dbless = v.picklist(['local', 'redis']); // schema.lua lines 50-58
    expect(problems(dbless, configOf(docOf(DEFAULT, { policy: 'cluster' })).policy)).not.toEqual(
      [],
    );
    const out = toKong(DEFAULT, { policy: 'cluster' });
    expect(out.ok && out.differences.join(' ')).toContain('not available DB-less');
  });

  it('error_code 429 (number > 0) and hide_client_headers false (boolean)', () => {
    const conf = configOf(docOf(DEFAULT));
    expect(conf.error_code).toBe(429);
    expect(conf.hide_client_headers).toBe(false);
  });

  it('services[0]: a name and a url Kong splits into protocol, host and port', () => {
    const s = docOf(DEFAULT).services[0]!;
    expectValid(service, s);
    expect(new URL(s.url).protocol).toBe('http:');
  });

  describe('each check can fail: a mutated export is rejected at that field', () => {
    const good = docOf({ kind: 'calendar-windows', second: 5, minute: 100 }, { policy: 'redis' });
    const at = 'services.0.plugins.0.config';
    const cases: [string, (d: Doc) => void, string][] = [
      ['unknown config field', (d) => (configOf(d).seconds = 5), `${at}.seconds`],
      ['period 0', (d) => (configOf(d).second = 0), `${at}.second`],
      ['period as text', (d) => (configOf(d).minute = '100'), `${at}.minute`],
      ['minute below second', (d) => (configOf(d).minute = 4), at],
      [
        'no period at all',
        (d) => {
          delete configOf(d).second;
          delete configOf(d).minute;
        },
        at,
      ],
      ['limit_by user', (d) => (configOf(d).limit_by = 'user'), `${at}.limit_by`],
      ['limit_by header without header_name', (d) => (configOf(d).limit_by = 'header'), at],
      ['policy memory', (d) => (configOf(d).policy = 'memory'), `${at}.policy`],
      ['redis without host', (d) => delete (configOf(d).redis as Record<string, unknown>).host, at],
      [
        'redis port 70000',
        (d) => ((configOf(d).redis as Record<string, unknown>).port = 70_000),
        `${at}.redis.port`,
      ],
      ['sync_rate 0.01 with redis', (d) => (configOf(d).sync_rate = 0.01), at],
      [
        'sync_rate 1 with local',
        (d) => {
          configOf(d).policy = 'local';
          delete configOf(d).redis;
          configOf(d).sync_rate = 1;
        },
        at,
      ],
      ['error_code 0', (d) => (configOf(d).error_code = 0), `${at}.error_code`],
      [
        'hide_client_headers "no"',
        (d) => (configOf(d).hide_client_headers = 'no'),
        `${at}.hide_client_headers`,
      ],
      [
        'plugin name',
        (d) => (d.services[0]!.plugins[0]!.name = 'rate-limit'),
        'services.0.plugins.0.name',
      ],
      ['format version 2.0', (d) => (d._format_version = '2.0'), '_format_version'],
      [
        'unknown service field',
        (d) => ((d.services[0] as Record<string, unknown>).upstream = 'x'),
        'services.0.upstream',
      ],
    ];
    itRejectsEach(declarative, good, cases);
  });
});

describe('Kong rate-limiting export means what the lab simulates', () => {
  it('each period field is the lab’s limit for that period when the limits rise with the period', () => {
    fc.assert(
      fc.property(calendarWindows, (c) => {
        const units = calendarUnits(c);
        const rising = units.every((u, i) => units.slice(i + 1).every((w) => w.limit >= u.limit));
        fc.pre(rising);
        const conf = configOf(docOf(c));
        for (const u of units) expect(conf[u.unit]).toBe(u.limit);
      }),
      { ...RUNS, numRuns: 200 },
    );
  });

  it('a shorter period above a longer one is lowered, says so, and passes the same requests', () => {
    const c: CalendarWindowsConfig = {
      kind: 'calendar-windows',
      second: 10,
      minute: 5,
      hour: 200,
      day: 150,
    };
    const out = toKong(c);
    const conf = configOf(docOf(c));
    expect([conf.second, conf.minute, conf.hour, conf.day]).toEqual([5, 5, 150, 150]);
    expect(out.ok && out.differences.join(' ')).toContain(
      'wrote second: 5, hour: 150 (same decisions)',
    );
    fc.assert(
      fc.property(calendarWindows, fc.integer({ min: 1, max: 1e6 }), (cfg, seed) => {
        const written = configOf(docOf(cfg));
        const asWritten: CalendarWindowsConfig = { ...cfg };
        for (const u of calendarUnits(cfg)) asWritten[u.unit] = written[u.unit] as number;
        const a = createLimiter({ ...cfg, counterTtl: false });
        const b = createLimiter({ ...asWritten, counterTtl: false });
        for (const { nowMs, key } of randomTrace(seeded(seed), cfg, 300, 0)) {
          expect(b.decide(nowMs, key).outcome).toBe(a.decide(nowMs, key).outcome);
        }
      }),
      { ...RUNS, numRuns: 60 },
    );
  });
});
