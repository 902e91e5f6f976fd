/**
 * A system's form offers only what the product has. Envoy's local_ratelimit never makes a request
 * wait (local_rate_limit.proto has no delay option; local_ratelimit.cc answers 429 at once), so the
 * Envoy system has no max_delay: a link, saved settings or an import that carries one under Envoy
 * opens as Envoy without it, and says so, naming the field, the value and why. Spring Cloud
 * Gateway's script answers at once too.
 */
import { describe, expect, it } from 'vitest';
import { defaultConfig, encodeConfig } from '../../src/config';
import { decodeConfig } from '../../src/config/url';
import { repairConfig } from '../../src/config/repair';
import type { PlaygroundConfig } from '../../src/config';
import { OUTCOME_DELAY, simulate } from '../../src/sim';
import { SYSTEMS, systemById, systemOf } from '../../src/systems';
import { openSaved } from '../../src/ui/share/openSaved';
import { EXPERIMENTS } from '../../src/config/experiments';

/** Requests that waited in the run of `config`'s first limiter (a burst well past the bucket). */
function delayedIn(config: PlaygroundConfig): number {
  const entry = config.limiters[0];
  if (entry === undefined) throw new Error('no limiter');
  const scenario = {
    ...config.scenario,
    sources: [{ kind: 'burst' as const, atMs: 0, count: 30 }],
  };
  const result = simulate([entry.config], scenario, 5000);
  const outcome = result.lanes[0]?.columns.outcome;
  if (outcome === undefined) throw new Error('no lane');
  return outcome.filter((o) => o === OUTCOME_DELAY).length;
}

const WHY =
  "Envoy local_ratelimit never delays a request (local_rate_limit.proto has no such option; local_ratelimit.cc answers 429 at once); max_delay=500 ms was dropped — Traefik's RateLimit makes a request wait for its token (up to its maxDelay): choose Traefik to see requests wait";

describe('Envoy local_ratelimit has no max_delay', () => {
  it('the form offers no max_delay (nor any field for maxDelayMs)', () => {
    const envoy = systemById('envoy');
    expect(envoy?.params.map((p) => p.key)).toEqual([
      'max_tokens',
      'tokens_per_fill',
      'fill_interval',
      'refill',
    ]);
    expect(envoy?.params.some((p) => p.field === 'maxDelayMs')).toBe(false);
  });

  it('a link with max_delay opens as Envoy without the delay, with a message naming it and why', () => {
    const link = 'v=1&l=envoy:max_tokens=5,tokens_per_fill=2,fill_interval=1s,max_delay=500ms';
    const { config, errors } = decodeConfig(link);
    const entry = config.limiters[0];
    expect(entry?.system).toBeUndefined(); // Envoy: the token bucket's default system
    expect(entry?.config).toEqual({
      kind: 'token-bucket',
      maxTokens: 5,
      tokensPerFill: 2,
      fillIntervalMs: 1000,
    });
    expect(errors).toEqual([
      {
        path: 'limiters[0].config.maxDelayMs',
        param: 'l[0] max_delay',
        message: `l[0] max_delay: ${WHY}`,
      },
    ]);
    // Nothing waits: the 30-request burst gets 5 through and 429s, as Envoy answers.
    expect(delayedIn(config)).toBe(0);
    // The link the page writes back has no max_delay.
    expect(encodeConfig(config)).not.toContain('max_delay');
  });

  it('the same link, before the fix, would have delayed requests: the field made them wait', () => {
    // The config the old link stood for, run as the algorithm (Traefik's waiting bucket).
    const waiting = defaultConfig();
    waiting.limiters = [
      {
        system: 'traefik',
        config: {
          kind: 'token-bucket',
          maxTokens: 5,
          tokensPerFill: 2,
          fillIntervalMs: 1000,
          maxDelayMs: 500,
        },
      },
    ];
    expect(delayedIn(waiting)).toBeGreaterThan(0);
  });

  it('saved settings with maxDelayMs under Envoy open without it, saying so', () => {
    const saved = defaultConfig();
    saved.limiters = [
      {
        config: {
          kind: 'token-bucket',
          maxTokens: 5,
          tokensPerFill: 2,
          fillIntervalMs: 1000,
          maxDelayMs: 500,
        },
      },
    ];
    const start = openSaved(JSON.stringify({ config: saved }), false);
    expect(start.config.limiters[0]?.config).toEqual({
      kind: 'token-bucket',
      maxTokens: 5,
      tokensPerFill: 2,
      fillIntervalMs: 1000,
    });
    expect(start.problems).toEqual([`saved settings: limiters[0].config.maxDelayMs: ${WHY}`]);
    expect(delayedIn(start.config)).toBe(0);
  });

  it('an entry naming envoy explicitly is treated the same', () => {
    const input = defaultConfig();
    input.limiters = [
      {
        system: 'envoy',
        config: {
          kind: 'token-bucket',
          maxTokens: 5,
          tokensPerFill: 2,
          fillIntervalMs: 1000,
          maxDelayMs: 500,
        },
      },
    ];
    const { config, issues } = repairConfig(input);
    expect(config.limiters[0]?.config).not.toHaveProperty('maxDelayMs');
    expect(issues.map((i) => [i.path.join('.'), i.fix, i.value])).toEqual([
      ['limiters.0.config.maxDelayMs', 'dropped', 500],
    ]);
  });

  it("Traefik keeps its maxDelay: it is Traefik's own", () => {
    const { config, errors } = decodeConfig('v=1&l=traefik:average=2,burst=5');
    expect(errors).toEqual([]);
    expect(config.limiters[0]?.config).toMatchObject({ maxDelayMs: 250 });
  });

  it('Spring Cloud Gateway: saved maxDelayMs is dropped with a message, not silently', () => {
    const input = defaultConfig();
    input.limiters = [
      {
        system: 'spring-gateway',
        config: {
          kind: 'token-bucket',
          maxTokens: 10,
          tokensPerFill: 5,
          fillIntervalMs: 1000,
          refill: 'interval',
          maxDelayMs: 300,
        },
      },
    ];
    const { config, issues } = repairConfig(input);
    expect(config.limiters[0]?.config).not.toHaveProperty('maxDelayMs');
    expect(issues).toHaveLength(1);
    expect(issues[0]?.message).toMatch(
      /^Spring Cloud Gateway RedisRateLimiter never delays a request .*; max_delay=300 ms was dropped/,
    );
  });

  it('no experiment gives a limiter a field its system does not have (no Envoy lane waits)', () => {
    for (const x of EXPERIMENTS) {
      for (const inputs of [x.inputs, ...(x.variants ?? []).map((v) => v.inputs)]) {
        for (const entry of inputs.limiters) {
          const fields = entry.config as unknown as Record<string, unknown>;
          for (const lack of systemOf(entry).lacks ?? []) {
            const value = fields[lack.field];
            expect(value === undefined || value === lack.neutral, `${x.id}: ${lack.key}`).toBe(
              true,
            );
          }
        }
      }
    }
  });

  it('every field a system lacks is one no parameter of it sets', () => {
    for (const system of SYSTEMS) {
      for (const lack of system.lacks ?? []) {
        expect(system.params.some((p) => p.field === lack.field)).toBe(false);
      }
    }
  });
});

describe("Kong's counters always expire: counter_ttl is not an option", () => {
  const MONTHLY =
    "Kong rate-limiting plugin (local policy) always gives a counter its period's nominal lifetime";

  it('the form offers no counter_ttl, and every Kong limiter has counterTtl', () => {
    const kong = systemById('kong');
    expect(kong?.params.map((p) => p.key)).toEqual([
      'second',
      'minute',
      'hour',
      'day',
      'month',
      'year',
    ]);
    expect(kong?.derive?.({ kind: 'calendar-windows', minute: 5 })).toEqual({
      kind: 'calendar-windows',
      minute: 5,
      counterTtl: true,
    });
  });

  it('a link with a month limit and no counter_ttl opens with it, saying so', () => {
    const { config, errors } = decodeConfig('v=1&l=kong:minute=5,month=1000');
    expect(config.limiters[0]?.config).toEqual({
      kind: 'calendar-windows',
      minute: 5,
      month: 1000,
      counterTtl: true,
    });
    expect(errors).toHaveLength(1);
    expect(errors[0]?.message).toContain(MONTHLY);
    expect(errors[0]?.message).toContain('a month’s count can end after 30 days');
  });

  it('without a month or year limit the lifetime changes nothing, and nothing is said', () => {
    const { config, errors } = decodeConfig('v=1&l=kong:minute=5,hour=100');
    expect(errors).toEqual([]);
    expect(config.limiters[0]?.config).toMatchObject({ counterTtl: true });
  });

  it('saved settings without it under Kong are given it', () => {
    const saved = defaultConfig();
    saved.limiters = [{ config: { kind: 'calendar-windows', year: 100_000 } }];
    const start = openSaved(JSON.stringify({ config: saved }), false);
    expect(start.config.limiters[0]?.config).toEqual({
      kind: 'calendar-windows',
      year: 100_000,
      counterTtl: true,
    });
    expect(start.problems).toHaveLength(1);
    expect(start.problems[0]).toContain(MONTHLY);
  });

  it('Envoy global (also calendar windows) is not touched: its counters are its own', () => {
    const input = defaultConfig();
    input.limiters = [
      { system: 'envoy-global', config: { kind: 'calendar-windows', align: 'epoch', month: 5 } },
    ];
    const { config, issues } = repairConfig(input);
    expect(issues).toEqual([]);
    expect(config.limiters[0]?.config).not.toHaveProperty('counterTtl');
  });

  it('every experiment’s Kong lane has the lifetime Kong always gives', () => {
    for (const x of EXPERIMENTS) {
      for (const inputs of [x.inputs, ...(x.variants ?? []).map((v) => v.inputs)]) {
        for (const entry of inputs.limiters) {
          if (systemOf(entry).id !== 'kong') continue;
          expect(entry.config, x.id).toMatchObject({ counterTtl: true });
        }
      }
    }
  });
});
