/**
 * What the streamed-vs-held empty-key tests share: a JSON-lines log keyed by `user` whose lines
 * mix keyed requests, empty-key requests with an address and ones with neither; the file as a
 * stream source; the two ways a streaming pass reads it (one stream, five segments two at once,
 * counting the ranges really read); the sweep's grid around a config and the held sweep's cells
 * over a key column; and a held dry run named as the stream's figures name it.
 */
import type { AlgorithmConfig } from '../../src/core';
import { TraceStream, dryRun, fastSweepCell, prepareSweep, sweepPlan } from '../../src/trace';
import type { HeldTrace, RangeReader, Replay, StreamSource } from '../../src/trace';

export const T0 = 1_767_571_200_000;

/**
 * `n` JSON lines a few ms apart (seeded): most name one of five users; every 4th names none but
 * has one of `addresses`; every 9th has neither. About one in thirteen is recorded as 429.
 */
export function emptyKeyJsonLog(n: number, seed: number, addresses: readonly string[]): string {
  const users = ['alice', 'bob', 'carol', 'dave', 'erin'];
  const out: string[] = [];
  let ms = T0;
  let x = seed;
  for (let i = 0; i < n; i += 1) {
    x = (x * 1_103_515_245 + 12_345) % 2 ** 31;
    const r = Math.floor(x / 65_536);
    ms += r % 11 === 0 ? 400 : r % 6;
    const time = new Date(ms).toISOString();
    const status = r % 13 === 0 ? 429 : 200;
    if (i % 9 === 0) {
      out.push(JSON.stringify({ time, ip: '', user: '', status }));
    } else if (i % 4 === 0) {
      out.push(JSON.stringify({ time, ip: addresses[r % addresses.length], user: '', status }));
    } else {
      out.push(JSON.stringify({ time, ip: '192.0.2.9', user: users[r % users.length], status }));
    }
  }
  return out.join('\n') + '\n';
}

/** The bytes as the file a streaming pass reads (`big.jsonl`). */
export function streamSource(bytes: Uint8Array<ArrayBuffer>): StreamSource {
  const blob = new Blob([bytes]);
  return {
    name: 'big.jsonl',
    size: blob.size,
    slice: (a, b) => blob.slice(a, b),
    stream: () => blob.stream(),
  };
}

/**
 * The two read modes of a streaming pass over `bytes`, and how many ranges the segmented one has
 * read so far (it must really read in ranges: a test checks five per pass). The range reader runs
 * in this thread, as traceRange.worker.ts reads a range.
 */
export function readModes(bytes: Uint8Array<ArrayBuffer>) {
  let ranges = 0;
  const file = streamSource(bytes);
  const readRange: RangeReader = async (start, end, options) => {
    ranges += 1;
    const s = new TraceStream({ ...options, rangeStart: start });
    s.push(new Uint8Array(await file.slice(start, end).arrayBuffer()));
    return s.finishPart();
  };
  const modes = [
    ['one stream', { parallel: 0, readRange: null, progress: () => {} }],
    [
      '5 segments, 2 at once',
      { parallel: 2, readRange, progress: () => {}, segmentBytes: Math.ceil(bytes.length / 5) },
    ],
  ] as const;
  return { modes, rangesRead: () => ranges };
}

/** The sweep's configs around `config`, `steps` values a side, row by row. */
export function sweepGrid(config: AlgorithmConfig, steps: number): AlgorithmConfig[] {
  const plan = sweepPlan(config, steps);
  if (plan === null) throw new Error(`no sweep around ${config.kind}`);
  const out: AlgorithmConfig[] = [];
  for (let x = 0; x < plan.x.values.length; x += 1)
    for (let y = 0; y < plan.y.values.length; y += 1) out.push(plan.configAt(x, y));
  return out;
}

/**
 * The held sweep's cells (1 s windows) of `configs` over the held trace's times and the key column
 * `keyId`/`keys` (the held one, or Kong's moved by address), the empty key `emptyKey` admitted or
 * rejected without the limiter when given, windows on the clock from the first request's epoch ms:
 * what a streamed sweep's cells must equal.
 */
export function heldSweepCells(
  held: HeldTrace,
  configs: readonly AlgorithmConfig[],
  keyId: Uint32Array = held.keyId,
  keys: string[] = held.keys,
  emptyKey: { id: number; outcome: 'admit' | 'reject' } | null = null,
) {
  const prep = prepareSweep({
    timeMs: held.times as Int32Array,
    keyId,
    keyCount: keys.length,
    keys,
    emptyKey,
    // Time 0 stands for the first request's epoch ms: windows on the clock, as the page's sweep.
    originMs: held.baseMs,
  });
  return configs.map((c) => ({ ok: true, result: fastSweepCell(prep, c, 1000) }));
}

/** A replay's and its dry run's figures, as a streaming pass's `decisions` names them. */
export function decisionFigures(
  r: Pick<Replay, 'admitted' | 'delayed' | 'rejected'>,
  d: { toRejected: number; toAllowed: number; toDelayed: number },
) {
  return {
    admitted: r.admitted,
    delayed: r.delayed,
    rejected: r.rejected,
    toRejected: d.toRejected,
    toAllowed: d.toAllowed,
    toDelayed: d.toDelayed,
  };
}

/**
 * A held replay's dry run and rejections per key of the held trace's own key column (the
 * statistics' rows), as the streamed figures give them; `keyId`/`keys` are the column the replay
 * decided over (the held one, or Kong's moved by address).
 */
export function heldFigures(
  held: HeldTrace,
  r: Replay,
  keyId: Uint32Array = held.keyId,
  keys: string[] = held.keys,
) {
  const d = dryRun({ ...held, keyId, keys }, r, 'recorded');
  const rejected = new Map<string, number>();
  for (let i = 0; i < held.count; i += 1) {
    if (r.outcome[i] !== 2) continue;
    const k = held.keys[held.keyId[i] as number] as string;
    rejected.set(k, (rejected.get(k) ?? 0) + 1);
  }
  return { decisions: decisionFigures(r, d), rejected };
}

/** The epoch ms a statistics pass's compact copy counts its times from (throws without a copy). */
export function recordedOrigin(pass: {
  recorded(): { ok: true; originMs: number } | { ok: false; message: string };
}): number {
  const r = pass.recorded();
  if (!r.ok) throw new Error(r.message);
  return r.originMs;
}
