/**
 * What inspecting one Traefik 429 costs on a held 1,000,000-row log: the seeker's key history
 * (Seeker.keyHistoryUpTo) and the x/time/rate replay over it. Printed as CPU time (a shared
 * machine stretches wall time), not asserted: the checks are that the history is the key's own.
 */
import { describe, expect, it } from 'vitest';
import { Seeker, decisionAt, simulate } from '../../src/sim';
import { deriveConfig, systemById } from '../../src/systems';
import { traefikResponse } from '../../src/systems/respond/traefik';
import { timedCpu } from '../cpuTime';
import { scenario } from './helpers';

const traefik = systemById('traefik');
if (traefik === undefined) throw new Error('traefik is registered');

describe('a key’s history on a 1,000,000-row log', () => {
  it('prints the CPU time of the history and the replay for late 429s', () => {
    const config = deriveConfig(traefik, {
      kind: 'token-bucket',
      maxTokens: 20,
      tokensPerFill: 1000,
      fillIntervalMs: 1000,
    });
    const sim = timedCpu(() =>
      simulate(
        [config],
        scenario({
          seed: 3,
          sources: [{ kind: 'poisson', ratePerSec: 10_000, startMs: 0, endMs: 100_000 }],
          clients: { count: 4, keying: 'per-client', assign: 'round-robin' },
        }),
        100_000,
      ),
    );
    const result = sim.value;
    const cols = result.lanes[0]?.columns;
    if (cols === undefined) throw new Error('one lane');
    expect(cols.rows).toBeGreaterThan(990_000);
    // The last rejected rows: the longest histories.
    const rejects: number[] = [];
    for (let r = cols.rows - 1; r >= 0 && rejects.length < 5; r -= 1)
      if (decisionAt(result, 0, r).outcome === 'reject') rejects.push(r);
    expect(rejects).toHaveLength(5);
    const seeker = new Seeker(result);
    const times: string[] = [];
    for (const row of rejects) {
      const history = timedCpu(() => seeker.keyTimesUpTo(0, row));
      const timesMs = history.value;
      if (timesMs === undefined) throw new Error('one instance, local state: a history');
      // Four keys round robin: about a quarter of the rows, this one last.
      expect(timesMs.length).toBeGreaterThan(cols.rows / 5);
      expect(timesMs.at(-1)).toBe(cols.arrivalMs[row]);
      const header = timedCpu(
        () => traefikResponse(config, decisionAt(result, 0, row), { keyHistoryMs: timesMs }).fields,
      );
      expect(header.value.find((f) => f.name === 'X-Retry-In')?.value).toMatch(/s$/);
      times.push(
        `row ${row}: history of ${timesMs.length} times ${history.ms.toFixed(1)} ms, replay ${header.ms.toFixed(1)} ms`,
      );
    }
    console.info(
      `${cols.rows} rows simulated in ${sim.ms.toFixed(0)} ms CPU; per inspected 429 (CPU): ${times.join('; ')}`,
    );
  }, 120_000);
});
