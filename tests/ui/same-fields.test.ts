import { describe, expect, it } from 'vitest';
import { shallow } from 'zustand/vanilla/shallow';
import { sameFields } from '../../src/store/react';

// usePlaygroundShallow's compare: the same answers as zustand's `shallow`, which it replaces
// because that one builds two Maps per call (~20 calls per frame of a playing page).
describe('sameFields', () => {
  const f = () => undefined;
  const list = [1, 2];
  const cases: Array<[unknown, unknown]> = [
    [
      { a: 1, b: f },
      { a: 1, b: f },
    ],
    [
      { a: 1, b: f },
      { a: 1, b: () => undefined },
    ],
    [{ a: 1 }, { a: 1, b: undefined }],
    [{ a: 1, b: undefined }, { a: 1 }],
    [
      { a: 1, b: undefined },
      { a: 1, c: undefined },
    ],
    [{ a: Number.NaN }, { a: Number.NaN }],
    [{ a: 0 }, { a: -0 }],
    [{}, {}],
    [{ l: list }, { l: list }],
    [{ l: list }, { l: [1, 2] }],
    [list, [1, 2]],
    [
      [1, 2],
      [1, 2, 3],
    ],
    [new Map([[1, 'a']]), new Map([[1, 'a']])],
    [new Map([[1, 'a']]), new Map([[1, 'b']])],
    [{ a: 1 }, [1]],
    [{ a: 1 }, null],
    [null, null],
    [undefined, { a: 1 }],
    [1, 1],
    ['x', 'y'],
  ];
  it.each(cases)('answers as zustand shallow: %o vs %o', (a, b) => {
    expect(sameFields(a, b)).toBe(shallow(a, b));
  });
  it('tells equal and different selections apart', () => {
    expect(sameFields({ a: 1, b: f }, { a: 1, b: f })).toBe(true);
    expect(sameFields({ a: 1, b: f }, { a: 2, b: f })).toBe(false);
    expect(sameFields({ a: 1 }, { a: 1, b: 2 })).toBe(false);
  });
});
