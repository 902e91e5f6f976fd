/**
 * the memory budget is enforced, not estimated. A run that would retain more than
 * MAX_RETAINED_BYTES (results plus checkpoints, with the in-flight writes they keep) is cut at an
 * exact moment and says so, like the decision cap; what it keeps is within the budget by its own
 * (conservative) count, and deterministic. The retained bytes measured after GC are in
 * `npm run bench` (tests/bench/memory.ts).
 */
import { describe, expect, it } from 'vitest';
import {
  MAX_CHECKPOINT_EVERY,
  MAX_RETAINED_BYTES,
  Seeker,
  defaultScenario,
  simulate,
} from '../../src/sim';
import type { Scenario } from '../../src/sim';
import { internalsOf } from '../../src/sim/internal';

const racy: Scenario = {
  ...defaultScenario(),
  sources: [{ kind: 'constant', ratePerSec: 100_000, startMs: 0, endMs: 3000 }],
  deployment: {
    instances: 64,
    balancer: 'round-robin',
    state: 'shared-racy',
    roundTripMs: 3_600_000,
  },
};
const bucket = {
  kind: 'token-bucket',
  maxTokens: 1000,
  tokensPerFill: 50_000,
  fillIntervalMs: 1000,
} as const;

describe('the memory budget', () => {
  it('cuts a run whose in-flight writes would pass it, at a moment, with the cap notice', () => {
    const result = simulate([bucket], racy, 3000);
    expect(result.truncated).toBe(true);
    expect(result.truncation).toHaveLength(1);
    expect(result.truncation[0]).toMatch(
      /^token-bucket: this lane would pass its share of the 150 MB memory budget for results and checkpoints \(shared by 1 limiter\): it was cut at \d+ ms\.$/,
    );
    const cutAt = result.completeUntilMs;
    expect(cutAt).toBeGreaterThan(0);
    expect(cutAt).toBeLessThan(3000);
    expect(result.truncation[0]).toContain(`cut at ${cutAt} ms`);
    // Every request before the cut was decided; none after it (requests at the cut's own
    // millisecond may be, as with the decision cap).
    const lane = result.lanes[0];
    expect(lane?.completeUntilMs).toBe(cutAt);
    const cols = lane?.columns;
    let before = 0;
    for (let a = 0; a < result.arrivals.count; a += 1) {
      if ((result.arrivals.timeMs[a] as number) < cutAt) before += 1;
    }
    let decidedBefore = 0;
    let after = 0;
    for (let r = 0; r < (cols?.rows ?? 0); r += 1) {
      const t = cols?.arrivalMs[r] as number;
      if (t < cutAt) decidedBefore += 1;
      if (t > cutAt) after += 1;
    }
    expect(decidedBefore).toBe(before);
    expect(after).toBe(0);
    expect(result.memory.resultBytes + result.memory.checkpointBytes).toBeLessThanOrEqual(
      MAX_RETAINED_BYTES,
    );
    // Deterministic: the same cut again.
    expect(simulate([bucket], racy, 3000).completeUntilMs).toBe(cutAt);
    // Checkpoints never further apart than the cap, so a seek replays a bounded number of rows.
    expect(internalsOf(result).lanes[0]?.every).toBeLessThanOrEqual(MAX_CHECKPOINT_EVERY);
    const seeker = new Seeker(result);
    expect(seeker.stateAt(cutAt - 1).lanes[0]?.decided).toBeGreaterThan(0);
  }, 60_000);

  it('leaves runs within the budget alone', () => {
    const small: Scenario = { ...racy, deployment: { ...racy.deployment, roundTripMs: 5 } };
    const result = simulate([bucket], small, 3000);
    expect(result.truncated).toBe(false);
    expect(result.completeUntilMs).toBe(3000);
  }, 60_000);
});
