/**
 * The parse report of a clean CSV of `lines` requests (no malformed or out-of-order lines, times
 * from a timestamp column at 1 ms): what the tests that build a trace by hand hand to `holdTrace`.
 */
import type { ParseReport } from '../../src/trace';

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
