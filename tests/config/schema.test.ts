import fc from 'fast-check';
import type * as v from 'valibot';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { checkAlgorithmConfig } from '../../src/core';
import type { AlgorithmConfig } from '../../src/core';
import { DEFAULTS, VERSION_DEFAULTS, defaultConfig, simLimiters } from '../../src/config';
import { isValidConfig } from '../../src/config/valibot-schema';
import type { PlaygroundConfig, ScenarioConfig } from '../../src/config';
import type {
  AlgorithmConfigSchema,
  PlaygroundConfigSchema,
  ScenarioSchema,
  TrafficSourceSchema,
} from '../../src/config/valibot-schema';
import { simulate, validateRun } from '../../src/sim';
import type { Scenario, TrafficSource } from '../../src/sim';
import { algorithmConfig, validConfig } from './arbitraries';

/** Properties run a few seconds; the machine may be shared. */
const PROPERTY_TIMEOUT_MS = 60_000;

describe('types', () => {
  it('the schema infers exactly the documented types', () => {
    expectTypeOf<v.InferOutput<typeof PlaygroundConfigSchema>>().toEqualTypeOf<PlaygroundConfig>();
    expectTypeOf<v.InferOutput<typeof AlgorithmConfigSchema>>().toEqualTypeOf<AlgorithmConfig>();
    expectTypeOf<v.InferOutput<typeof TrafficSourceSchema>>().toEqualTypeOf<TrafficSource>();
    expectTypeOf<v.InferOutput<typeof ScenarioSchema>>().toEqualTypeOf<ScenarioConfig>();
    expectTypeOf<ScenarioConfig>().toExtend<Scenario>();
  });
});

describe('defaults', () => {
  it('every version has valid defaults, and defaultConfig() is a fresh copy of the current ones', () => {
    for (const defaults of Object.values(VERSION_DEFAULTS)) {
      expect(isValidConfig(defaults.config)).toBe(true);
      for (const config of Object.values(defaults.limiter)) {
        expect(checkAlgorithmConfig(config)).toEqual([]);
      }
      for (const source of Object.values(defaults.source)) {
        const c = defaultConfig();
        c.scenario.sources = [source];
        expect(isValidConfig(c)).toBe(true);
      }
    }
    const a = defaultConfig();
    a.view.tMs = 5;
    expect(defaultConfig()).toStrictEqual(DEFAULTS.config);
    expect(Object.isFrozen(DEFAULTS.config.view)).toBe(true);
  });

  it('the default config runs', () => {
    const c = defaultConfig();
    const result = simulate(simLimiters(c), c.scenario, c.view.untilMs);
    expect(result.lanes).toHaveLength(1);
    expect(result.arrivals.count).toBeGreaterThan(0);
  });
});

/** Values at and around every bound of core and sim, and wrong types. */
const PROBES: readonly unknown[] = [
  null,
  -1,
  0,
  1,
  0.5,
  1.5,
  -0.5,
  NaN,
  Infinity,
  -Infinity,
  1e21,
  2 ** 31,
  2 ** 32 - 1,
  2 ** 32,
  399,
  400,
  599,
  600,
  64,
  65,
  100,
  101,
  32,
  33,
  10_000,
  10_001,
  100_000,
  100_001,
  0.001,
  0.0009,
  1_000_000,
  1_000_001,
  3_600_000,
  3_600_001,
  86_400_000,
  86_400_001,
  -86_400_000,
  -86_400_001,
  '5',
  '',
  'nodelay',
  'r/s',
  'r/m',
  'continuous',
  'interval',
  'wall',
  'monotonic',
  'per-client',
  'shared',
  'random',
  'round-robin',
  'local',
  'shared-racy',
  'backoff',
  'manual',
  'poisson',
  'constant',
  'boundary-burst',
  'gcra',
  'fixed-window',
  true,
  false,
  [],
  {},
];

type Key = string | number;

function leafPaths(value: unknown, path: Key[] = []): Key[][] {
  if (typeof value !== 'object' || value === null) return [path];
  const entries: Array<[Key, unknown]> = Array.isArray(value)
    ? value.map((x, i) => [i, x])
    : Object.entries(value);
  const inner = entries.flatMap(([k, x]) => leafPaths(x, [...path, k]));
  return inner.length === 0 ? [path] : inner;
}

describe('the schema accepts exactly what core and sim accept', () => {
  it(
    'for limiter configs (core checkAlgorithmConfig)',
    () => {
      fc.assert(
        fc.property(
          algorithmConfig,
          fc.nat(),
          fc.option(fc.constantFrom(...PROBES)),
          (config, seed, probe) => {
            const leaves = Object.keys(config).concat([
              'logRejected',
              'refill',
              'maxDelayMs',
              'limitReqStatus',
            ]);
            const key = leaves[seed % leaves.length] as string;
            const mutated: Record<string, unknown> = { ...config };
            // fc.option gives null for "no value": the key is then deleted.
            if (probe === null) delete mutated[key];
            else mutated[key] = probe;
            const schemaOk = isValidConfig({ ...defaultConfig(), limiters: [{ config: mutated }] });
            expect(schemaOk).toBe(checkAlgorithmConfig(mutated).length === 0);
          },
        ),
        { numRuns: 2000 },
      );
    },
    PROPERTY_TIMEOUT_MS,
  );

  it(
    'for whole runs (sim validateRun), one leaf changed or removed',
    () => {
      fc.assert(
        fc.property(
          validConfig,
          fc.nat(),
          fc.constantFrom(...PROBES, undefined),
          (config, seed, probe) => {
            // Only what the simulator sees: the view's time and selection are config-only checks.
            const c: PlaygroundConfig = {
              ...config,
              view: { ...config.view, tMs: 0, selected: null },
            };
            const leaves = [
              ...leafPaths(c.limiters)
                .map((p) => ['limiters', ...p])
                .filter((p) => !p.includes('name')),
              ...leafPaths(c.scenario).map((p) => ['scenario', ...p]),
              ['view', 'untilMs'],
            ].filter((p) => p.join('.') !== 'scenario.metrics.windowMs' || probe !== undefined);
            const path = leaves[seed % leaves.length] as Key[];
            const mutated = structuredClone(c) as unknown as Record<Key, unknown>;
            let node = mutated;
            for (const key of path.slice(0, -1)) node = node[key] as Record<Key, unknown>;
            const last = path[path.length - 1] as Key;
            if (probe === undefined && !Array.isArray(node)) delete node[last];
            else node[last] = probe;
            const m = mutated as unknown as PlaygroundConfig;
            const simOk =
              validateRun(simLimiters(m), m.scenario, (m.view as { untilMs: unknown }).untilMs)
                .length === 0;
            expect({ path: path.join('.'), probe, ok: isValidConfig(m) }).toEqual({
              path: path.join('.'),
              probe,
              ok: simOk,
            });
          },
        ),
        { numRuns: 1500 },
      );
    },
    PROPERTY_TIMEOUT_MS,
  );
});
