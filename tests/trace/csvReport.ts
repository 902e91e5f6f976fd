/**
 * The parse report of a clean CSV of `lines` requests (no malformed or out-of-order lines, times
 * from a timestamp column at 1 ms): what the tests that build a trace by hand hand to `holdTrace`.
 */
import type { BuiltTrace, ParseReport } from '../../src/trace';

export function csvReport(lines: number): ParseReport {
  return {
    format: 'csv',
    formatName: 'CSV',
    lines,
    malformed: 0,
    malformedFirst: [],
    outOfOrder: 0,
    maxBackstepMs: 0,
    resolutionMs: 1,
    timeSource: 'timestamp column',
    notes: [],
  };
}

/**
 * A built trace from rows (arrival epoch ms ascending, key, cost), keys numbered in order of first
 * request, every status 200; a new one each call.
 */
export function builtFromRows(rows: readonly [number, string, number][]): BuiltTrace {
  const keys: string[] = [];
  const keyId = rows.map(([, k]) => {
    if (!keys.includes(k)) keys.push(k);
    return keys.indexOf(k);
  });
  return {
    name: 't.log',
    count: rows.length,
    arrivalMs: Float64Array.from(rows.map((r) => r[0])),
    keyId: Uint32Array.from(keyId),
    keys,
    cost: Uint16Array.from(rows.map((r) => r[2])),
    status: new Uint16Array(rows.length).fill(200),
    keySpec: [{ kind: 'client' }],
    natHints: [],
    report: csvReport(rows.length),
  };
}
