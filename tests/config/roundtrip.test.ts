import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_LINK_LENGTH, encodeConfig } from '../../src/config';
import { isValidConfig } from '../../src/config/valibot-schema';
import { decodeConfig } from '../../src/config/url';
import { validConfig } from './arbitraries';

/** Properties run a few seconds; the machine may be shared. */
const PROPERTY_TIMEOUT_MS = 60_000;

describe('round trip', () => {
  it(
    'decode(encode(c)) deep-equals c, with no errors, for every valid config',
    () => {
      fc.assert(
        fc.property(validConfig, (config) => {
          expect(isValidConfig(config)).toBe(true);
          const link = encodeConfig(config);
          expect(link.length).toBeLessThanOrEqual(MAX_LINK_LENGTH);
          const decoded = decodeConfig(link);
          expect(decoded.errors).toEqual([]);
          expect(decoded.config).toStrictEqual(config);
          // Canonical: the link of what was read is the same link.
          expect(encodeConfig(decoded.config)).toBe(link);
        }),
        { numRuns: 300 },
      );
    },
    PROPERTY_TIMEOUT_MS,
  );
});
