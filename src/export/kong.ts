/**
 * Kong `rate-limiting` plugin as declarative configuration (decK / kong.yml `_format_version: "3.0"`),
 * field names from kong/plugins/rate-limiting/schema.lua (Kong 3.10.0).
 */
import { stringify } from 'yaml';
import type { AlgorithmConfig } from '../core';
import { assertAlgorithmConfig, calendarUnits } from '../core';
import type { SystemExportOutcome } from './systems-types';

export interface KongOptions {
  /**
   * schema.lua limit_by (default 'consumer'; 'ip' here since the playground keys by client). Its
   * 'header' and 'path' are not offered: they need header_name / path too (schema.lua
   * entity_checks), which the playground has no value for.
   */
  limitBy?: 'consumer' | 'credential' | 'ip' | 'service';
  /** The service the plugin is attached to. Default 'my-service'. */
  service?: string;
  /**
   * schema.lua `policy` (default 'local'): the fleet's Kong store policy when one is set, so the
   * export is what the fleet simulates. 'cluster' needs a database (schema.lua offers it only when
   * Kong is not DB-less); 'redis' is written with `sync_rate: -1` (synchronous, schema default) and
   * a placeholder `redis.host`.
   */
  policy?: 'local' | 'cluster' | 'redis';
}

export function toKong(config: AlgorithmConfig, options: KongOptions = {}): SystemExportOutcome {
  const c = assertAlgorithmConfig(config);
  if (c.kind !== 'calendar-windows') {
    return {
      ok: false,
      target: 'kong',
      kind: c.kind,
      reason:
        "Kong's rate-limiting plugin counts per UTC second, minute, hour, day, month and year: choose the Kong system (calendar windows) to export it.",
    };
  }
  const pluginConfig: Record<string, unknown> = {};
  const units = calendarUnits(c);
  // schema.lua validate_periods_order (Kong 3.10.0, master 22246ef, lines 10-23) refuses a config
  // whose longer period has a lower limit than a shorter one ("The limit for minute(5.0) cannot be
  // lower than the limit for second(10.0)"). Such a shorter limit never decides anything: every
  // second lies inside one UTC minute (and so on up to the year), so its count is at most the
  // longer period's count, which stops first. Writing it as the smallest longer limit is accepted
  // and passes the same requests.
  const capped: string[] = [];
  units.forEach((u, i) => {
    const limit = Math.min(u.limit, ...units.slice(i + 1).map((w) => w.limit));
    pluginConfig[u.unit] = limit;
    if (limit < u.limit) capped.push(`${u.unit}: ${limit}`);
  });
  pluginConfig.limit_by = options.limitBy ?? 'ip';
  const policy = options.policy ?? 'local';
  pluginConfig.policy = policy;
  if (policy === 'redis') {
    // schema.lua: redis = redis_schema.config_schema (host, port); sync_rate −1 = synchronous.
    pluginConfig.redis = { host: 'redis.example', port: 6379 };
    pluginConfig.sync_rate = -1;
  }
  pluginConfig.error_code = 429;
  pluginConfig.hide_client_headers = false;
  const doc = {
    _format_version: '3.0',
    services: [
      {
        name: options.service ?? 'my-service',
        url: 'http://upstream.example:8080',
        plugins: [{ name: 'rate-limiting', config: pluginConfig }],
      },
    ],
  };
  const differences: string[] = [
    'Kong increments after the access phase (in a timer): requests that arrive together are checked against the same count and can all pass (Kong #2629). The playground counts each request before the next.',
    policy === 'local'
      ? 'policy: local keeps one counter per Kong node; behind N nodes the limit is N times higher. cluster and redis share counters.'
      : policy === 'cluster'
        ? 'policy: cluster keeps the counters in Kong’s database (not available DB-less): each node reads the count, and its increment lands after the response, so requests in between pass beyond the limit.'
        : 'policy: redis with sync_rate −1 reads and increments Redis on every request; set redis.host to your Redis.',
  ];
  if (capped.length > 0) {
    differences.push(
      `Kong needs limits rising with the period: wrote ${capped.join(', ')} (same decisions).`,
    );
  }
  if ((c.align ?? 'calendar') === 'epoch') {
    differences.push(
      'Kong uses UTC calendar months and years; this limiter uses 30/365-day epoch periods.',
    );
  }
  if (c.countRejected === true) {
    differences.push('Kong counts only passed requests; this limiter counts rejected ones too.');
  }
  if (c.shadowMode === true) {
    differences.push(
      "Kong's rate-limiting plugin has no shadow mode: requests over a limit get 429 where this limiter lets them pass.",
    );
  }
  if (c.counterTtl !== true && (c.month !== undefined || c.year !== undefined)) {
    differences.push(
      "Kong's local counters expire 30 days (month) / 365 days (year) after their first hit, which can reset a 31-day month or a leap year early; enable counter TTL to see it.",
    );
  }
  return {
    ok: true,
    target: 'kong',
    language: 'yaml',
    text: stringify(doc),
    assumes: 'Kong Gateway 3.x declarative config (_format_version 3.0); rules read in Kong 3.10.0',
    differences,
    notes: [
      'Kong sends X-RateLimit-Limit-<Period>, X-RateLimit-Remaining-<Period>, RateLimit-Limit/-Remaining/-Reset and, on 429, Retry-After.',
    ],
  };
}
