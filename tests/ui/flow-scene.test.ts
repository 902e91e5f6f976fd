import { describe, expect, it } from 'vitest';
import { packMarks, unpackMarks } from '../../src/viz/flowScene';
import { nearestMark } from '../../src/viz/markAt';
import type { MovingMark } from '../../src/viz/MovingMarks';

describe('the painted strip’s marks', () => {
  const marks: MovingMark[] = [
    { outcome: 'admit', x: 12.5, y: 40, size: 9, opacity: 1 },
    { outcome: 'delay', x: 300.1, y: 53.5, size: 9, opacity: 0.7 },
    { outcome: 'reject', x: 99.9, y: 27.2, size: 9, opacity: 0.3 },
    { outcome: 'pending', x: 5, y: 140, size: 8, opacity: 1 },
  ];

  it('come back from their packed numbers as they went in, in order', () => {
    const packed = packMarks(marks);
    expect(packed).toHaveLength(marks.length * 5);
    const back = unpackMarks(packed);
    expect(back.map((m) => m.outcome)).toEqual(['admit', 'delay', 'reject', 'pending']);
    back.forEach((m, i) => {
      const want = marks[i] as MovingMark;
      // Float32: within a thousandth of a px or of the opacity.
      expect(m.x).toBeCloseTo(want.x, 3);
      expect(m.y).toBeCloseTo(want.y, 3);
      expect(m.size).toBe(want.size);
      expect(m.opacity).toBeCloseTo(want.opacity, 3);
    });
    expect(unpackMarks(packMarks([]))).toEqual([]);
  });

  it('take a click on the nearest mark within 12 px, and none farther', () => {
    expect(nearestMark(marks, 14, 41)).toBe(0);
    expect(nearestMark(marks, 100, 30)).toBe(2);
    // 12 px right of the first mark: on the edge of its reach.
    expect(nearestMark(marks, 24.5, 40)).toBe(0);
    expect(nearestMark(marks, 24.6, 40)).toBe(-1);
    expect(nearestMark([], 0, 0)).toBe(-1);
  });
});
