/** The fleet= link parameter (issue 14): round trips, old links unchanged, bad values named. */
import { describe, expect, it } from 'vitest';
import { decodeConfig, defaultConfig, encodeConfig } from '../../src/config';
import type { PlaygroundConfig } from '../../src/config';

function withFleet(): PlaygroundConfig {
  const c = defaultConfig();
  c.scenario.deployment = {
    instances: 12,
    balancer: 'weighted',
    state: 'layered',
    roundTripMs: 5,
    fleet: {
      weights: [4, 3, 3],
      service: { kind: 'exponential', meanMs: 40 },
      scale: [
        { atMs: 10_000, instances: 20 },
        { atMs: 15_000, instances: 2 },
      ],
      autoscale: { perReplicaRps: 20, everyMs: 1000, min: 1, max: 8, on: 'offered' },
      store: {
        rttMs: 2,
        jitterMs: 3,
        timeoutMs: 20,
        outages: [{ fromMs: 5000, toMs: 8000 }],
        onDown: 'closed',
        downStatus: 429,
        syncMs: 1000,
        cacheOverLimit: true,
      },
    },
  };
  return c;
}

describe('fleet links', () => {
  it('round-trip every fleet setting', () => {
    const c = withFleet();
    const text = encodeConfig(c);
    expect(text).toContain('fleet=weights=4;3;3,service=exponential:40ms');
    const back = decodeConfig(text);
    expect(back.errors).toEqual([]);
    expect(back.config).toEqual(c);
  });

  it('a link from before fleets has no fleet and encodes without one', () => {
    const c = defaultConfig();
    expect(encodeConfig(c)).not.toContain('fleet');
    const back = decodeConfig('?v=1&deploy=4:state=shared-racy,balancer=random');
    expect(back.errors).toEqual([]);
    expect(back.config.scenario.deployment).toEqual({
      instances: 4,
      balancer: 'random',
      state: 'shared-racy',
      roundTripMs: 5,
    });
  });

  it('names the field of a bad fleet value and drops the fleet', () => {
    const back = decodeConfig('?v=1&deploy=2:balancer=weighted&fleet=weights=0;0');
    expect(back.errors.map((e) => e.message).join(' ')).toMatch(/total weight of at least 1/);
    expect(back.config.scenario.deployment.fleet).toBeUndefined();
    const scaleIn = decodeConfig('?v=1&fleet=scale=0@5s');
    expect(scaleIn.errors.map((e) => e.message).join(' ')).toMatch(/whole number from 1 to 64/);
    const outage = decodeConfig('?v=1&until=20s&deploy=2:state=shared-atomic&fleet=outage=1s-40s');
    expect(outage.errors.map((e) => e.message).join(' ')).toMatch(/cannot be longer than the run/);
  });
});
