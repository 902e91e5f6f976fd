/**
 * Words and numbers: durations from an hour up in h/min/s, a log's moments as clock times, the dry
 * run's time groups in round steps on the clock, one plural rule, one number format.
 */
import { describe, expect, it } from 'vitest';
import { formatTime } from '../../src/ui/common/format';
import { clockOfDay, formatClock } from '../../src/ui/traffic/clockTime';
import { DryRunGrouper, niceSliceMs } from '../../src/trace/dryrunGroups';
import { parseTrace } from '../../src/trace';

describe('durations', () => {
  it('from an hour up in hours, minutes and seconds, never "600 min 49 s"', () => {
    expect(formatTime(36_049_000)).toBe('10 h 0 min 49 s');
    expect(formatTime(79_209_000)).toBe('22 h 0 min 9 s');
    expect(formatTime(3_600_000)).toBe('1 h');
    expect(formatTime(5_400_000)).toBe('1 h 30 min');
    expect(formatTime(298_800_000)).toBe('83 h');
    expect(formatTime(3_599_999)).toBe('59 min 59.999 s');
    expect(formatTime(65_000)).toBe('1 min 5 s');
    expect(formatTime(2350)).toBe('2.35 s');
    expect(formatTime(-5_400_000)).toBe('-1 h 30 min');
  });

  it('a moment of a log as a clock time', () => {
    expect(formatClock(Date.UTC(2024, 2, 10, 14, 3, 9))).toBe('2024-03-10 14:03:09 UTC');
    expect(formatClock(Date.UTC(2024, 2, 10, 14, 3, 9, 250))).toBe('2024-03-10 14:03:09.250 UTC');
    expect(formatClock(Number.NaN)).toBe('–');
  });
});

describe("the dry run's time groups", () => {
  it('round steps: 1, 2, 5 … ms, s, min, h, days', () => {
    expect(niceSliceMs(1)).toBe(1);
    expect(niceSliceMs(3)).toBe(5);
    expect(niceSliceMs(2500)).toBe(5000);
    expect(niceSliceMs(14_940_000)).toBe(21_600_000); // an 83-hour log in 20 → 6 h
    expect(niceSliceMs(90_000_000)).toBe(172_800_000);
  });

  it('an 83-hour log groups by 6 h on the clock, not by "+79,209,000 ms"', () => {
    // 2024-03-10 13:17:45 UTC, then one request every 10 min for 83 h.
    const start = Date.UTC(2024, 2, 10, 13, 17, 45);
    const n = 83 * 6 + 1;
    const timeMs = Int32Array.from({ length: n }, (_, i) => i * 600_000);
    const g = new DryRunGrouper(
      {
        timeMs,
        keyId: new Uint32Array(n),
        keyCount: 1,
        status: new Uint16Array(n).fill(200),
        zeroEpochMs: start,
      },
      new Uint8Array(n).fill(2), // every request rejected: every one is a change
      new Uint32Array(n),
      'recorded',
    );
    while (g.step(100));
    const { byTime, toRejected } = g.snapshot();
    expect(toRejected).toBe(n);
    for (const s of byTime) {
      expect(s.endMs - s.startMs).toBe(6 * 3_600_000);
      // Every slice starts on a 6-hour boundary of the clock.
      expect((start + s.startMs) % (6 * 3_600_000)).toBe(0);
    }
    expect(formatClock(start + (byTime[0]?.startMs ?? 0))).toBe('2024-03-10 12:00:00 UTC');
    expect(byTime.reduce((a, s) => a + s.toRejected, 0)).toBe(n);
    expect(byTime.length).toBeLessThanOrEqual(21);
  });
});

describe('one plural rule', () => {
  it('a log with one malformed line says "1 malformed line was skipped"', () => {
    const ok = (s: number) =>
      `10.0.0.1 - - [10/Oct/2000:13:55:${String(s).padStart(2, '0')} +0000] "GET / HTTP/1.1" 200 5 "-" "curl"\n`;
    const text = `${ok(1)}${ok(2)}this line is not a log line\n${ok(3)}`;
    const notes = parseTrace(new TextEncoder().encode(text), { name: 'a.log' }).report.notes;
    expect(notes).toContain('1 malformed line was skipped.');
    expect(notes.join(' ')).not.toMatch(/\b1 malformed lines\b/);
  });
});

describe('clock times of one day', () => {
  it('say the day once and the times alone', () => {
    const t = Date.UTC(2026, 10, 29, 12, 0, 3, 867);
    const one = clockOfDay(t, t + 60_000);
    expect(one.day).toBe('2026-11-29');
    expect(one.at(t)).toBe('12:00:03.867');
    const two = clockOfDay(t, t + 86_400_000);
    expect(two.day).toBeNull();
    expect(two.at(t)).toBe('2026-11-29 12:00:03.867 UTC');
  });
});
