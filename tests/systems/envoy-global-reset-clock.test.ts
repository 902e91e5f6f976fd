/**
 * Envoy's x-ratelimit-reset with envoyproxy/ratelimit (master f2fb157): duration_until_reset is
 * `divider − now % divider` with `now` the service's unix seconds (src/utils/utilities.go
 * CalculateReset; dividers of src/utils: MINUTE 60), the status with the least limit_remaining
 * giving the header (ratelimit_headers.cc). A replayed log's windows are placed on the clock from
 * its first request (createLimiter's originMs): the reset the inspector shows for each request is the
 * one the service sends at that request's unix second, not one counted from the log's start.
 */
import { describe, expect, it } from 'vitest';
import { replayedResponses } from '../ui/replayedResponses';

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
      let rejected = 0;
      for (const [row, { wallMs, response: r }] of replayedResponses(
        entry,
        first,
        60,
        700,
      ).entries()) {
        expect(r.fields.find((f) => f.name === 'x-ratelimit-reset')?.value, `row ${row}`).toBe(
          String(minuteReset(wallMs)),
        );
        if (r.status === 429) rejected += 1;
      }
      // The log across a minute's end starts counting again there: both windows reject.
      expect(rejected).toBeGreaterThan(20);
    });
  }
});
