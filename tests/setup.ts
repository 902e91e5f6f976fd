// Shared test setup. Component tests opt into jsdom with `// @vitest-environment jsdom`; this adds
// jest-dom's matchers (and their types) to vitest's expect.
import '@testing-library/jest-dom/vitest';
import { expect } from 'vitest';

// Component tests (jsdom): findBy… and waitFor give up after 20 s instead of Testing Library's 1 s.
// The timeout bounds a hang, not speed (speed is `npm run bench`'s); on a machine busy with other
// jobs a lazily loaded part or a download took longer than 1 s, and the late result then landed in
// the next test. A passing test does not wait for it.
if (typeof document !== 'undefined') {
  const { configure } = await import('@testing-library/dom');
  configure({ asyncUtilTimeout: 20_000 });
}

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
