/**
 * Under Kong, a request whose key is empty is counted under its client address: the stage replay
 * (both lane loops), the dry run, the sweep's cell for the stage's config and the key the inspector
 * and the decision log show agree, and lanes of other systems on the same stage keep their rules.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { simLimiters } from '../../src/config/keys';
import { decisionLogCsv } from '../../src/export/decision-log';
import {
  OUTCOME_ADMIT,
  OUTCOME_DELAY,
  OUTCOME_REJECT,
  defaultScenario,
  requestAt,
  simulate,
  stateAt,
} from '../../src/sim';
import type { SimTrace } from '../../src/sim';
import { runPlainLane } from '../../src/sim/lanePlain';
import { installPlainLaneLoop } from '../../src/sim/simulate';
import { systemById } from '../../src/systems';
import {
  ADMIT,
  DELAY,
  REJECT,
  emptyKeyId,
  emptyKeyWords,
  holdTrace,
  keyEmptyByClient,
  parseTrace,
  replayColumns,
  replayWithEmptyKey,
  traceHash,
  traceSourceOf,
} from '../../src/trace';
import type { CellResult } from '../../src/trace';
import { MAIN, SPEC, mainLine } from './emptyKeyLog';
import { pageSweep } from './pageSweep';

/**
 * 90 `main` lines over three minutes: behind the proxy 10.0.0.1, X-Forwarded-For names one of
 * three clients; every third line comes straight from a client with no header: 203.0.113.7 (also
 * a header value: one key under Kong), 198.51.100.9 and 192.0.2.4 (keys of their own).
 */
function log(): string {
  const direct = ['203.0.113.7', '198.51.100.9', '192.0.2.4', '203.0.113.7'];
  const viaProxy = ['203.0.113.7', '203.0.113.8', '203.0.113.9'];
  const lines: string[] = [];
  for (let i = 0; i < 90; i += 1) {
    const [addr, xff] =
      i % 3 === 0
        ? [direct[(i / 3) % direct.length] as string, '-']
        : ['10.0.0.1', viaProxy[i % viaProxy.length] as string];
    lines.push(mainLine(i * 2, addr, xff));
  }
  return `${lines.join('\n')}\n`;
}

/** The log held, and the trace the stage replays (as the trace store sets it for the simulator). */
function loaded() {
  const built = parseTrace(new TextEncoder().encode(log()), {
    name: 'access.log',
    logFormat: MAIN,
    keySpec: SPEC,
  });
  const { held } = holdTrace(built);
  const timeMs = held.times as Int32Array;
  const sim: SimTrace = {
    hash: traceHash(timeMs, held.keyId, held.keys),
    timeMs,
    keyId: held.keyId,
    keys: held.keys,
    emptyKeyId: emptyKeyId(held),
    ...(held.emptyClients === undefined ? {} : { emptyClients: held.emptyClients }),
  };
  return { held, sim };
}

const KONG = systemById('kong')!;
const kong = { system: 'kong', config: KONG.defaultConfig };
const nginx = { system: 'nginx', config: systemById('nginx')!.defaultConfig };
const traefik = { system: 'traefik', config: systemById('traefik')!.defaultConfig };
const CODE = { [OUTCOME_ADMIT]: ADMIT, [OUTCOME_DELAY]: DELAY, [OUTCOME_REJECT]: REJECT };

afterEach(() => installPlainLaneLoop(null));

/** The sweep's cell for `config` alone, run as the page runs it (here: no Worker, in tasks). */
function sweepOne(sim: SimTrace, config: typeof KONG.defaultConfig): Promise<CellResult> {
  return pageSweep(sim, [config], 1000, 'client').then((cells) => cells[0] as CellResult);
}

describe('Kong keys an empty-key request by its address on the stage, as in the dry run', () => {
  const { held, sim } = loaded();
  const moved = keyEmptyByClient(held, held.emptyClients)!;
  const dry = replayColumns(
    { timeMs: sim.timeMs, keyId: moved.keyId, keys: moved.keys },
    kong.config,
  );
  const shared = replayColumns(
    { timeMs: sim.timeMs, keyId: sim.keyId, keys: sim.keys },
    kong.config,
  );
  const sc = { ...defaultScenario(), sources: [traceSourceOf(sim, 'access.log', 1)] };

  it('the log has 30 empty-key requests, each with an address, and the rule moves them', () => {
    expect(moved.moved).toBe(30);
    // The shared key limited them together; by address they pass or fail with their address.
    expect(dry.rejected).not.toBe(shared.rejected);
  });

  for (const loop of [null, runPlainLane]) {
    it(`stage replay = dry run, request by request (${loop === null ? 'main' : 'plain'} loop)`, () => {
      installPlainLaneLoop(loop);
      const limiters = simLimiters({ limiters: [kong, nginx, traefik] as never });
      expect(limiters.map((l) => l.emptyKey)).toEqual(['client', 'admit', undefined]);
      const result = simulate(limiters, sc, 200_000, { traces: [sim] });
      const [k, ng, tr] = result.lanes;
      expect(k!.columns.rows).toBe(sim.timeMs.length);
      for (let r = 0; r < k!.columns.rows; r += 1) {
        const o = k!.columns.outcome[r] as 0 | 1 | 2;
        if (CODE[o] !== dry.outcome[r])
          throw new Error(`row ${r}: stage ${o}, dry run ${dry.outcome[r]}`);
      }
      expect(k!.metrics.first.rejected).toBe(dry.rejected);
      expect(k!.metrics.first.admitted).toBe(dry.admitted);
      // The other lanes on the same stage keep their own rules: nginx does not limit them,
      // Traefik counts them under one shared key.
      const ngDry = replayWithEmptyKey(
        { timeMs: sim.timeMs, keyId: sim.keyId, keys: sim.keys },
        nginx.config,
        { id: sim.emptyKeyId!, outcome: 'admit' },
      );
      expect(ng!.metrics.first.rejected).toBe(ngDry.rejected);
      const trDry = replayColumns(
        { timeMs: sim.timeMs, keyId: sim.keyId, keys: sim.keys },
        traefik.config,
      );
      expect(tr!.metrics.first.rejected).toBe(trDry.rejected);
      for (let r = 0; r < sim.timeMs.length; r += 1) {
        expect(CODE[ng!.columns.outcome[r] as 0 | 1 | 2]).toBe(ngDry.outcome[r]);
        expect(CODE[tr!.columns.outcome[r] as 0 | 1 | 2]).toBe(trDry.outcome[r]);
      }

      // The key shown for a request: Kong's lane names the address, the others the empty key.
      const row = [...sim.keyId.keys()].find((r) => sim.keyId[r] === sim.emptyKeyId)!;
      const address = moved.keys[moved.keyId[row] as number];
      expect(address).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
      expect(requestAt(result, 0, row).key).toBe(address);
      expect(requestAt(result, 2, row).key).toBe('-');
      // The decision log (CSV): lane 1's rows first, one per request here (no retries).
      const lines = decisionLogCsv(result, undefined as never)
        .parts.join('')
        .split('\r\n');
      const keyCol = (lines[0] as string).split(',').indexOf('key');
      expect(keyCol).toBeGreaterThan(0);
      expect((lines[1 + row] as string).split(',')[keyCol]).toBe(address);
      // The state at the end holds the address's counter on Kong's lane.
      const at = stateAt(result, 199_999, '203.0.113.7').lanes[0]!;
      expect(at.stores[0]?.keysHeld).toBe(new Set(moved.keyId).size);
    });
  }

  it("the sweep's cell at the stage's config = the stage", async () => {
    const cell = await sweepOne(sim, kong.config);
    expect(cell.offered).toBe(sim.timeMs.length);
    expect(cell.rejected).toBe(dry.rejected);
    expect(cell.delayed).toBe(dry.delayed);
  });

  it('the page says the stage counts them by address too', () => {
    expect(emptyKeyWords(30, SPEC, KONG, 30)).toBe(
      "30 requests have no X-Forwarded-For: Kong uses the client address as the key instead. The stage, the dry run and the sweep count them with their address's other requests.",
    );
    expect(emptyKeyWords(1204, SPEC, KONG, 1000)).toBe(
      "1,204 requests have no X-Forwarded-For: Kong uses the client address as the key instead. The stage, the dry run and the sweep count the 1,000 that have one with their address's other requests, and the other 204 (no address on their lines) under one shared key.",
    );
  });
});
