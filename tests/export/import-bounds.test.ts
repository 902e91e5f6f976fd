/**
 * a paste cannot freeze the tab. Snippets above MAX_IMPORT_CHARS are refused with their
 * size; nesting deeper than MAX_IMPORT_DEPTH is refused before the YAML parser sees it (64 k of `[`
 * overflowed its stack, 64 k of `{` exhausted memory); duplicate keys are found with a set (the
 * parser's own check is quadratic). Bounds are generous: the budget is 200 ms per import, the
 * tests only have to tell a bounded import from the seconds and minutes of before.
 */
import fc from 'fast-check';
import { parseDocument } from 'yaml';
import { describe, expect, it } from 'vitest';
import {
  MAX_IMPORT_CHARS,
  MAX_IMPORT_DEPTH,
  MAX_IMPORT_ERRORS,
  MAX_IMPORT_FLOW,
  importEnvoy,
  importHaproxy,
  importIngressNginx,
  importNginx,
} from '../../src/export';
import { yamlDepthProblem } from '../../src/export/import-limits';
import { timedCpu as timed } from '../cpuTime';
import { YAML_PIECES } from './paste-pieces';

const flatMapping = (keys: number): string =>
  Array.from({ length: keys }, (_, i) => `k${i}: 1`).join('\n');

describe('imports bounded in time and memory', () => {
  it('refuses 1 MB of "[" and a 100,000-key mapping at once, saying how large they are', () => {
    for (const text of ['['.repeat(1 << 20), flatMapping(100_000)]) {
      for (const run of [() => importEnvoy(text), () => importNginx(text)] as Array<
        () => ReturnType<typeof importEnvoy> | ReturnType<typeof importNginx>
      >) {
        const { value, ms } = timed(run);
        expect(ms).toBeLessThan(250);
        expect(value.ok).toBe(false);
        if (value.ok) continue;
        expect(value.errors).toHaveLength(1);
        expect(value.errors[0]?.message).toContain(text.length.toLocaleString('en-US'));
        expect(value.errors[0]?.message).toContain(MAX_IMPORT_CHARS.toLocaleString('en-US'));
      }
    }
  });

  it('refuses nesting deeper than the limit with a line and column, before parsing', () => {
    for (const text of [
      '['.repeat(MAX_IMPORT_CHARS),
      '- '.repeat(MAX_IMPORT_CHARS / 2),
      '{a: '.repeat(4000),
    ]) {
      const { value, ms } = timed(() => importEnvoy(text));
      expect(ms).toBeLessThan(250);
      expect(value.ok).toBe(false);
      if (!value.ok) {
        expect(value.errors[0]?.message).toBe(
          `expected YAML nested at most ${MAX_IMPORT_DEPTH} levels deep; it is deeper at this point`,
        );
        expect(value.errors[0]?.line).toBe(1);
      }
    }
    // Just inside the limit, the parser takes it (and says what it is not).
    expect(
      yamlDepthProblem(`${'['.repeat(MAX_IMPORT_DEPTH - 1)}${']'.repeat(MAX_IMPORT_DEPTH - 1)}`),
    ).toBeNull();
  });

  it('refuses more flow brackets and commas than the limit, where the limit is passed', () => {
    // 16 Ki of `[]` or of commas in one flow sequence: 16,000 parser errors (200 ms) before.
    for (const text of [
      '[]'.repeat(MAX_IMPORT_CHARS / 2),
      `[${','.repeat(MAX_IMPORT_CHARS - 2)}]`,
    ]) {
      const { value } = timed(() => importEnvoy(text));
      expect(value.ok).toBe(false);
      if (value.ok) continue;
      expect(value.errors).toEqual([
        {
          line: 1,
          column: MAX_IMPORT_FLOW + 1,
          message: `expected at most 4,096 flow brackets and commas ([ ] { } ,) outside quotes; there are more from this point (write the YAML in block style)`,
        },
      ]);
    }
    // Quoted and commented brackets are text, not structure.
    const quoted = `a: "${'[],'.repeat(2000)}" # ${'{}'.repeat(2000)}`;
    expect(yamlDepthProblem(quoted)).toBeNull();
    // At the limit, the parser reads it.
    expect(yamlDepthProblem(`[${'1,'.repeat(MAX_IMPORT_FLOW / 2 - 1)}1]`)).toBeNull();
  });

  it('lists the first errors and counts all of them', () => {
    // 2,000 quoted scalars after one another: the first is the document, each other an error.
    const text = '"a" '.repeat(2000);
    const r = importEnvoy(text);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors).toHaveLength(MAX_IMPORT_ERRORS);
    expect(r.errors[MAX_IMPORT_ERRORS - 1]?.message).toMatch(/^and [\d,]+ more errors not listed$/);
    const more = Number(
      /and ([\d,]+) more/.exec(r.errors.at(-1)?.message ?? '')?.[1]?.replace(/,/g, ''),
    );
    expect(more + MAX_IMPORT_ERRORS - 1).toBe(1999);
  });

  it('finds a duplicate key in a mapping of the largest size quickly', () => {
    const text = `${flatMapping(1500)}\nk7: 2`;
    expect(text.length).toBeLessThanOrEqual(MAX_IMPORT_CHARS);
    const { value, ms } = timed(() => importEnvoy(text));
    // The parser itself takes about 1 µs a character on the dev machine; 2 s is a frozen tab.
    expect(ms).toBeLessThan(2000);
    expect(value.ok).toBe(false);
    if (!value.ok)
      expect(value.errors[0]?.message).toMatch(/map keys must be unique, got "k7" twice/);
    // The same for an Ingress (the person can pick that format for any paste).
    const ingress = timed(() => importIngressNginx(text));
    expect(ingress.ms).toBeLessThan(2000);
    expect(ingress.value.ok).toBe(false);
    if (!ingress.value.ok)
      expect(ingress.value.errors[0]).toMatchObject({
        line: 1501,
        column: 1,
        message: 'expected valid YAML: map keys must be unique, got "k7" twice',
      });
  });

  it('any text up to the size limit imports without throwing, in bounded time (property)', () => {
    const unit = fc.constantFrom(...YAML_PIECES);
    fc.assert(
      fc.property(
        fc.array(unit, { maxLength: 4000 }),
        fc.integer({ min: 1, max: 4 }),
        (parts, times) => {
          const text = parts.join('').repeat(times).slice(0, MAX_IMPORT_CHARS);
          const envoy = timed(() => importEnvoy(text));
          const nginx = timed(() => importNginx(text));
          expect(typeof envoy.value.ok).toBe('boolean');
          expect(typeof nginx.value.ok).toBe('boolean');
          // Budget 200 ms on the dev machine; 2 s is the line a frozen tab would cross.
          expect(envoy.ms).toBeLessThan(2000);
          expect(nginx.ms).toBeLessThan(2000);
          for (const other of [importHaproxy, importIngressNginx]) {
            const r = timed(() => other(text));
            expect(typeof r.value.ok).toBe('boolean');
            expect(r.ms).toBeLessThan(2000);
          }
          if (!envoy.value.ok) expect(envoy.value.errors.length).toBeLessThanOrEqual(50);
        },
      ),
      { numRuns: 40 },
    );
  }, 120_000);

  it('what passes the nesting check never overflows the YAML parser (property)', () => {
    const unit = fc.constantFrom(
      '[',
      ']',
      '{',
      '}',
      '- ',
      '? ',
      ': ',
      ',',
      '\n',
      ' ',
      'a',
      '"',
      "'",
      '#',
      '|\n',
      '\\',
    );
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 3000 }), (parts) => {
        const text = parts.join('');
        if (yamlDepthProblem(text) !== null) return;
        // Throws RangeError (stack) or dies of memory on deep nesting; must not for what passed.
        expect(() => parseDocument(text, { uniqueKeys: false })).not.toThrow();
      }),
      { numRuns: 200 },
    );
  }, 120_000);
});
