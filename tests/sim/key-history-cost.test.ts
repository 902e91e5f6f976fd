/**
 * Inspecting a Traefik 429 reads the key's own history: the seeker's history of each late rejected
 * row is exactly the arrival times of that row's key up to it (one instance, local state), and the
 * replay over it writes `X-Retry-In`. A small log here (well under a second); the cost on a held
 * 1,000,000-row log is `BENCH=keyhistory npm run bench` (tests/bench/keyHistory.ts).
 */
import { describe, expect, it } from 'vitest';
import { OUTCOME_REJECT } from '../../src/sim';
import { inspectLate429s } from './keyHistory';

describe('a key’s history when a 429 is inspected', () => {
  it('is exactly its key’s arrivals up to the row, and the replay writes X-Retry-In', () => {
    // 10,000 r/s for 1 s over four keys of 1,000 r/s each (burst 20): most are rejected.
    const { result, rows, inspected } = inspectLate429s(10_000, 1, 5);
    expect(rows).toBeGreaterThan(9000);
    expect(inspected).toHaveLength(5);
    const cols = result.lanes[0]!.columns;
    const keyOf = (r: number): number =>
      result.clientKey[result.arrivals.client[cols.origin[r] as number] as number] as number;
    for (const x of inspected) {
      expect(cols.outcome[x.row]).toBe(OUTCOME_REJECT);
      const own: number[] = [];
      for (let r = 0; r <= x.row; r += 1)
        if (keyOf(r) === keyOf(x.row)) own.push(cols.arrivalMs[r] as number);
      expect(x.history).toEqual(own);
      // Four keys round robin: about a quarter of the rows up to it.
      expect(x.history.length).toBeGreaterThan(x.row / 5);
      expect(x.history.at(-1)).toBe(x.arrivalMs);
      expect(x.retryIn).toMatch(/^\d+(\.\d+)?(ns|µs|ms|s)$/);
    }
  });
});
