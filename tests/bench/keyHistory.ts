/**
 * `BENCH=keyhistory npm run bench`: what inspecting one Traefik 429 costs on a held
 * 1,000,000-row log (10,000 r/s for 100 s, four keys): the seeker's key history and the x/time/rate
 * replay over it, for the five last rejected rows (the longest histories). CPU time of this
 * process (a shared machine stretches wall time, not CPU time), with the load average beside it.
 * The history's properties are tests/sim/key-history-cost.test.ts's, on a small log.
 */
import { loadavg } from 'node:os';
import { inspectLate429s } from '../sim/keyHistory';

export function runKeyHistoryBench(): void {
  const load0 = loadavg()[0] ?? 0;
  const { rows, simulateMs, inspected } = inspectLate429s(10_000, 100, 5);
  console.log('keyhistory: inspecting a Traefik 429 on a held log (CPU time)');
  console.log(`  ${rows.toLocaleString('en-US')} rows simulated in ${simulateMs.toFixed(0)} ms`);
  for (const x of inspected) {
    console.log(
      `  row ${x.row}: history of ${x.history.length.toLocaleString('en-US')} times ` +
        `${x.historyMs.toFixed(1)} ms, replay ${x.replayMs.toFixed(1)} ms (X-Retry-In ${x.retryIn ?? '—'})`,
    );
  }
  console.log(
    `  load average ${load0.toFixed(1)} at the start, ${(loadavg()[0] ?? 0).toFixed(1)} at the end`,
  );
}
