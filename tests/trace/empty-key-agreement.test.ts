/**
 * A trace with empty keys gives each request the same decision in the dry run, on the stage (both
 * lane loops, fleets too) and in the sweep, under every system's empty-key rule.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { emptyKeyOutcome } from '../../src/core';
import type { AlgorithmConfig } from '../../src/core';
import { simLimiters } from '../../src/config/keys';
import {
  OUTCOME_ADMIT,
  OUTCOME_DELAY,
  OUTCOME_REJECT,
  defaultScenario,
  simulate,
  stateAt,
} from '../../src/sim';
import type { Scenario, SimTrace } from '../../src/sim';
import { runPlainLane } from '../../src/sim/lanePlain';
import { installPlainLaneLoop } from '../../src/sim/simulate';
import { SYSTEMS } from '../../src/systems';
import type { SystemInfo } from '../../src/systems';
import {
  ADMIT,
  DELAY,
  REJECT,
  emptyKeyName,
  fastSweepCell,
  prepareSweep,
  replayWithEmptyKey,
  sweepCell,
  belowP99,
  traceHash,
  traceSourceOf,
} from '../../src/trace';
import type { EmptyKeyExempt } from '../../src/trace';
import { SPEC } from './emptyKeyLog';

const EMPTY = emptyKeyName(SPEC) as string;

/**
 * 400 requests over 20 s: keys a, b and the empty key, the empty key in bursts (so a shared key
 * is limited), a and b steady.
 */
function trace(): SimTrace {
  const keys = ['a', EMPTY, 'b'];
  const times: number[] = [];
  const ids: number[] = [];
  for (let i = 0; i < 400; i += 1) {
    times.push(Math.floor(i * 50 + (i % 7) * 3));
    // Every third request in the first half, then runs of ten empty keys.
    ids.push(i < 200 ? i % 3 : Math.floor(i / 10) % 2 === 0 ? 1 : i % 2 === 0 ? 0 : 2);
  }
  times.sort((x, y) => x - y);
  const timeMs = Int32Array.from(times);
  const keyId = Uint32Array.from(ids);
  return { hash: traceHash(timeMs, keyId, keys), timeMs, keyId, keys, emptyKeyId: 1 };
}

function scenario(sim: SimTrace, extra: Partial<Scenario> = {}): Scenario {
  return { ...defaultScenario(), sources: [traceSourceOf(sim, 'access.log', 1)], ...extra };
}

/** Each system with its default config, as a limiter entry of a link. */
function entryOf(s: SystemInfo): { system: string; config: AlgorithmConfig } {
  return { system: s.id, config: s.defaultConfig };
}

const CODE = { [OUTCOME_ADMIT]: ADMIT, [OUTCOME_DELAY]: DELAY, [OUTCOME_REJECT]: REJECT };

afterEach(() => installPlainLaneLoop(null));

describe('empty keys: the same decision in the dry run, on the stage and in the sweep', () => {
  const sim = trace();
  const columns = { timeMs: sim.timeMs, keyId: sim.keyId, keys: sim.keys };
  for (const system of SYSTEMS) {
    it(`${system.id} (${String(JSON.stringify(system.emptyKey ?? 'unknown'))})`, () => {
      const entry = entryOf(system);
      const config = entry.config;
      const outcome = emptyKeyOutcome(system.emptyKey);
      const exempt: EmptyKeyExempt | null = outcome === null ? null : { id: 1, outcome };
      const dry = replayWithEmptyKey(columns, config, exempt);
      const limiters = simLimiters({ limiters: [entry] });
      // Kong keys them by address: this trace has none, so its lane counts them under one key.
      expect(limiters[0]?.emptyKey).toBe(
        system.emptyKey === 'client' ? 'client' : (outcome ?? undefined),
      );
      for (const loop of [null, runPlainLane]) {
        installPlainLaneLoop(loop);
        const result = simulate(limiters, scenario(sim), 30_000, { traces: [sim] });
        const lane = result.lanes[0]!;
        expect(lane.columns.rows).toBe(sim.timeMs.length);
        for (let r = 0; r < lane.columns.rows; r += 1) {
          const o = lane.columns.outcome[r] as 0 | 1 | 2;
          if (CODE[o] !== dry.outcome[r])
            throw new Error(
              `row ${r} (key ${sim.keyId[r]}): stage ${o}, dry run ${dry.outcome[r]}`,
            );
          if (o === OUTCOME_DELAY) expect(lane.columns.waitMs[r]).toBe(dry.delayMs[r]);
        }
        expect(lane.metrics.first.rejected).toBe(dry.rejected);
        // The trace's clients follow the client model's (one client by default).
        const client = defaultScenario().clients.count + 1;
        expect(lane.emptyKey).toEqual(outcome === null ? undefined : { client, outcome });
      }
      // The sweep's cell for the same config, through the kernel and through core.
      const prep = prepareSweep({ ...columns, keyCount: 3, emptyKey: exempt });
      const fast = fastSweepCell(prep, config, 1000);
      const slow = sweepCell(sim, config, 1000, belowP99(sim), exempt);
      for (const cell of [fast, slow]) {
        expect(cell.offered).toBe(sim.timeMs.length);
        expect(cell.rejected).toBe(dry.rejected);
        expect(cell.delayed).toBe(dry.delayed);
      }
      expect(fast).toEqual(slow);
      // The rule shows: not limited admits every empty-key request; a denial rejects each.
      const empties = sim.keyId.filter((k) => k === 1).length;
      let emptyAdmitted = 0;
      for (let r = 0; r < sim.timeMs.length; r += 1)
        if (sim.keyId[r] === 1 && dry.outcome[r] === ADMIT) emptyAdmitted += 1;
      if (outcome === 'admit') expect(emptyAdmitted).toBe(empties);
      if (outcome === 'reject') expect(emptyAdmitted).toBe(0);
    });
  }

  it('lanes of different systems on one stage each apply their own rule', () => {
    const nginx = SYSTEMS.find((s) => s.emptyKey === 'not-limited' && s.id === 'nginx')!;
    const traefik = SYSTEMS.find((s) => s.id === 'traefik')!;
    const spring = SYSTEMS.find((s) => s.id === 'spring-gateway')!;
    const limiters = simLimiters({
      limiters: [
        { config: { kind: 'leaky-bucket', rate: 1, rateUnit: 'r/s', burst: 1, delay: 'nodelay' } },
        { system: traefik.id, config: traefik.defaultConfig },
        { system: spring.id, config: { ...spring.defaultConfig } },
      ] as never,
    });
    expect(nginx.emptyKey).toBe('not-limited');
    const result = simulate(limiters, scenario(sim), 30_000, { traces: [sim] });
    const emptyRows = [...sim.keyId.keys()].filter((r) => sim.keyId[r] === 1);
    const [ng, tr, sp] = result.lanes;
    // nginx: every empty-key request passes; Spring: every one is denied; Traefik counts them.
    expect(emptyRows.every((r) => ng!.columns.outcome[r] === OUTCOME_ADMIT)).toBe(true);
    expect(emptyRows.every((r) => sp!.columns.outcome[r] === OUTCOME_REJECT)).toBe(true);
    expect(tr!.emptyKey).toBeUndefined();
    // The nginx and Spring lanes keep state for a and b only; Traefik's for the empty key too.
    const end = stateAt(result, 29_999, EMPTY).lanes;
    expect(end.map((l) => l.stores[0]?.keysHeld)).toEqual([2, 3, 2]);
  });

  it('a fleet lane routes empty-key requests without deciding them', () => {
    const limiters = simLimiters({
      limiters: [
        { config: { kind: 'leaky-bucket', rate: 1, rateUnit: 'r/s', burst: 0, delay: 'nodelay' } },
      ] as never,
    });
    const sc = scenario(sim, {
      deployment: { ...defaultScenario().deployment, instances: 3, state: 'local', fleet: {} },
    });
    const result = simulate(limiters, sc, 30_000, { traces: [sim] });
    const lane = result.lanes[0]!;
    expect(lane.fleet).toBeDefined();
    for (let r = 0; r < lane.columns.rows; r += 1) {
      const client = result.arrivals.client[lane.columns.origin[r] as number];
      if (client === sc.clients.count + 1) expect(lane.columns.outcome[r]).toBe(OUTCOME_ADMIT);
    }
  });
});

describe('the inspector names what happened to an empty-key request', () => {
  it('nginx: not limited, 200 with no rate-limit headers; Spring: denied with 403', async () => {
    const { emptyKeyRow } = await import('../../src/ui/inspector/emptyKeyRow');
    const { entryResponse } = await import('../../src/systems/respond');
    const sim = trace();
    const spring = SYSTEMS.find((s) => s.id === 'spring-gateway')!;
    const nginx = SYSTEMS.find((s) => s.id === 'nginx')!;
    const entries = [
      { config: nginx.defaultConfig },
      { system: spring.id, config: spring.defaultConfig },
    ];
    const result = simulate(simLimiters({ limiters: entries }), scenario(sim), 30_000, {
      traces: [sim],
    });
    const row = [...sim.keyId.keys()].find((r) => sim.keyId[r] === 1)!;
    const other = [...sim.keyId.keys()].find((r) => sim.keyId[r] === 0)!;
    const [ng, sp] = result.lanes;
    const base = entryResponse(
      entries[0]!,
      { outcome: 'admit', delayMs: 0, retryAfterMs: 0, remaining: 1, limit: 2, resetMs: 0 },
      'nginx',
    );
    const a = emptyKeyRow(result, ng!, row, nginx, base);
    expect(a?.label).toBe('not limited (no key)');
    expect(a?.response.statusLine).toBe('HTTP/1.1 200 OK');
    expect(a?.response.fields).toEqual([]);
    const d = emptyKeyRow(result, sp!, row, spring, base);
    expect(d?.label).toBe('denied (no key)');
    expect(d?.response.statusLine).toBe('HTTP/1.1 403 Forbidden');
    expect(emptyKeyRow(result, ng!, other, nginx, base)).toBeNull();
  });
});
