import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration, quoteText } from '../../src/config';

describe('durations', () => {
  it('are written with the largest unit that holds them with at most one decimal', () => {
    const cases: Array<[number, string]> = [
      [0, '0'],
      [1, '1ms'],
      [100, '100ms'],
      [999, '999ms'],
      [1000, '1s'],
      [1234, '1234ms'],
      [1500, '1.5s'],
      [2500, '2.5s'],
      [30_000, '30s'],
      [60_000, '1m'],
      [90_000, '1.5m'],
      [61_000, '61s'],
      [3_600_000, '1h'],
      [5_400_000, '1.5h'],
      [86_400_000, '24h'],
      [-30_000, '-30s'],
      [-5000, '-5s'],
    ];
    for (const [ms, text] of cases) {
      expect(formatDuration(ms)).toBe(text);
      expect(parseDuration(text)).toBe(ms);
    }
  });

  it('read back exactly for every whole number of ms in range', () => {
    fc.assert(
      fc.property(fc.integer({ min: -86_400_000, max: 86_400_000 }), (ms) => {
        expect(parseDuration(formatDuration(ms))).toBe(ms);
      }),
      { numRuns: 5000 },
    );
  });

  it('read decimals exactly (1.1s is 1100, not 1100.0000000000002)', () => {
    expect(parseDuration('1.1s')).toBe(1100);
    expect(parseDuration('0.001s')).toBe(1);
    expect(parseDuration('2.5m')).toBe(150_000);
    expect(parseDuration('250')).toBe(250);
    expect(parseDuration('-0')).toBe(0);
    expect(Object.is(parseDuration('-0'), -0)).toBe(false);
  });

  it('refuse anything else', () => {
    for (const text of [
      '',
      ' 1s',
      '1s ',
      '1 s',
      '1e3',
      '1e3ms',
      '0x10',
      'NaN',
      'Infinity',
      '-Infinity',
      '+1s',
      '1.',
      '.5s',
      '1.0001s',
      '0.5ms',
      '1sec',
      '1S',
      '1d',
      '1,5s',
      '１s',
      '99999999999999999999',
      '--1',
    ]) {
      expect(parseDuration(text)).toBeNull();
    }
  });
});

describe('quoteText', () => {
  it('quotes, cuts at 40 characters and makes invisible characters visible', () => {
    expect(quoteText('-4')).toBe('"-4"');
    expect(quoteText('a"b\\c')).toBe('"a\\"b\\\\c"');
    expect(quoteText('x'.repeat(50))).toBe(`"${'x'.repeat(40)}…"`);
    expect(quoteText('ab\u202ecd')).toBe('"ab\\u202Ecd"');
    expect(quoteText('a\u0000b')).toBe('"a\\u0000b"');
    expect(quoteText('zero\u200bwidth')).toBe('"zero\\u200Bwidth"');
    expect(quoteText('<script>alert(1)</script>')).toBe('"<script>alert(1)</script>"');
  });
});
