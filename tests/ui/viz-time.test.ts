import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { formatInstant, formatSeconds, timeTicks } from '../../src/viz';

describe('time axes', () => {
  it('picks round steps and labels them in the step’s unit', () => {
    const minute = timeTicks(0, 60_000, 6);
    expect(minute.ticks).toEqual([0, 10_000, 20_000, 30_000, 40_000, 50_000, 60_000]);
    expect(minute.ticks.map(minute.format)).toEqual([
      '0 s',
      '10 s',
      '20 s',
      '30 s',
      '40 s',
      '50 s',
      '60 s',
    ]);
    const short = timeTicks(0, 1500, 6);
    expect(short.ticks.map(short.format)).toEqual(['0 s', '0.5 s', '1 s', '1.5 s']);
    const sub = timeTicks(0, 800, 6);
    expect(sub.ticks.map(sub.format)).toEqual(['0 ms', '200 ms', '400 ms', '600 ms', '800 ms']);
    const five = timeTicks(0, 300_000, 6);
    expect(five.ticks.map(five.format)).toEqual([
      '0 min',
      '1 min',
      '2 min',
      '3 min',
      '4 min',
      '5 min',
    ]);
    const day = timeTicks(0, 86_400_000, 6);
    expect(day.ticks.map(day.format)).toEqual(['0 h', '6 h', '12 h', '18 h', '24 h']);
    const offset = timeTicks(9_950, 10_050, 4);
    expect(offset.ticks).toEqual([9_950, 10_000, 10_050]);
  });

  it('never gives more ticks than asked, all inside the domain (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 86_400_000 }),
        fc.integer({ min: 0, max: 86_400_000 }),
        fc.integer({ min: 1, max: 20 }),
        (a, span, n) => {
          const t = timeTicks(a, a + span, n);
          expect(t.ticks.length).toBeLessThanOrEqual(Math.max(1, n + 1));
          expect(t.ticks.length).toBeGreaterThanOrEqual(span === 0 ? 1 : 0);
          for (const v of t.ticks) {
            expect(v).toBeGreaterThanOrEqual(a);
            expect(v).toBeLessThanOrEqual(a + span);
            expect(t.format(v)).not.toMatch(/NaN|Infinity/);
          }
        },
      ),
    );
  });

  it('prints instants for the slider and for sentences', () => {
    expect(formatSeconds(2350)).toBe('2.35 s');
    expect(formatSeconds(0)).toBe('0 s');
    expect(formatSeconds(60_000)).toBe('60 s');
    expect(formatSeconds(Number.NaN)).toBe('0 s');
    expect(formatInstant(10_000)).toBe('10.000 s');
    expect(formatInstant(9_999)).toBe('9.999 s');
    expect(formatInstant(Number.NaN)).toBe('0.000 s');
  });
});
