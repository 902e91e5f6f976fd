/**
 * Links of version 1 and the configs they must open to, written out in full: this is the promise
 * that a link made today opens the same way after the schema or the defaults change, or, where a
 * link held a field its system does not have (Envoy's max_delay), opens without it and says so.
 */
import { describe, expect, it } from 'vitest';
import { encodeConfig } from '../../src/config';
import { isValidConfig } from '../../src/config/valibot-schema';
import { decodeConfig } from '../../src/config/url';
import fixtures from './fixtures/v1.json';

describe('version 1 links', () => {
  for (const fixture of fixtures) {
    it(fixture.note, () => {
      expect(isValidConfig(fixture.config)).toBe(true);
      const result = decodeConfig(fixture.link);
      // `errors`: the messages a link opens with when it held what the page no longer takes (a
      // field the system does not have, dropped and said): none for every other link.
      expect(result.errors).toEqual('errors' in fixture ? fixture.errors : []);
      expect(result.config).toStrictEqual(fixture.config);
      // `canonical`: true when the link is what the encoder writes today, or the link it writes
      // today when it has since learnt to leave more out (the old link still opens the same).
      if ('canonical' in fixture && fixture.canonical !== false) {
        const canonical = fixture.canonical === true ? fixture.link : fixture.canonical;
        expect(encodeConfig(result.config)).toBe(canonical);
        expect(canonical.length).toBeLessThanOrEqual(fixture.link.length);
      }
    });
  }
});
