/**
 * The page's one CSV writer (src/trace/csv.ts): every text a spreadsheet would run as a formula is
 * written neutralised, the same way for every file, and the text comes back exactly.
 */
import fc from 'fast-check';
import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import { csvField, csvText } from '../../src/trace/csv';

/** The cells of one CSV line, as a spreadsheet's reader (papaparse) unquotes them. */
const cellsOf = (line: string): string[] =>
  Papa.parse<string[]>(line, { delimiter: ',' }).data[0] ?? [];

const HOSTILE = [
  '=HYPERLINK("http://x.test","y")',
  '+cmd|"/c calc"!A0',
  '-2+3',
  '@SUM(A1)',
  '\tx',
  '\rx',
];

describe('csvField', () => {
  it('neutralises every formula a spreadsheet would run, and csvText gives the text back', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.constantFrom(...HOSTILE),
          fc.string().map((s) => `'${s}`),
        ),
        fc.string(),
        (text, other) => {
          const [cell, next] = cellsOf(`${csvField(text)},${csvField(other)}`);
          expect(cell).toBeDefined();
          // No cell starts with a formula character once read.
          expect(cell ?? '').not.toMatch(/^[=+\-@\t\r]/);
          expect(csvText(cell ?? '')).toBe(text);
          expect(csvText(next ?? '')).toBe(other);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('writes the known hostile cells with a leading quote', () => {
    expect(HOSTILE.map(csvField)).toEqual([
      `"'=HYPERLINK(""http://x.test"",""y"")"`,
      `"'+cmd|""/c calc""!A0"`,
      "'-2+3",
      "'@SUM(A1)",
      "'\tx",
      `"'\rx"`,
    ]);
    expect(csvField(-5)).toBe('-5');
    expect(csvField("'quoted")).toBe("''quoted");
  });
});
