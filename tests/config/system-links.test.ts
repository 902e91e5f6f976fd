/**
 * Every system's own link: for every system and every value of each of its parameters the page
 * accepts, the link "Copy link" writes reopens exactly that config with no problem listed, and
 * every parameter is written under a plain name (no percent-encoding in the link).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RANGES } from '../../src/core';
import type { AlgorithmConfig } from '../../src/core';
import { defaultConfig, encodeConfig } from '../../src/config';
import { isValidConfig } from '../../src/config/valibot-schema';
import { decodeConfig } from '../../src/config/url';
import type { PlaygroundConfig } from '../../src/config';
import { DEFAULT_SYSTEM, SYSTEMS, deriveConfig } from '../../src/systems';
import type { SystemInfo, SystemParam } from '../../src/systems';
import { duration, whole } from './arbitraries';

/** A value the parameter's field may take (out-of-range ones are filtered out below). */
function paramValue(system: SystemInfo, p: SystemParam): fc.Arbitrary<unknown> {
  const ranges = RANGES[system.kind] as Record<string, { min: number; max: number } | undefined>;
  const range = ranges[p.field] ?? { min: 0, max: 100_000 };
  let value: fc.Arbitrary<unknown>;
  switch (p.input) {
    case 'bool':
      value = fc.boolean();
      break;
    case 'choice':
      // A choice of numbers (Cloudflare's periods in ms) is held as a number.
      value = fc.constantFrom(
        ...(p.choices ?? []).map((c) => (/^\d+$/.test(c.value) ? Number(c.value) : c.value)),
      );
      break;
    case 'delay':
      value = fc.oneof(fc.constant('nodelay'), whole(0, 1000));
      break;
    case 'int':
      value = p.url === 'duration' ? duration(range.min, range.max) : whole(range.min, range.max);
      break;
  }
  return p.optional === undefined && p.absentMeans === undefined
    ? value
    : fc.option(value, { nil: undefined });
}

/** A config of `system` with every parameter drawn, as the page holds it (derived fields set). */
function systemConfig(system: SystemInfo): fc.Arbitrary<PlaygroundConfig> {
  return fc.tuple(...system.params.map((p) => paramValue(system, p))).map((values) => {
    const raw: Record<string, unknown> = {
      ...(system.defaultConfig as unknown as Record<string, unknown>),
      ...system.fixedFields,
    };
    system.params.forEach((p, i) => {
      if (values[i] === undefined) delete raw[p.field];
      else raw[p.field] = values[i];
    });
    const config = deriveConfig(system, raw as unknown as AlgorithmConfig);
    const base = defaultConfig();
    return {
      ...base,
      // The system its algorithm always stood for is not named (old links open unchanged).
      limiters: [
        DEFAULT_SYSTEM[system.kind] === system ? { config } : { system: system.id, config },
      ],
      // "Copy link" shares the moment, paused.
      view: { ...base.view, tMs: 1500, paused: true },
    };
  });
}

describe("every system's own link", () => {
  for (const system of SYSTEMS) {
    it(`${system.id}: every parameter's value reopens the same config, with no problem`, () => {
      fc.assert(
        fc.property(
          // Values the system itself refuses (express-rate-limit's windowMs 0) have their own test.
          systemConfig(system).filter(
            (c) =>
              isValidConfig(c) &&
              (system.refuses?.((c.limiters[0] as { config: AlgorithmConfig }).config) ?? null) ===
                null,
          ),
          (config) => {
            const link = encodeConfig(config);
            const opened = decodeConfig(link);
            expect(opened.errors).toEqual([]);
            expect(opened.config).toStrictEqual(config);
            expect(encodeConfig(opened.config)).toBe(link);
            // Plain names: nothing in the limiter's part of the link needs percent-encoding.
            const limiter = new URLSearchParams(link).get('l') ?? '';
            expect(link).not.toContain('%');
            for (const [name] of limiter
              .slice(limiter.indexOf(':') + 1)
              .split(',')
              .map((o) => o.split('='))) {
              expect(name ?? '').toMatch(/^[a-z][a-z0-9_]*$/i);
            }
          },
        ),
        { numRuns: 60 },
      );
    });

    it(`${system.id}: its parameters have plain link names`, () => {
      for (const p of system.params) expect(p.urlKey ?? p.key).toMatch(/^[a-z][a-z0-9_]*$/i);
    });
  }
});

describe('older system links', () => {
  it('a Caddy link written with the window + 1 ms name still opens as written', () => {
    const opened = decodeConfig('v=1&l=caddy:events=5,window%20%2B%201%20ms=1001ms');
    expect(opened.errors).toEqual([]);
    expect(opened.config.limiters[0]).toEqual({
      system: 'caddy',
      config: { kind: 'sliding-log', limit: 5, windowMs: 1001, lastMsPasses: true },
    });
    // The same limiter under its plain name: Caddy's own window.
    expect(encodeConfig(opened.config)).toBe('v=1&l=caddy:events=5,window=1s');
  });
});
