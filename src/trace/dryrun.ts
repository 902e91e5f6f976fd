/**
 * A dry run: which requests would a candidate limiter treat differently from a baseline? The
 * baseline is either what the log recorded (a recorded 429 or 503 counts as rejected by a limit
 * already in place; every other status, or none, as allowed) or "no limit" (all allowed).
 */
import { csvField } from './csv';
import { DELAY, REJECT } from './replay';
import type { Replay } from './replay';
import type { Trace } from './types';

export type Baseline = 'recorded' | 'no-limit';

/** A change of fate. */
export type Flip = 'allowed→rejected' | 'rejected→allowed' | 'allowed→delayed';

export interface Change {
  /** Index in the trace (time order). */
  index: number;
  flip: Flip;
  /** For allowed→delayed: the wait, ms. */
  delayMs: number;
}

export interface KeyChanges {
  key: string;
  toRejected: number;
  toAllowed: number;
  toDelayed: number;
}

export interface DryRun {
  changes: Change[];
  toRejected: number;
  toAllowed: number;
  toDelayed: number;
  /** Per key, most changes first. */
  byKey: KeyChanges[];
}

/** The statuses a limit answers with: 429 (most systems) and 503 (nginx limit_req's default). */
export function recordedRejection(status: number): boolean {
  return status === 429 || status === 503;
}

export function dryRun(
  trace: Pick<Trace, 'count' | 'keyId' | 'keys' | 'status'>,
  candidate: Replay,
  baseline: Baseline,
): DryRun {
  const changes: Change[] = [];
  const per = new Map<number, KeyChanges>();
  let toRejected = 0;
  let toAllowed = 0;
  let toDelayed = 0;
  for (let i = 0; i < trace.count; i += 1) {
    const wasRejected = baseline === 'recorded' && recordedRejection(trace.status[i] as number);
    const o = candidate.outcome[i] as number;
    let flip: Flip | null = null;
    if (!wasRejected && o === REJECT) flip = 'allowed→rejected';
    else if (wasRejected && o !== REJECT) flip = 'rejected→allowed';
    else if (!wasRejected && o === DELAY) flip = 'allowed→delayed';
    if (flip === null) continue;
    const k = trace.keyId[i] as number;
    let kc = per.get(k);
    if (kc === undefined) {
      kc = { key: trace.keys[k] as string, toRejected: 0, toAllowed: 0, toDelayed: 0 };
      per.set(k, kc);
    }
    if (flip === 'allowed→rejected') {
      toRejected += 1;
      kc.toRejected += 1;
    } else if (flip === 'rejected→allowed') {
      toAllowed += 1;
      kc.toAllowed += 1;
    } else {
      toDelayed += 1;
      kc.toDelayed += 1;
    }
    changes.push({ index: i, flip, delayMs: o === DELAY ? (candidate.delayMs[i] as number) : 0 });
  }
  const byKey = [...per.values()].sort(
    (a, b) =>
      b.toRejected + b.toAllowed + b.toDelayed - (a.toRejected + a.toAllowed + a.toDelayed) ||
      (a.key < b.key ? -1 : a.key > b.key ? 1 : 0),
  );
  return { changes, toRejected, toAllowed, toDelayed, byKey };
}

/**
 * The changes as CSV: arrival (epoch ms), ms since the first request, key, change, delay, recorded
 * status. Keys are written by the page's one CSV writer: a key a spreadsheet would run as a
 * formula (`=HYPERLINK(…)`, `+cmd`, `@SUM(…)`) is neutralised.
 */
export function dryRunCsv(
  trace: Pick<Trace, 'arrivalMs' | 'keyId' | 'keys' | 'status' | 'count'>,
  run: DryRun,
): string {
  const t0 = trace.count > 0 ? (trace.arrivalMs[0] as number) : 0;
  const lines = ['arrival_ms,offset_ms,key,change,delay_ms,recorded_status'];
  for (const c of run.changes) {
    const a = trace.arrivalMs[c.index] as number;
    lines.push(
      [
        String(a),
        String(Math.floor(a - t0)),
        csvField(trace.keys[trace.keyId[c.index] as number] as string),
        c.flip,
        String(c.delayMs),
        String(trace.status[c.index] || ''),
      ].join(','),
    );
  }
  return lines.join('\n') + '\n';
}
