/**
 * The held read's pieces one at a time in Node, for instruction counts under
 * `valgrind --tool=callgrind` (wall times on a shared machine are not figures), and a checksum of
 * everything the page is given, to show a change leaves every parsed value as it was.
 *
 *   npx esbuild tests/bench/ingestInstructions.ts --bundle --platform=node --format=esm \
 *     --outfile=/tmp/ii.mjs
 *   valgrind --tool=callgrind --smc-check=all-non-file node /tmp/ii.mjs MODE FILE [PARTS]
 *
 * MODE: `read` (the file's bytes only: the baseline every other mode includes), `node` (one
 * TraceStream over the file, as the bench's Node one-thread figure), `parts` (the file cut into
 * PARTS ranges at line ends, 2 by default, each read by a TraceStream as a range worker reads it),
 * `merge` (parts, then merged as the parsing worker merges them), `hold` (merge, then holdTrace),
 * `sum` (hold, then prints the checksum), `nodesum` (node, then hold and the checksum). A piece's cost is its mode's count less the one before.
 */
import { closeSync, openSync, readSync, fstatSync } from 'node:fs';
import { TraceStream } from '../../src/trace/parse';
import type { ParseOptions } from '../../src/trace/parse';
import { readHeldInRanges } from '../../src/trace/heldRanges';
import { holdTrace } from '../../src/trace/held';
import type { BuiltTrace, TracePart } from '../../src/trace/builder';
import { HEAD_BYTES, rangeHead } from '../../src/trace/streamRead';

const [mode = 'sum', path = '', partsArg = '2'] = process.argv.slice(2);
const PIECE = 1 << 20;

function readRange(fd: number, start: number, end: number, each: (b: Uint8Array) => void): void {
  const buf = new Uint8Array(PIECE);
  for (let at = start; at < end;) {
    const n = readSync(fd, buf, 0, Math.min(PIECE, end - at), at);
    if (n === 0) break;
    at += n;
    each(buf.subarray(0, n));
  }
}

/** FNV-1a over 32-bit words. */
class Sum {
  h = 0x811c9dc5;
  word(w: number): void {
    this.h = Math.imul(this.h ^ (w | 0), 0x01000193);
  }
  num(x: number): void {
    const f = new Float64Array([x]);
    const u = new Uint32Array(f.buffer);
    this.word(u[0] as number);
    this.word(u[1] as number);
  }
  text(s: string): void {
    this.word(s.length);
    for (let i = 0; i < s.length; i += 1) this.word(s.charCodeAt(i));
  }
}

async function main(): Promise<void> {
  const fd = openSync(path, 'r');
  const size = fstatSync(fd).size;
  if (mode === 'read') {
    let bytes = 0;
    readRange(fd, 0, size, (b) => (bytes += b.length));
    console.log('read', bytes);
    return;
  }
  const opts: ParseOptions = { name: 'bench.log' };
  if (mode === 'node' || mode === 'nodesum') {
    const s = new TraceStream(opts);
    readRange(fd, 0, size, (b) => s.push(b));
    const whole = s.finish();
    if (mode === 'node') console.log('node', whole.count);
    else printSum('nodesum', whole);
    return;
  }
  const head = new Uint8Array(Math.min(size, HEAD_BYTES));
  readSync(fd, head, 0, head.length, 0);
  const text = rangeHead(head, opts);
  if (text === null) throw new Error('not a line log read in ranges');
  const parts: TracePart[] = [];
  const file = {
    name: 'bench.log',
    size,
    slice(start = 0, end = size): Blob {
      const b = new Uint8Array(Math.max(0, Math.min(end, size) - start));
      readSync(fd, b, 0, b.length, start);
      return new Blob([b]);
    },
    stream(): ReadableStream<Uint8Array> {
      throw new Error('not used');
    },
  };
  const n = Math.max(1, Number(partsArg));
  // Each range read first (as the range workers do, before the merge takes them), then merged.
  const ranges: [number, number][] = [];
  const built = await readHeldInRanges(
    file,
    { ...opts, detectFrom: text },
    {
      parallel: n,
      readRange: (start, end, o) => {
        ranges.push([start, end]);
        const s = new TraceStream({ ...o, rangeStart: start, rangeBytes: end - start });
        readRange(fd, start, end, (b) => s.push(b));
        const part = s.finishPart();
        parts.push(part);
        // `parts`: every range is asked for before the first is awaited; none is merged.
        return mode === 'parts' ? Promise.reject(new Error('parts only')) : Promise.resolve(part);
      },
    },
  ).catch((e: Error) => {
    if (e.message === 'parts only') return null;
    throw e;
  });
  if (built === null) {
    console.log('parts', parts.map((p) => p.count).join(' '));
    return;
  }
  if (mode === 'merge') {
    console.log('merge', built.count);
    return;
  }
  if (mode === 'hold') {
    console.log('hold', holdTrace(built).held.count);
    return;
  }
  printSum('sum', built);
  closeSync(fd);
}

/** The checksum of everything the page is given for `built` (holdTrace's result). */
function printSum(label: string, built: BuiltTrace): void {
  const { held, replay } = holdTrace(built);
  const sum = new Sum();
  sum.word(held.count);
  sum.num(held.baseMs);
  for (let i = 0; i < held.count; i += 1) {
    sum.num(held.times[i] as number);
    sum.word(held.keyId[i] as number);
    sum.word(held.status[i] as number);
    sum.word(held.cost === null ? 1 : (held.cost[i] as number));
  }
  for (const k of held.keys) sum.text(k);
  const rest = { ...held, times: null, keyId: null, status: null, cost: null, keys: null };
  sum.text(JSON.stringify(rest));
  sum.text(JSON.stringify(replay));
  console.log(label, held.count, held.keys.length, (sum.h >>> 0).toString(16));
}

void main();
