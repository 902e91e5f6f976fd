/**
 * Envoy's x-ratelimit-reset with envoyproxy/ratelimit (master f2fb157): duration_until_reset is
 * `divider − now % divider` with `now` the service's unix seconds (src/utils/utilities.go
 * CalculateReset; dividers of src/utils: MINUTE 60), the status with the least limit_remaining
 * giving the header (ratelimit_headers.cc). A replayed log's windows are placed on the clock from
 * its first request (createLimiter's originMs): the reset the inspector shows for each request is the
 * one the service sends at that request's unix second, not one counted from the log's start.
 */
import { describe, expect, it } from 'vitest';
import { simLimiters } from '../../src/config/keys';
import { defaultScenario, requestAt, simulate } from '../../src/sim';
import type { SimTrace } from '../../src/sim';
import { seekerFor } from '../../src/store';
import { traceHash, traceSourceOf } from '../../src/trace';
import { rowResponse } from '../../src/ui/inspector/rowResponse';

/** CalculateReset for a MINUTE descriptor at unix ms `wallMs`. */
const minuteReset = (wallMs: number): number => 60 - (Math.floor(wallMs / 1000) % 60);

describe("Envoy ratelimit service's x-ratelimit-reset on the clock", () => {
  it('the reference: 12:00:30.201 → 30, 12:00:59.999 → 1, 12:01:00.000 → 60', () => {
    expect(minuteReset(Date.UTC(2026, 10, 29, 12, 0, 30, 201))).toBe(30);
    expect(minuteReset(Date.UTC(2026, 10, 29, 12, 0, 59, 999))).toBe(1);
    expect(minuteReset(Date.UTC(2026, 10, 29, 12, 1, 0, 0))).toBe(60);
  });

  const logs = [Date.UTC(2026, 10, 29, 12, 0, 0, 201), Date.UTC(2026, 10, 29, 12, 0, 30, 201)];
  for (const first of logs) {
    it(`the stage's inspector, a log starting at ${new Date(first).toISOString()}`, () => {
      // 60 requests of one client, 700 ms apart: 41 s, across whole seconds and (for the second
      // log) a minute's end; 10 a minute, so most are over the limit.
      const timeMs = Int32Array.from({ length: 60 }, (_, i) => i * 700);
      const keyId = new Uint32Array(60);
      const keys = ['203.0.113.7'];
      const sim: SimTrace = {
        hash: traceHash(timeMs, keyId, keys),
        timeMs,
        originMs: first,
        keyId,
        keys,
      };
      const entry = {
        system: 'envoy-global' as const,
        config: {
          kind: 'calendar-windows' as const,
          minute: 10,
          align: 'epoch' as const,
          countRejected: true,
        },
        standardHeaders: true,
      };
      const sc = { ...defaultScenario(), sources: [traceSourceOf(sim, 'access.log', 1)] };
      const result = simulate(simLimiters({ limiters: [entry] }), sc, 45_000, { traces: [sim] });
      const lane = result.lanes[0]!;
      expect(lane.columns.rows).toBe(60);
      let rejected = 0;
      for (let row = 0; row < lane.columns.rows; row += 1) {
        const info = requestAt(result, 0, row);
        const { stores, store, wallMs } = seekerFor(result).storesBefore(0, row);
        const before = stores[store]?.inspect(wallMs, info.key);
        const r = rowResponse(result, 0, row, entry, {
          decision: info.decision,
          key: info.key,
          wallMs,
          before,
        });
        const wall = first + (timeMs[row] as number);
        expect(r.fields.find((f) => f.name === 'x-ratelimit-reset')?.value, `row ${row}`).toBe(
          String(minuteReset(wall)),
        );
        if (r.status === 429) rejected += 1;
      }
      // The log across a minute's end starts counting again there: both windows reject.
      expect(rejected).toBeGreaterThan(20);
    });
  }
});
