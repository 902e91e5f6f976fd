import { describe, expect, it } from 'vitest';
import { clockWindowsNote, replayTrace, REJECT } from '../../src/trace';
import type { AlgorithmConfig } from '../../src/core';

// 2026-12-07 13:55:36.600 UTC, and the same day's 13:00:00.000.
const ODD = Date.UTC(2026, 11, 7, 13, 55, 36, 600);
const HOUR = Date.UTC(2026, 11, 7, 13, 0, 0, 0);
const note = (c: AlgorithmConfig, origin: number) => clockWindowsNote(c, 'Kong', origin, 'AT');

describe('clockWindowsNote', () => {
  it('names the windows a replay starts off the clock, and nothing when they start on it', () => {
    const fixed: AlgorithmConfig = { kind: 'fixed-window', limit: 1, windowMs: 1000 };
    expect(note(fixed, ODD)).toContain('This replay starts its windows at AT (its time 0)');
    expect(note(fixed, ODD - 600)).toBeNull();
    const kong: AlgorithmConfig = { kind: 'calendar-windows', minute: 5, hour: 100 };
    expect(note(kong, ODD)).toContain('its minutes and hours at AT');
    expect(note(kong, ODD)).toContain('Kong starts them on the UTC clock.');
    expect(note(kong, HOUR)).toBeNull();
    expect(note({ ...kong, day: 1000 }, HOUR)).toContain('its days at AT');
    // Calendar months start where the calendar does only at core's own zero.
    expect(note({ kind: 'calendar-windows', month: 5 }, HOUR)).toContain(
      'its months at AT (its time 0); Kong starts them on the UTC clock and calendar.',
    );
    expect(note({ ...kong, second: 1, month: 9 }, ODD)).toContain(
      'its seconds, minutes, hours and months',
    );
    // envoyproxy/ratelimit's month is 30 days counted from 1970.
    const envoy: AlgorithmConfig = { kind: 'calendar-windows', minute: 5, align: 'epoch' };
    expect(note(envoy, HOUR)).toBeNull();
    expect(note(envoy, ODD)).toContain('at multiples of their length since 1970 (UTC)');
  });

  it('says nothing for algorithms whose windows are not on the clock', () => {
    const haproxy: AlgorithmConfig = {
      kind: 'sliding-window-counter',
      limit: 5,
      windowMs: 1000,
      anchor: 'entry',
    };
    expect(note(haproxy, ODD)).toBeNull();
    expect(note({ kind: 'sliding-window-counter', limit: 5, windowMs: 1000 }, ODD)).not.toBeNull();
    expect(
      note({ kind: 'token-bucket', tokensPerFill: 1, fillIntervalMs: 1000, maxTokens: 5 }, ODD),
    ).toBeNull();
    expect(note({ kind: 'anchored-window', limit: 5, windowMs: 1000 }, ODD)).toBeNull();
  });

  it('is true: a replay from an odd first request puts two requests of different clock seconds in one window', () => {
    // 13:55:36.600 and 13:55:37.100: two clock seconds (a Redis INCR key per ⌊now / 1 s⌋ admits
    // both), but one window from the replay's time 0.
    const fixed: AlgorithmConfig = { kind: 'fixed-window', limit: 1, windowMs: 1000 };
    const arrivals = [ODD, ODD + 500];
    const trace = {
      count: 2,
      arrivalMs: Float64Array.from(arrivals),
      keyId: Uint32Array.from([0, 0]),
      keys: ['a'],
    };
    const bySecond = new Set(arrivals.map((a) => Math.floor(a / 1000)));
    expect(bySecond.size).toBe(2);
    expect(replayTrace(trace, fixed).outcome[1]).toBe(REJECT);
    expect(note(fixed, ODD)).not.toBeNull();
    // From a first request on a whole second the replay's windows are the clock's: no note.
    const whole = { ...trace, arrivalMs: Float64Array.from([ODD - 600, ODD - 100]) };
    expect(replayTrace(whole, fixed).outcome[1]).toBe(REJECT);
    expect(note(fixed, ODD - 600)).toBeNull();
  });
});
