import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MIN_SPAN_MS,
  clockText,
  clockValue,
  defaultSpan,
  editSpan,
  parseClockValue,
} from '../../src/ui/stage/traceSpan';

const DAY = 86_400_000;

describe('editing the replayed span', () => {
  it('stays within the trace, 1 s to 24 h long, whatever is asked', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2000, max: 30 * DAY }),
        fc.integer({ min: 0, max: 30 * DAY }),
        fc.integer({ min: MIN_SPAN_MS, max: DAY }),
        fc.oneof(
          fc.record({ start: fc.integer({ min: -DAY, max: 31 * DAY }) }),
          fc.record({ end: fc.integer({ min: -DAY, max: 31 * DAY }) }),
          fc.record({ shift: fc.integer({ min: -31 * DAY, max: 31 * DAY }) }),
        ),
        (endMs, from, length, edit) => {
          const span = editSpan(
            { fromMs: Math.min(from, endMs - 1000), lengthMs: length },
            edit,
            endMs,
          );
          expect(span.fromMs).toBeGreaterThanOrEqual(0);
          expect(span.lengthMs).toBeGreaterThanOrEqual(Math.min(MIN_SPAN_MS, endMs));
          expect(span.lengthMs).toBeLessThanOrEqual(DAY);
          expect(span.fromMs + span.lengthMs).toBeLessThanOrEqual(Math.max(endMs, from + length));
          expect(Number.isInteger(span.fromMs) && Number.isInteger(span.lengthMs)).toBe(true);
        },
      ),
    );
  });

  it('a start moves the start and keeps the end; an end the other way round; 24 h pulls the other', () => {
    const span = { fromMs: 10 * 3_600_000, lengthMs: 6 * 3_600_000 };
    const end = 80 * 3_600_000;
    expect(editSpan(span, { start: 12 * 3_600_000 }, end)).toEqual({
      fromMs: 12 * 3_600_000,
      lengthMs: 4 * 3_600_000,
    });
    expect(editSpan(span, { end: 20 * 3_600_000 }, end)).toEqual({
      fromMs: 10 * 3_600_000,
      lengthMs: 10 * 3_600_000,
    });
    expect(editSpan(span, { end: 40 * 3_600_000 }, end)).toEqual({
      fromMs: 16 * 3_600_000,
      lengthMs: DAY,
    });
    expect(editSpan(span, { shift: -20 * 3_600_000 }, end)).toEqual({
      fromMs: 0,
      lengthMs: span.lengthMs,
    });
  });

  it('a longer bound (the span of a streamed log: the whole file) lets an end move past 24 h', () => {
    const span = { fromMs: 10 * 3_600_000, lengthMs: 6 * 3_600_000 };
    const end = 80 * 3_600_000;
    // The run's 24 h by default pulls the start; the file's length as the bound does not.
    expect(editSpan(span, { end: 40 * 3_600_000 }, end).lengthMs).toBe(DAY);
    expect(editSpan(span, { end: 40 * 3_600_000 }, end, end)).toEqual({
      fromMs: 10 * 3_600_000,
      lengthMs: 30 * 3_600_000,
    });
    expect(editSpan(span, { start: 0 }, end, end)).toEqual({ fromMs: 0, lengthMs: 16 * 3_600_000 });
  });

  it('starts on the whole trace when it fits in a run, else on its busiest day', () => {
    expect(defaultSpan(Int32Array.from([0, 5000, 70_000]))).toEqual({
      fromMs: null,
      lengthMs: 71_000,
    });
    // Quiet for two days, then 5 requests an hour for a day, then quiet again.
    const times = [0, 1000, 2 * DAY];
    for (let h = 0; h < 24; h += 1)
      for (let k = 0; k < 5; k += 1) times.push(2 * DAY + h * 3_600_000 + k);
    times.push(4 * DAY);
    times.sort((a, b) => a - b);
    expect(defaultSpan(Int32Array.from(times))).toEqual({ fromMs: 2 * DAY, lengthMs: DAY });
  });
});

describe('clock times of a span', () => {
  it('read back what they show, in UTC, and refuse what is not a date', () => {
    const at = Date.UTC(2026, 4, 17, 10, 5, 3);
    expect(clockValue(at + 999)).toBe('2026-05-17T10:05:03');
    expect(clockText(at)).toBe('2026-05-17 10:05:03 UTC');
    expect(parseClockValue('2026-05-17T10:05:03')).toBe(at);
    expect(parseClockValue('2026-05-17T10:05')).toBe(at - 3000);
    expect(parseClockValue('2026-02-31T10:05')).toBeNull();
    expect(parseClockValue('')).toBeNull();
    expect(parseClockValue('yesterday')).toBeNull();
  });
});
