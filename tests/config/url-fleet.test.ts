/** The fleet= link parameter: round trips, old links unchanged, bad values named. */
import { describe, expect, it } from 'vitest';
import { defaultConfig, encodeConfig } from '../../src/config';
import { decodeConfig } from '../../src/config/url';
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

  it('round-trips a Kong policy (kong=cluster|redis) and names a bad one', () => {
    const c = defaultConfig();
    c.limiters = [{ ...c.limiters[0], config: { kind: 'calendar-windows', second: 3 } }] as never;
    c.scenario.deployment = {
      instances: 2,
      balancer: 'round-robin',
      state: 'shared-atomic',
      roundTripMs: 5,
      fleet: { store: { rttMs: 5, jitterMs: 0, outages: [], onDown: 'open', kong: 'cluster' } },
    };
    const text = encodeConfig(c);
    expect(text).toContain('kong=cluster');
    const back = decodeConfig(text);
    expect(back.errors).toEqual([]);
    expect(back.config.scenario.deployment).toEqual(c.scenario.deployment);
    const bad = decodeConfig(text.replace('kong=cluster', 'kong=postgres'));
    expect(bad.errors.map((e) => e.message).join('\n')).toMatch(/kong.*postgres/);
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

  it('names the option of a bad fleet value and repairs it alone, keeping the valid options', () => {
    const weights = decodeConfig(
      '?v=1&deploy=2:balancer=weighted&fleet=weights=0;0,store_rtt=2ms,down=closed',
    );
    expect(weights.errors.map((e) => e.message)).toEqual([
      'fleet weights: must give the 2 replicas in use a total weight of at least 1 (each 0 – 1000); theirs sum to 0, got "0;0"',
    ]);
    // The weights go (every replica then weighs 1); the store settings stay.
    expect(weights.config.scenario.deployment.fleet).toEqual({
      store: { rttMs: 2, jitterMs: 0, outages: [], onDown: 'closed' },
    });

    const scaleIn = decodeConfig('?v=1&fleet=scale=0@5s;3@8s,cache');
    expect(scaleIn.errors.map((e) => e.message)).toEqual([
      'fleet scale: must be a whole number from 1 to 64, got "0" (removed)',
    ]);
    expect(scaleIn.config.scenario.deployment.fleet).toEqual({
      scale: [{ atMs: 8000, instances: 3 }],
      store: { rttMs: 1, jitterMs: 0, outages: [], onDown: 'open', cacheOverLimit: true },
    });

    const outage = decodeConfig(
      '?v=1&until=20s&deploy=2:state=shared-atomic&fleet=outage=1s-40s;2s-3s,down=local,sync=1s',
    );
    expect(outage.errors.map((e) => e.message).join(' ')).toMatch(
      /^fleet outage: must be from 1001ms to 21s: .*cannot be longer than the run \(20s\), got "40s" \(removed\)$/,
    );
    expect(outage.config.scenario.deployment.fleet?.store).toEqual({
      rttMs: 1,
      jitterMs: 0,
      outages: [{ fromMs: 2000, toMs: 3000 }],
      onDown: 'local',
      syncMs: 1000,
    });

    const several = decodeConfig(
      '?v=1&deploy=4:state=shared-atomic&fleet=autoscale=20r/s:1s:5-2,store_rtt=-3ms,jitter=2ms,down=sideways,status=404,service=gamma:40ms,scale=3@5s',
    );
    expect(several.errors.map((e) => e.param)).toEqual([
      'fleet autoscale',
      'fleet store_rtt',
      'fleet down',
      'fleet status',
      'fleet service',
    ]);
    // Each bad store field takes the store's default; the good ones (jitter, scale) stay.
    expect(several.config.scenario.deployment.fleet).toEqual({
      scale: [{ atMs: 5000, instances: 3 }],
      store: { rttMs: 1, jitterMs: 2, outages: [], onDown: 'open' },
    });
  });
});
