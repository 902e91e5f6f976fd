/**
 * The query's output beside the page's own dry run of the same log: per key (requests, outcomes,
 * changes) or per request (time, outcome, delay, change, in order within each key). Pure: the page
 * runs it in a worker. A row for a key the loaded log does not have refuses the whole output.
 */
import { plural, quoteText } from '../../core';
import type { Outcome, PerKeyRow, PerRequestRow, Readback } from './readback';

/** The page's side: the loaded log and its replay (src/trace/replay.ts codes: 0, 1, 2). */
export interface PageRun {
  keys: readonly string[];
  keyId: Uint32Array;
  /** Whole ms since the first request. */
  times: Int32Array;
  /** Epoch ms of the first request. */
  baseMs: number;
  status: Uint16Array;
  outcome: Uint8Array;
  delayMs: Uint32Array;
  baseline: 'recorded' | 'no-limit';
}

export type Counts = Omit<PerKeyRow, 'key'>;

export interface KeyComparison {
  key: string;
  query: Counts;
  page: Counts;
  same: boolean;
}

export type Comparison =
  | {
      ok: true;
      kind: 'per-key' | 'per-request';
      /** Every key of the output, disagreeing ones first. */
      keys: KeyComparison[];
      agree: number;
      differ: number;
      /** Per request: requests compared, how many differ, and the first differences in words. */
      requests: number;
      requestsDiffer: number;
      first: string[];
    }
  | { ok: false; message: string; problems: string[] };

const COUNT_FIELDS = [
  'requests',
  'admitted',
  'delayed',
  'rejected',
  'to_rejected',
  'to_allowed',
  'to_delayed',
] as const;
const OUTCOME: readonly Outcome[] = ['admit', 'delay', 'reject'];

const zero = (): Counts => ({
  requests: 0,
  admitted: 0,
  delayed: 0,
  rejected: 0,
  to_rejected: 0,
  to_allowed: 0,
  to_delayed: 0,
});

/** The change of request i against the baseline, as src/trace/dryrun.ts decides it. */
function changeOf(run: PageRun, i: number): PerRequestRow['change'] {
  const s = run.status[i] as number;
  const was = run.baseline === 'recorded' && (s === 429 || s === 503);
  const o = run.outcome[i] as number;
  if (!was && o === 2) return 'to_rejected';
  if (was && o !== 2) return 'to_allowed';
  if (!was && o === 1) return 'to_delayed';
  return 'same';
}

function tally(c: Counts, o: number, change: PerRequestRow['change']): void {
  c.requests += 1;
  if (o === 0) c.admitted += 1;
  else if (o === 1) c.delayed += 1;
  else c.rejected += 1;
  if (change !== 'same') c[change] += 1;
}

/** Compares an output read back with the page's run of the loaded log. */
export function compareOutput(back: Extract<Readback, { ok: true }>, run: PageRun): Comparison {
  const ids = new Map<string, number>();
  run.keys.forEach((k, i) => ids.set(k, i));
  const unknown: string[] = [];
  let unknownCount = 0;
  back.rows.forEach((r, i) => {
    if (!ids.has(r.key)) {
      unknownCount += 1;
      if (unknown.length < 8) unknown.push(`row ${i + 2}: key ${quoteText(r.key)}`);
    }
  });
  if (unknownCount > 0) {
    return {
      ok: false,
      message: `${unknownCount.toLocaleString('en-US')} ${unknownCount === 1 ? 'row is' : 'rows are'} for keys the loaded log does not have (another log, another key, or another span?); nothing was compared.`,
      problems: unknown,
    };
  }
  // The page's counts for the output's keys, and per request the indices of those keys' requests.
  const wanted = new Set(back.rows.map((r) => ids.get(r.key) as number));
  const page = new Map<number, Counts>();
  const indices = new Map<number, number[]>();
  for (const k of wanted) {
    page.set(k, zero());
    if (back.kind === 'per-request') indices.set(k, []);
  }
  const n = run.keyId.length;
  for (let i = 0; i < n; i += 1) {
    const k = run.keyId[i] as number;
    const c = page.get(k);
    if (c === undefined) continue;
    tally(c, run.outcome[i] as number, changeOf(run, i));
    indices.get(k)?.push(i);
  }
  const keys: KeyComparison[] = [];
  let requests = 0;
  let requestsDiffer = 0;
  const first: string[] = [];
  if (back.kind === 'per-key') {
    for (const r of back.rows) {
      const { key, ...query } = r;
      const p = page.get(ids.get(key) as number) as Counts;
      keys.push({ key, query, page: p, same: COUNT_FIELDS.every((f) => query[f] === p[f]) });
    }
  } else {
    const byKey = new Map<string, PerRequestRow[]>();
    for (const r of back.rows) {
      const l = byKey.get(r.key);
      if (l === undefined) byKey.set(r.key, [r]);
      else l.push(r);
    }
    // Times are ms since the first request or since 1970: take the one the first row matches.
    const firstRow = back.rows[0] as PerRequestRow;
    const firstIdx = (indices.get(ids.get(firstRow.key) as number) as number[])[0] ?? 0;
    const shift = firstRow.time_ms === (run.times[firstIdx] as number) ? 0 : run.baseMs;
    for (const [key, rows] of byKey) {
      const id = ids.get(key) as number;
      const idx = indices.get(id) as number[];
      const query = zero();
      for (const r of rows) tally(query, OUTCOME.indexOf(r.outcome), r.change);
      const p = page.get(id) as Counts;
      const m = Math.max(rows.length, idx.length);
      for (let j = 0; j < m; j += 1) {
        requests += 1;
        const r = rows[j];
        const i = idx[j];
        let why: string | null = null;
        if (r === undefined || i === undefined) {
          why = `the query has ${plural(rows.length, 'request')}, the page ${idx.length}`;
        } else {
          const t = (run.times[i] as number) + shift;
          const o = OUTCOME[run.outcome[i] as number] as Outcome;
          const d = run.delayMs[i] as number;
          if (r.time_ms !== t) why = `time ${r.time_ms} ms, the page's ${t} ms`;
          else if (r.outcome !== o) why = `${r.outcome}, the page ${o}`;
          else if (r.delay_ms !== d) why = `delay ${r.delay_ms} ms, the page's ${d} ms`;
          else if (r.change !== changeOf(run, i)) why = `${r.change}, the page ${changeOf(run, i)}`;
        }
        if (why !== null) {
          requestsDiffer += 1;
          if (first.length < 8) first.push(`key ${quoteText(key)}, request ${j + 1}: ${why}`);
        }
      }
      keys.push({ key, query, page: p, same: COUNT_FIELDS.every((f) => query[f] === p[f]) });
    }
  }
  keys.sort((a, b) => Number(a.same) - Number(b.same));
  const differ = keys.filter((k) => !k.same).length;
  return {
    ok: true,
    kind: back.kind,
    keys,
    agree: keys.length - differ,
    differ,
    requests,
    requestsDiffer,
    first,
  };
}
