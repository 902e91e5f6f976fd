// Shared test setup. Component tests opt into jsdom with `// @vitest-environment jsdom`; this adds
// jest-dom's matchers (and their types) to vitest's expect.
import '@testing-library/jest-dom/vitest';
import { expect } from 'vitest';

/**
 * toEqual on typed arrays, decided in one loop: the same kind of array, the same length, and each
 * element the same by Object.is (toEqual's own rule for numbers: NaN equals NaN, 0 is not -0).
 * Left to itself toEqual lists a typed array's keys and compares them one by one through its
 * generic equality, which made the simulator's column comparisons most of several files' time.
 * A mismatch is still printed by toEqual's own diff. Anything that is not two typed arrays is left
 * to toEqual (undefined).
 */
function typedArraysEqual(a: unknown, b: unknown): boolean | undefined {
  if (!ArrayBuffer.isView(a) || !ArrayBuffer.isView(b)) return undefined;
  if (a instanceof DataView || b instanceof DataView) return undefined;
  const kind = (v: unknown): string => Object.prototype.toString.call(v);
  if (kind(a) !== kind(b)) return false;
  const x = a as unknown as ArrayLike<number | bigint>;
  const y = b as unknown as ArrayLike<number | bigint>;
  if (x.length !== y.length) return false;
  for (let i = 0; i < x.length; i += 1) if (!Object.is(x[i], y[i])) return false;
  return true;
}

expect.addEqualityTesters([typedArraysEqual]);
