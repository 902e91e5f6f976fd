/**
 * The hostile inputs the browser tests open from saved settings hold exactly the config their link
 * opens (tests/e2e/hostileInputs.ts writes them out: the browser tests cannot load the link decoder).
 */
import { describe, expect, it } from 'vitest';
import { decodeConfig } from '../../src/config/url';
import { RUN_ATTACKS } from '../e2e/hostileInputs';

describe('hostile runs', () => {
  for (const attack of RUN_ATTACKS) {
    it(`${attack.name}: the link opens the config written out, with no problem`, () => {
      const { config, errors } = decodeConfig(attack.link);
      expect(errors).toEqual([]);
      expect(config).toEqual(attack.config);
      expect(decodeConfig(attack.plain).errors).toEqual([]);
    });
  }
});
