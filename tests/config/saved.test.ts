/**
 * saved settings are checked on their raw text before JSON.parse (src/config/saved.ts).
 * The limits sit above the largest record the page itself writes; a record past them is not opened
 * and not changed; below them the record opens, repaired, with its problems quoted and capped.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config';
import { isValidConfig } from '../../src/config/valibot-schema';
import { MAX_ERRORS } from '../../src/config/url';
import { repairConfig } from '../../src/config/repair';
import { SAVED_LIMITS, savedRecordOver } from '../../src/config/saved';
import type { SavedLimit, SavedLimits } from '../../src/config/saved';
import { openSaved } from '../../src/ui/share/openSaved';
import { savedRefusalMessage } from '../../src/ui/share/savedRefusal';
import { startFrom } from '../../src/ui/share/session';
import { openLink } from '../../src/ui/share/openLink';
import { hostileSavedRecords, largestConfig, largestRecord, record } from './saved-records';
import { validConfig } from './arbitraries';

/**
 * The counts the limits apply to, taken from the parsed value (the check counts on the text): the
 * text is JSON.stringify's, as the page writes it and as fc.json makes it.
 */
function counts(text: string): Record<SavedLimit, number> {
  const c = {
    chars: text.length,
    escapes: 0,
    values: 1,
    strings: 0,
    parts: 0,
    nesting: 0,
    fractions: 0,
  };
  const string = (s: string): void => {
    c.strings += 1;
    const written = JSON.stringify(s);
    c.escapes += (written.match(/\\/g) ?? []).length;
    // The commas in strings count too (the check counts every comma: the page writes none there).
    c.values += (s.match(/,/g) ?? []).length;
  };
  const walk = (value: unknown, depth: number): void => {
    if (typeof value === 'string') string(value);
    else if (typeof value === 'number') {
      // As JSON.stringify writes it: a '.' and an exponent each count.
      const written = JSON.stringify(value);
      c.fractions += (written.match(/\./g) ?? []).length + (written.match(/e/gi) ?? []).length;
    } else if (typeof value === 'object' && value !== null) {
      c.parts += 1;
      c.nesting = Math.max(c.nesting, depth + 1);
      const entries = Array.isArray(value) ? value : Object.values(value);
      if (!Array.isArray(value)) Object.keys(value).forEach(string);
      c.values += Math.max(0, entries.length - 1); // one comma between two entries
      for (const inner of entries) walk(inner, depth + 1);
    }
  };
  walk(JSON.parse(text), 0);
  return c;
}

/** Characters a message must never carry raw: controls, format characters (bidi, zero-width). */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;

describe('the limits of a saved record', () => {
  it('sit above the largest record the page writes, which opens exactly', () => {
    const config = largestConfig();
    expect(isValidConfig(config)).toBe(true);
    expect(repairConfig(config).issues).toEqual([]);
    const text = largestRecord();
    const found = counts(text);
    for (const limit of Object.keys(SAVED_LIMITS) as Array<keyof SavedLimits>)
      expect(found[limit], limit).toBeLessThanOrEqual(SAVED_LIMITS[limit]);
    // The figures src/config/saved.ts states.
    expect(found).toEqual({
      chars: 2_887_090,
      escapes: 0,
      values: 320_389,
      strings: 446,
      parts: 177,
      nesting: 8,
      fractions: 2,
    });
    expect(savedRecordOver(text)).toBeNull();
    const start = openSaved(text, false);
    expect(start.source).toBe('saved');
    expect(start.problems).toEqual([]);
    expect(start.config).toEqual(config);
  });

  it('count on the raw text what a walk of the parsed value counts (property)', () => {
    // Small limits, so that random JSON crosses them: refused exactly when a count is over.
    const limits: fc.Arbitrary<SavedLimits> = fc.record({
      chars: fc.integer({ min: 0, max: 400 }),
      parts: fc.integer({ min: 0, max: 12 }),
      nesting: fc.integer({ min: 0, max: 5 }),
      values: fc.integer({ min: 1, max: 30 }),
      strings: fc.integer({ min: 0, max: 12 }),
      fractions: fc.integer({ min: 0, max: 4 }),
    });
    fc.assert(
      fc.property(fc.json({ depthSize: 'medium' }), limits, (text, L) => {
        const found = counts(text);
        const limits: Record<SavedLimit, number> = { ...L, escapes: 0 };
        const over = (Object.keys(limits) as SavedLimit[]).filter((k) => found[k] > limits[k]);
        const said = savedRecordOver(text, L);
        if (over.length === 0) expect(said).toBeNull();
        else expect(over).toContain(said);
      }),
      { numRuns: 3000 },
    );
  });

  it('skip what strings hold but their commas; any backslash is an escape', () => {
    const text = JSON.stringify({ a: '[[[{{{...]]]', b: ['x\u202Ey', ',,', 'e+1'] });
    const L: SavedLimits = {
      chars: 100,
      values: 6,
      strings: 6,
      parts: 2,
      nesting: 2,
      fractions: 0,
    };
    expect(counts(text)).toMatchObject({ escapes: 0, values: 6, strings: 6, parts: 2, nesting: 2 });
    expect(savedRecordOver(text, L)).toBeNull();
    expect(savedRecordOver(text, { ...L, strings: 5 })).toBe('strings');
    expect(savedRecordOver(text, { ...L, values: 5 })).toBe('values');
    expect(savedRecordOver(JSON.stringify({ a: 'say "hi"' }), L)).toBe('escapes');
  });

  it('give the verdict of each limit just at it, just over it and far over it (the real limits)', () => {
    const L = SAVED_LIMITS;
    // `n` items of `item` in one list.
    const list = (item: string, n: number): string => `[${Array<string>(n).fill(item).join(',')}]`;
    const nested = (n: number): string => `${'['.repeat(n)}${']'.repeat(n)}`;
    const pad = 'x'.repeat(L.values);
    const cases: Array<[string, string, SavedLimit | null]> = [
      ['chars at the limit', `"${'x'.repeat(L.chars - 2)}"`, null],
      ['chars over', `"${'x'.repeat(L.chars - 1)}"`, 'chars'],
      ['a backslash', '["a\\u0041"]', 'escapes'],
      // Values are counted by their commas, up to one past the limit: the count stops there.
      ['values at the limit', list('1', L.values), null],
      ['values over', list('1', L.values + 1), 'values'],
      ['values far over (1,400,000)', list('1', 1_400_000), 'values'],
      // Commas in strings count too, once the text is long enough to hold that many values (each
      // takes 2 characters with its comma): a shorter one cannot be over.
      ['values at the limit, commas in a string', `["${','.repeat(L.values - 1)}${pad}"]`, null],
      ['values over, commas in a string', `["${','.repeat(L.values)}${pad}"]`, 'values'],
      ['values over, commas in a short string', `["${','.repeat(L.values)}"]`, null],
      ['strings at the limit', list('"s"', L.strings), null],
      ['strings over', list('"s"', L.strings + 1), 'strings'],
      ['parts at the limit', list('[]', L.parts - 1), null],
      ['parts over', list('[]', L.parts), 'parts'],
      ['nesting at the limit', nested(L.nesting), null],
      ['nesting over', nested(L.nesting + 1), 'nesting'],
      ['fractions at the limit', list('0.5', L.fractions), null],
      ['fractions over', list('1e5', L.fractions + 1), 'fractions'],
      // Over two limits: the marks (strings here) are read before the commas are counted.
      [
        'strings and values over',
        `[${list('"s"', L.strings + 1)},${list('1', L.values)}]`,
        'strings',
      ],
    ];
    for (const [name, text, verdict] of cases) expect(savedRecordOver(text), name).toBe(verdict);
  });

  const records = hostileSavedRecords();
  for (const [name, text] of Object.entries(records)) {
    const over = name.startsWith('over:') || name.startsWith('unreadable:');
    it(`${name}: ${over ? 'not opened, record kept as it came' : 'opens, repaired'}`, () => {
      const storage = { getItem: () => text } as unknown as Storage;
      const start = startFrom('', storage, openSaved, null);
      if (over) {
        const limit = savedRecordOver(text) ?? 'unreadable';
        if (limit === 'unreadable') expect(() => JSON.parse(text) as unknown).toThrow();
        expect(start.source).toBe('refused');
        expect(start.config).toEqual(defaultConfig());
        expect(start.refused?.text).toBe(text);
        expect(start.refused?.over).toBe(limit);
        expect(start.problems).toEqual(['the saved settings were not opened']);
      } else {
        expect(savedRecordOver(text)).toBeNull();
        expect(start.source).toBe('saved');
        expect(isValidConfig(start.config)).toBe(true);
        expect(start.problems.length).toBeLessThanOrEqual(MAX_ERRORS);
        for (const p of start.problems) expect(p).not.toMatch(INVISIBLE);
      }
    });
  }

  it('without the opener (its chunk failed to load), saved settings are kept, not opened', () => {
    const storage = { getItem: () => largestRecord() } as unknown as Storage;
    const start = startFrom('', storage, null, null);
    expect(start.source).toBe('refused');
    expect(start.config).toEqual(defaultConfig());
    expect(start.problems).toEqual(['the saved settings could not be opened']);
    // A link still wins over them, and no saved settings at all is the defaults.
    expect(startFrom('?v=1&paused', storage, null, openLink).source).toBe('link');
    expect(startFrom('', null, null, null).source).toBe('default');
  });

  it('says which limit, with the size and the limit', () => {
    expect(savedRefusalMessage('chars', 4_051_945)).toBe(
      'They are 4,051,945 characters long, over the 3,000,000 the page reads.',
    );
    expect(savedRefusalMessage('parts', 2_700_614)).toBe(
      'They hold more than 1,000 objects and lists (2,700,614 characters); the page never writes that many.',
    );
    expect(savedRefusalMessage('nesting', 639)).toBe(
      'They are nested more than 12 deep (639 characters); the page never writes them so.',
    );
  });
});

describe('any saved record within the limits', () => {
  /** A config with any JSON in place of some of its parts. */
  const corrupted = fc
    .tuple(
      validConfig,
      fc.array(fc.tuple(fc.constantFrom(0, 1, 2, 3), fc.jsonValue()), { maxLength: 4 }),
    )
    .map(([config, changes]) => {
      const c = structuredClone(config) as unknown as Record<string, Record<string, unknown>>;
      for (const [where, value] of changes) {
        if (where === 0) c.view = value as never;
        else if (where === 1) (c.scenario as Record<string, unknown>).sources = [value];
        else if (where === 2) c.limiters = value as never;
        else (c.scenario as Record<string, unknown>).clock = value;
      }
      return c;
    });

  it('opens a valid config with its problems quoted and capped, or is refused unchanged (property)', () => {
    fc.assert(
      fc.property(corrupted, fc.jsonValue(), (config, experiment) => {
        const text = record(config, experiment);
        const start = openSaved(text, false);
        if (start.source === 'refused') {
          expect(start.refused?.text).toBe(text);
          return;
        }
        expect(start.source).toBe('saved');
        expect(isValidConfig(start.config)).toBe(true);
        expect(start.problems.length).toBeLessThanOrEqual(MAX_ERRORS);
        for (const p of start.problems) expect(p).not.toMatch(INVISIBLE);
      }),
      { numRuns: 300 },
    );
  });

  it('a valid config saved as the page saves it opens exactly (property)', () => {
    fc.assert(
      fc.property(validConfig, (config) => {
        const start = openSaved(record(config), false);
        expect(start.problems).toEqual([]);
        expect(start.config).toEqual(config);
      }),
      { numRuns: 200 },
    );
  });
});
