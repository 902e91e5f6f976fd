import fc from 'fast-check';
import { gunzipSync, strFromU8 } from 'fflate';
import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import { compactName, compactTrace, parseTrace, simTraceOf, virtualTimes } from '../../src/trace';

const T0 = 1_700_000_000_000;

describe('compact trace export', () => {
  it('re-imports to the same requests, keys and fingerprint', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.integer({ min: 0, max: 86_400_000 }),
            fc.integer({ min: 0, max: 999 }),
            fc.constantFrom(
              '10.0.0.1',
              'a,b',
              ' spaced ',
              'quote"d',
              '2001:db8::1',
              // Formulas a spreadsheet would run, and a key that starts with the guard itself.
              '=HYPERLINK("http://x.test","y")',
              '+cmd',
              '-1',
              '@SUM(A1)',
              "'quoted",
            ),
            fc.constantFrom(0, 200, 429, 503),
            fc.integer({ min: 1, max: 65_535 }),
          ),
          { minLength: 1, maxLength: 60 },
        ),
        (rows) => {
          const sorted = [...rows].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
          const keys: string[] = [];
          const trace = {
            count: sorted.length,
            // Sub-millisecond arrivals, as nginx's $msec − $request_time gives.
            arrivalMs: Float64Array.from(sorted.map((r) => T0 + r[0] + r[1] / 1000)),
            keyId: Uint32Array.from(
              sorted.map((r) => {
                if (!keys.includes(r[2])) keys.push(r[2]);
                return keys.indexOf(r[2]);
              }),
            ),
            keys,
            status: Uint16Array.from(sorted.map((r) => r[3])),
            cost: Uint16Array.from(sorted.map((r) => r[4])),
          };
          const file = compactTrace(trace);
          // No cell of the file is a formula: every key a spreadsheet would run starts with '.
          const cells = Papa.parse<string[]>(strFromU8(gunzipSync(file)), { delimiter: ',' }).data;
          for (const row of cells) expect(row[1] ?? '').not.toMatch(/^[=+\-@\t\r]/);
          const back = parseTrace(file, { name: 'x.trace.csv.gz' });
          expect(back.count).toBe(trace.count);
          expect(back.report.malformed).toBe(0);
          expect([...virtualTimes(back)]).toEqual([...virtualTimes(trace)]);
          expect([...back.status]).toEqual([...trace.status]);
          expect([...back.cost]).toEqual([...trace.cost]);
          expect(back.keys.map((k) => k)).toEqual(keys);
          expect(simTraceOf(back).hash).toBe(simTraceOf(trace).hash);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('is compact, and names its file', () => {
    const n = 20_000;
    const trace = {
      count: n,
      arrivalMs: Float64Array.from({ length: n }, (_, i) => T0 + i * 37),
      keyId: Uint32Array.from({ length: n }, (_, i) => i % 50),
      keys: Array.from({ length: 50 }, (_, i) => `192.0.2.${i}`),
      status: new Uint16Array(n).fill(200),
      cost: new Uint16Array(n).fill(1),
    };
    expect(compactTrace(trace).length / n).toBeLessThan(8);
    expect(compactName('access.log.gz')).toBe('access.trace.csv.gz');
  });
});
