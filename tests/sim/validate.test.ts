/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-member-access --
   these tests build malformed input on purpose, through loosely typed copies. */
import { describe, expect, it } from 'vitest';
import {
  SimulationInputError,
  defaultScenario,
  simulate,
  validateLimiters,
  validateRun,
  validateScenario,
} from '../../src/sim';
import type { Scenario } from '../../src/sim';
import { scenario } from './helpers';

const fixed = { kind: 'fixed-window', limit: 10, windowMs: 1000 } as const;

/** The messages for a scenario changed by `mutate` (on a JSON copy, so anything can be put in). */
function messagesFor(mutate: (s: Record<string, any>) => void): string[] {
  const s = JSON.parse(JSON.stringify(defaultScenario())) as Record<string, any>;
  mutate(s);
  return validateScenario(s).map((i) => i.message);
}

describe('validateScenario', () => {
  it('accepts the default scenario, and it survives a JSON round trip', () => {
    expect(validateScenario(defaultScenario())).toEqual([]);
    expect(JSON.parse(JSON.stringify(defaultScenario()))).toEqual(defaultScenario());
  });

  it('names the field and the accepted range', () => {
    const issues = validateScenario(
      scenario({
        sources: [
          { kind: 'burst', atMs: 0, count: 1 },
          { kind: 'burst', atMs: 0, count: 1 },
          { kind: 'poisson', ratePerSec: -5, startMs: 0, endMs: 1000 },
        ],
      }),
    );
    expect(issues).toEqual([
      {
        path: 'sources[2].ratePerSec',
        message: 'sources[2].ratePerSec must be a number from 0.001 to 100000, got -5',
      },
    ]);
  });

  it.each([
    [
      'a null rate (what JSON makes of NaN)',
      (s: Record<string, any>) => (s.sources[0].ratePerSec = null),
      'sources[0].ratePerSec must be a number from 0.001 to 100000, got null',
    ],
    [
      'end before start',
      (s: Record<string, any>) =>
        (s.sources[0] = { kind: 'constant', ratePerSec: 1, startMs: 500, endMs: 100 }),
      'sources[0].endMs must be greater than startMs (500), got 100',
    ],
    [
      'a million instances',
      (s: Record<string, any>) => (s.deployment.instances = 1_000_000),
      'deployment.instances must be a whole number from 1 to 64, got 1000000',
    ],
    [
      'an unknown source kind',
      (s: Record<string, any>) => (s.sources[0] = { kind: 'tsunami' }),
      "sources[0].kind must be one of 'manual', 'burst', 'constant', 'poisson', 'on-off', 'boundary-burst', 'trace', got \"tsunami\"",
    ],
    [
      'a pinned client that does not exist',
      (s: Record<string, any>) => (s.sources[0].client = 3),
      'sources[0].client must be a whole number from 0 to 0, got 3',
    ],
    [
      'a backoff cap below its base',
      (s: Record<string, any>) => (s.retry.backoffCapMs = 10),
      'retry.backoffCapMs must be at least backoffBaseMs (100), got 10',
    ],
    [
      'a zero clock jump',
      (s: Record<string, any>) => (s.clock.jumps = [{ atMs: 10, byMs: 0 }]),
      'clock.jumps[0].byMs must not be 0 (a jump moves the clock)',
    ],
    [
      'a fractional time',
      (s: Record<string, any>) => (s.sources[0] = { kind: 'manual', timesMs: [1, 2.5] }),
      'sources[0].timesMs[1] must be a whole number from 0 to 86400000, got 2.5',
    ],
    [
      'a missing group',
      (s: Record<string, any>) => delete s.retry,
      'retry must be an object, got undefined',
    ],
    [
      'a boundary too close to 0 for its spread',
      (s: Record<string, any>) =>
        (s.sources[0] = { kind: 'boundary-burst', boundaryMs: 5, count: 2, spreadMs: 10 }),
      'sources[0].boundaryMs must be at least spreadMs + 1 (11) so the early half starts at 0 or later, got 5',
    ],
    [
      'a text seed',
      (s: Record<string, any>) => (s.seed = '42'),
      'seed must be a whole number from 0 to 4294967295, got "42"',
    ],
  ])('rejects %s', (_, mutate, message) => {
    expect(messagesFor(mutate)).toEqual([message]);
  });

  it('reports NaN and Infinity as they are', () => {
    const s = scenario({
      sources: [{ kind: 'constant', ratePerSec: Number.NaN, startMs: 0, endMs: Infinity }],
    });
    expect(validateScenario(s).map((i) => i.message)).toEqual([
      'sources[0].ratePerSec must be a number from 0.001 to 100000, got NaN',
      'sources[0].endMs must be a whole number from 1 to 86400000, got Infinity',
    ]);
  });

  it('lists every problem at once', () => {
    expect(
      messagesFor((s) => {
        s.seed = -1;
        s.clients.count = 0;
        s.deployment.state = 'sharded';
      }),
    ).toHaveLength(3);
  });

  it('never throws, whatever it is given', () => {
    for (const bad of [null, undefined, 42, 'x', [], { sources: 'many' }]) {
      expect(validateScenario(bad).length).toBeGreaterThan(0);
    }
  });
});

describe('validateLimiters and validateRun', () => {
  it('prefixes the core message with the limiter path', () => {
    expect(
      validateLimiters([fixed, { kind: 'gcra', count: 10, periodMs: 1000, burst: -1 }]),
    ).toEqual([
      {
        path: 'limiters[1].burst',
        message: 'limiters[1]: gcra burst must be a whole number from 0 to 1000000, got -1',
      },
    ]);
    expect(validateLimiters([{ name: '', config: fixed }]).map((i) => i.path)).toEqual([
      'limiters[0].name',
    ]);
    expect(validateLimiters([]).map((i) => i.message)).toEqual([
      'limiters must be a list of 1 to 12 limiters, got a list of 0',
    ]);
  });

  it('checks untilMs and the number of bins', () => {
    expect(validateRun([fixed], defaultScenario(), 0).map((i) => i.message)).toEqual([
      'untilMs must be a whole number from 1 to 86400000, got 0',
    ]);
    const s: Scenario = { ...defaultScenario(), metrics: { binMs: 1 } };
    expect(validateRun([fixed], s, 200_000).map((i) => i.message)).toEqual([
      'metrics.binMs must be at least 2 for a run of 200000 ms (at most 100000 bins), got 1',
    ]);
  });

  it('simulate refuses invalid input with the same messages', () => {
    const bad = scenario({
      deployment: { instances: 0, balancer: 'round-robin', state: 'local', roundTripMs: 0 },
    });
    expect(() => simulate([fixed], bad, 1000)).toThrow(SimulationInputError);
    try {
      simulate([fixed], bad, 1000);
    } catch (e) {
      expect((e as SimulationInputError).issues.map((i) => i.path)).toEqual([
        'deployment.instances',
      ]);
      expect((e as Error).message).toBe(
        'Invalid simulation input: deployment.instances must be a whole number from 1 to 64, got 0',
      );
    }
  });
});
