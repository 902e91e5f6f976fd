/**
 * Kong's RateLimit-Reset is read from the wall clock at the request, not from the replay's clock.
 * kong/plugins/rate-limiting/handler.lua (3.10.0, master 22246ef), access(): `current_timestamp =
 * time() * 1000` (ngx.time(): whole seconds of the wall clock); for the period with the least
 * remaining, `reset = max(1, window − floor((current_timestamp − timestamps[k]) / 1000))`, where
 * `timestamps` are the UTC period starts of kong/tools/timestamp.lua get_timestamps and `window`
 * the period's length (expiration.lua: minute 60); a 429 also carries `Retry-After: reset`.
 *
 * The reference below is written from those lines (UTC fields of a Date, not the lab's calendar).
 * The stage replays a log whose first request is not on a whole second or minute; the response
 * the inspector shows for every request must carry Kong's reset for that request's wall time.
 */
import { describe, expect, it } from 'vitest';
import type { Decision } from '../../src/core';
import { responseOf } from '../../src/systems/respond';
import { kong } from '../../src/systems/kong';
import { proofCount } from '../systems/proofCounts';
import { replayedResponses } from './replayedResponses';

/** handler.lua: the reset of a minute-only limit for a request at wall-clock `wallMs`. */
function kongMinuteReset(wallMs: number): number {
  const current = Math.floor(wallMs / 1000) * 1000; // time() * 1000
  const d = new Date(current);
  d.setUTCSeconds(0, 0); // get_timestamps: timetable.sec = 0 → the minute's start
  return Math.max(1, 60 - Math.floor((current - d.getTime()) / 1000));
}

const header = (fields: ReadonlyArray<{ name: string; value: string }>, name: string) =>
  fields.find((f) => f.name === name)?.value;

describe("Kong's RateLimit-Reset on the wall clock", () => {
  it('the reference: a request at 12:00:00.201 and one 799 ms later (12:00:01.000)', () => {
    const origin = Date.UTC(2026, 10, 29, 12, 0, 0, 201);
    expect(kongMinuteReset(origin)).toBe(60);
    expect(kongMinuteReset(origin + 798)).toBe(60);
    expect(kongMinuteReset(origin + 799)).toBe(59);
    expect(kongMinuteReset(Date.UTC(2026, 10, 29, 12, 0, 30, 201))).toBe(30);
    expect(kongMinuteReset(Date.UTC(2026, 10, 29, 12, 0, 59, 999))).toBe(1);
  });

  it("the response at scenario time t of a run whose time 0 is epochMs is Kong's at epochMs + t", () => {
    const config = { kind: 'calendar-windows' as const, minute: 5, counterTtl: true };
    const decision: Decision = {
      outcome: 'admit',
      delayMs: 0,
      retryAfterMs: 0,
      remaining: 4,
      limit: 5,
      resetMs: 0,
    };
    const epochs = [
      Date.UTC(2026, 10, 29, 12, 0, 0, 201),
      Date.UTC(2026, 10, 29, 12, 0, 30, 201),
      Date.UTC(2024, 1, 29, 23, 59, 41, 999),
    ];
    const times = [0, 1, 798, 799, 800, 29_798, 29_799, 59_799, 59_800, 61_000];
    let compared = 0;
    for (const epochMs of epochs) {
      for (const nowMs of times) {
        const r = responseOf(kong)(config, decision, { nowMs, epochMs });
        expect(header(r.fields, 'RateLimit-Reset'), `${epochMs} + ${nowMs}`).toBe(
          String(kongMinuteReset(epochMs + nowMs)),
        );
        compared += 1;
      }
    }
    expect(compared).toBe(proofCount('Kong `rate-limiting`', 'resetAtTimes'));
  });

  const logs = [Date.UTC(2026, 10, 29, 12, 0, 0, 201), Date.UTC(2026, 10, 29, 12, 0, 30, 201)];
  it('the README counts 40 responses of each log', () => {
    expect(logs.length * 40).toBe(proofCount('Kong `rate-limiting`', 'resetStage'));
  });
  for (const first of logs) {
    it(`the stage's inspector, a log starting at ${new Date(first).toISOString()}`, () => {
      // 40 requests of one client, 700 ms apart: 28 s, across whole seconds and (for the second
      // log) a minute's end; 5 a minute, so most are stopped with Retry-After.
      const entry = {
        system: 'kong' as const,
        config: { kind: 'calendar-windows' as const, minute: 5, counterTtl: true },
      };
      let rejected = 0;
      for (const [row, { wallMs, response: r }] of replayedResponses(
        entry,
        first,
        40,
        700,
      ).entries()) {
        const want = String(kongMinuteReset(wallMs));
        expect(header(r.fields, 'RateLimit-Reset'), `row ${row}`).toBe(want);
        if (r.status === 429) {
          rejected += 1;
          expect(header(r.fields, 'Retry-After'), `row ${row}`).toBe(want);
        }
      }
      expect(rejected).toBeGreaterThan(20);
    });
  }
});
