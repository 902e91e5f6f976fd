// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  formatBytes,
  formatCount,
  formatDecimal,
  formatDuration,
  formatOffset,
  formatTokens,
  px,
} from '../../src/viz';

describe('viz number formatting', () => {
  it('picks a unit that fits a duration', () => {
    expect(formatDuration(0)).toBe('0 ms');
    expect(formatDuration(120)).toBe('120 ms');
    expect(formatDuration(1250)).toBe('1.25 s');
    expect(formatDuration(45_000)).toBe('45 s');
    expect(formatDuration(90_000)).toBe('1.5 min');
    expect(formatDuration(7_200_000)).toBe('2 h');
    expect(formatDuration(-1500)).toBe('−1.5 s');
    expect(formatOffset(0)).toBe('now');
    expect(formatOffset(50)).toBe('+50 ms');
    expect(formatOffset(-1000)).toBe('−1 s');
  });

  it('never shows a token count above the real one (9.96 tokens is not "10")', () => {
    expect(formatTokens(9.96)).toBe('9.9');
    expect(formatTokens(7.43)).toBe('7.4');
    expect(formatTokens(10)).toBe('10');
    expect(formatTokens(-0.04)).toBe('−0.1'); // d3-format's true minus sign
    fc.assert(
      fc.property(fc.double({ min: -1e6, max: 1e6, noNaN: true }), (x) => {
        expect(Number(formatTokens(x).replace(/,/g, '').replace('−', '-'))).toBeLessThanOrEqual(x);
      }),
    );
  });

  it('formats counts, decimals and bytes', () => {
    expect(formatCount(1234567)).toBe('1,234,567');
    expect(formatDecimal(49.5)).toBe('49.5');
    expect(formatDecimal(49.333333)).toBe('49.33');
    expect(formatBytes(96)).toBe('96 B');
    expect(formatBytes(1500)).toBe('1.5 kB');
    expect(formatBytes(2_300_000)).toBe('2.3 MB');
  });

  it('never lets NaN, Infinity or -0 reach the DOM', () => {
    const anything = fc.oneof(
      fc.double(),
      fc.constantFrom(Number.NaN, Infinity, -Infinity, -0, 2 ** 53, -(2 ** 53)),
    );
    fc.assert(
      fc.property(anything, (x) => {
        for (const s of [
          formatCount(x),
          formatTokens(x),
          formatDecimal(x),
          formatDuration(x),
          formatOffset(x),
          formatBytes(x),
          String(px(x)),
        ]) {
          expect(s).not.toMatch(/NaN|Infinity|^[-−]0$/);
        }
        expect(Math.abs(px(x))).toBeLessThanOrEqual(1e5);
      }),
    );
  });
});
