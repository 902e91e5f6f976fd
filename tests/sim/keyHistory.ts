/**
 * Inspecting a Traefik 429 on a held log: the seeker's key history (Seeker.keyTimesUpTo) and the
 * x/time/rate replay over it that writes `X-Retry-In`. Shared by the unit test (a small log: the
 * history's properties) and `BENCH=keyhistory npm run bench` (1,000,000 rows: its CPU time).
 */
import { Seeker, decisionAt, simulate } from '../../src/sim';
import { deriveConfig, systemById } from '../../src/systems';
import { traefikResponse } from '../../src/systems/respond/traefik';
import { scenario } from './helpers';

/** `f`'s value and the CPU time (ms, user + system) this process spent on it. */
function cpuTimed<T>(f: () => T): { value: T; ms: number } {
  const c0 = process.cpuUsage();
  const value = f();
  const c = process.cpuUsage(c0);
  return { value, ms: (c.user + c.system) / 1000 };
}

/** One inspected 429: its row, its key's history up to it, and the header the replay wrote. */
export interface Inspected {
  row: number;
  arrivalMs: number;
  history: readonly number[];
  retryIn: string | undefined;
  /** CPU time (ms) of the history and of the replay. */
  historyMs: number;
  replayMs: number;
}

/**
 * Traefik at 1,000 r/s with a burst of 20, four clients round robin, Poisson arrivals at
 * `ratePerSec` for `seconds`; the last `count` rejected rows (the longest histories) inspected.
 */
export function inspectLate429s(
  ratePerSec: number,
  seconds: number,
  count: number,
): {
  result: ReturnType<typeof simulate>;
  rows: number;
  simulateMs: number;
  inspected: Inspected[];
} {
  const traefik = systemById('traefik');
  if (traefik === undefined) throw new Error('traefik is registered');
  const config = deriveConfig(traefik, {
    kind: 'token-bucket',
    maxTokens: 20,
    tokensPerFill: 1000,
    fillIntervalMs: 1000,
  });
  const untilMs = seconds * 1000;
  const sim = cpuTimed(() =>
    simulate(
      [config],
      scenario({
        seed: 3,
        sources: [{ kind: 'poisson', ratePerSec, startMs: 0, endMs: untilMs }],
        clients: { count: 4, keying: 'per-client', assign: 'round-robin' },
      }),
      untilMs,
    ),
  );
  const result = sim.value;
  const cols = result.lanes[0]?.columns;
  if (cols === undefined) throw new Error('one lane');
  const rejects: number[] = [];
  for (let r = cols.rows - 1; r >= 0 && rejects.length < count; r -= 1)
    if (decisionAt(result, 0, r).outcome === 'reject') rejects.push(r);
  const seeker = new Seeker(result);
  const inspected = rejects.map((row): Inspected => {
    const history = cpuTimed(() => seeker.keyTimesUpTo(0, row));
    const timesMs = history.value;
    if (timesMs === undefined) throw new Error('one instance, local state: a history');
    const header = cpuTimed(
      () => traefikResponse(config, decisionAt(result, 0, row), { keyHistoryMs: timesMs }).fields,
    );
    return {
      row,
      arrivalMs: cols.arrivalMs[row] as number,
      history: timesMs,
      retryIn: header.value.find((f) => f.name === 'X-Retry-In')?.value,
      historyMs: history.ms,
      replayMs: header.ms,
    };
  });
  return { result, rows: cols.rows, simulateMs: sim.ms, inspected };
}
