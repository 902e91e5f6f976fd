/**
 * A trace as a compact file: gzip-compressed CSV with one row per request —
 * `arrival_ms` (whole epoch ms), `client` (the request's key as chosen), `status`, `cost` — which
 * this page's own CSV reader reads back into the same replay: the same keys (keyed by client
 * address, the default), the same whole-ms virtual times, so the same fingerprint. Arrivals are
 * written as ⌊arrival⌋, the whole ms the replay uses (virtualTimes: ⌊arrival⌋ − ⌊first⌋);
 * sub-millisecond parts, which no replay sees, are dropped. Typically a few bytes a request after compression.
 */
import { gzipSync } from 'fflate';
import { csvField } from './csv';
import type { Trace } from './types';

/** The compact file's header; a CSV with exactly this header is read as one (`COMPACT_HEADER`). */
export const COMPACT_COLUMNS = ['arrival_ms', 'client', 'status', 'cost'] as const;

/** The CSV text (header and one row per request, in time order). */
export function traceCsv(
  trace: Pick<Trace, 'count' | 'arrivalMs' | 'keyId' | 'keys' | 'status' | 'cost'>,
): string {
  const rows: string[] = [COMPACT_COLUMNS.join(',')];
  // The page's one CSV writer: a key a spreadsheet would run as a formula is neutralised, in a way
  // this page's reader undoes for a compact file (delimited.ts), so the keys come back unchanged.
  const keys = trace.keys.map(csvField);
  for (let i = 0; i < trace.count; i += 1) {
    const at = Math.floor(trace.arrivalMs[i] as number);
    const status = trace.status[i] as number;
    rows.push(
      `${String(at)},${keys[trace.keyId[i] as number] as string},${status === 0 ? '' : String(status)},${String(trace.cost[i])}`,
    );
  }
  return rows.join('\n') + '\n';
}

/** The compact file's bytes: the CSV, gzip-compressed. */
export function compactTrace(
  trace: Pick<Trace, 'count' | 'arrivalMs' | 'keyId' | 'keys' | 'status' | 'cost'>,
): Uint8Array {
  return gzipSync(new TextEncoder().encode(traceCsv(trace)), { level: 6 });
}

/** The compact file's name for a trace read from `name`. */
export function compactName(name: string): string {
  const ext = /\.(gz|log|txt|csv|tsv|har|json|jsonl|trace)$/i;
  let base = name;
  while (ext.test(base)) base = base.replace(ext, '');
  return `${base || 'trace'}.trace.csv.gz`;
}
