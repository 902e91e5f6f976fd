import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { configKey, configsEqual, defaultConfig, runKey, simLimiters } from '../../src/config';
import { formatRepairIssue, repairConfig } from '../../src/config/repair';
import { validConfig } from './arbitraries';

describe('keys', () => {
  it('configKey is equal exactly when the configs are', () => {
    fc.assert(
      fc.property(validConfig, validConfig, (a, b) => {
        expect(configKey(a) === configKey(b)).toBe(configsEqual(a, b));
        expect(configKey(structuredClone(a))).toBe(configKey(a));
      }),
      { numRuns: 200 },
    );
  });

  it('runKey ignores what does not change the simulation, and sees the run length', () => {
    const a = defaultConfig();
    const b = {
      ...a,
      view: { ...a.view, tMs: 1234, paused: true, speed: 4, mode: 'compare' as const },
    };
    expect(runKey(b)).toBe(runKey(a));
    expect(runKey({ ...a, view: { ...a.view, untilMs: 5000 } })).not.toBe(runKey(a));
    expect(runKey({ ...a, scenario: { ...a.scenario, seed: 2 } })).not.toBe(runKey(a));
  });

  it('simLimiters names every lane: its own name, else its system', () => {
    const c = defaultConfig();
    c.limiters = [
      { name: 'edge', config: { kind: 'gcra', count: 1, periodMs: 1000, burst: 0 } },
      { config: { kind: 'fixed-window', limit: 1, windowMs: 1000 } },
    ];
    expect(simLimiters(c)).toEqual([
      { name: 'edge', config: { kind: 'gcra', count: 1, periodMs: 1000, burst: 0 } },
      { name: 'Redis fixed window', config: { kind: 'fixed-window', limit: 1, windowMs: 1000 } },
    ]);
  });
});

describe('repair messages outside links', () => {
  it('name the config path, the rule and the value', () => {
    const c = defaultConfig() as unknown as { view: Record<string, unknown>; limiters: unknown[] };
    c.view.speed = 0;
    c.limiters = [{ name: '<b>x</b>', config: { kind: 'gcra', count: 1, periodMs: 1000 } }];
    const { issues } = repairConfig(c);
    expect(issues.map((i) => formatRepairIssue(i))).toEqual([
      'limiters[0].name: must be 1 to 40 characters: letters, digits, spaces and - _ . ( ) /, got "<b>x</b>"',
      'limiters[0].config.burst: is missing',
      'view.speed: must be a number from 0.1 to 100, got 0',
    ]);
  });
});
