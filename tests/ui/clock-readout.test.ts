import { describe, expect, it } from 'vitest';
import { readoutChars } from '../../src/ui/clock/ClockBar';

describe('readoutChars (the clock readout box keeps one width while the clock plays)', () => {
  it('counts seconds as if written to three decimals', () => {
    expect(readoutChars('2.35 s')).toBe('2.350 s'.length);
    expect(readoutChars('2.4 s')).toBe('2.400 s'.length);
    expect(readoutChars('2.367 s')).toBe('2.367 s'.length);
    expect(readoutChars('12 s')).toBe('12.000 s'.length);
    expect(readoutChars('1 min 5.2 s')).toBe('1 min 5.200 s'.length);
  });

  it('leaves other times as they are', () => {
    expect(readoutChars('850 ms')).toBe(6);
    expect(readoutChars('1 min')).toBe(5);
    expect(readoutChars('–')).toBe(1);
  });
});
