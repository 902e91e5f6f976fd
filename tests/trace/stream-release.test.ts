/**
 * Memory a streaming read gives back as it goes: the sweep's cells read the compact copy into one
 * reused chunk buffer, a range reader frees the columns it outgrows, the pass gives each part's
 * columns back once merged for the next range to fill — every figure unchanged; the cut between
 * segments looks
 * at 64 kB first and only at the longest line allowed when that holds no newline.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  BlobSink,
  SWEEP_CHUNK,
  StreamPass,
  StreamSweepPass,
  TraceStream,
  belowP99OfCounts,
  nextLineStart,
  partColumns,
  rangeHead,
  releaseBuffers,
  streamRead,
  sweepRecorded,
} from '../../src/trace';
import type { PartColumns, RangeReader, StreamSource, TracePart } from '../../src/trace';
import type { AlgorithmConfig } from '../../src/core';

import { MAX_LINE_BYTES } from '../../src/trace/types';

const proto = ArrayBuffer.prototype as { transfer?: (n: number) => ArrayBuffer };
const native = proto.transfer;

// Node 20 has no ArrayBuffer.prototype.transfer (ES2024): detach the way structuredClone does.
beforeAll(() => {
  if (native === undefined) {
    proto.transfer = function (this: ArrayBuffer, n: number): ArrayBuffer {
      structuredClone(this, { transfer: [this] });
      return new ArrayBuffer(n);
    };
  }
});
afterAll(() => {
  if (native === undefined) delete proto.transfer;
});

function source(bytes: Uint8Array): StreamSource {
  const blob = new Blob([bytes as Uint8Array<ArrayBuffer>]);
  return {
    name: 'big.log',
    size: blob.size,
    slice: (a, b) => blob.slice(a, b),
    stream: () => blob.stream(),
  };
}

function log(n: number): string {
  const out: string[] = [];
  for (let i = 0; i < n; i += 1) {
    const ms = 1_767_571_200_000 + i * 37 - (i % 7 === 0 ? 900 : 0);
    out.push(
      `10.0.0.${i % 40} - - [05/Jan/2026:00:00:00 +0000] "GET /p HTTP/1.1" ${i % 13 === 0 ? 429 : 200} 1 "-" "UA" "-" 0.001 ${Math.floor(ms / 1000)}.${String(ms % 1000).padStart(3, '0')}`,
    );
  }
  return out.join('\n') + '\n';
}

describe('releaseBuffers', () => {
  it('detaches what it is given and leaves detached or empty buffers alone', () => {
    const a = new Float64Array(8);
    const empty = new ArrayBuffer(0);
    releaseBuffers(a.buffer, empty);
    expect(a.buffer.byteLength).toBe(0);
    expect(() => releaseBuffers(a.buffer)).not.toThrow();
  });
});

/** A recorded copy of a small log, and the key volumes the sweep's p99 rule needs. */
async function recordedCopy(lines: number) {
  const file = source(new TextEncoder().encode(log(lines)));
  const keySpec = [{ kind: 'client' as const }];
  const sink = new BlobSink();
  const pass = new StreamSweepPass(file.name, keySpec, [], 1000, () => 0, { sink });
  const r = await streamRead(
    file,
    pass,
    { keySpec },
    { parallel: 0, readRange: null, progress: () => {} },
  );
  const v = pass.keyVolumes();
  return {
    rec: { blob: sink.blob(), count: r.requests, keys: v.keys },
    below: belowP99OfCounts(Array.from(v.counts)),
  };
}

const sweepConfigs: AlgorithmConfig[] = [
  { kind: 'leaky-bucket', rate: 2, rateUnit: 'r/s', burst: 5, delay: 'nodelay' },
  { kind: 'gcra', count: 5, periodMs: 1000, burst: 3 },
];

describe('the sweep reads the copy as one stream into one reused chunk buffer', () => {
  it('pieces of any size, one buffer filled again and again: the same cells, no Blob read per chunk', async () => {
    const { rec, below } = await recordedCopy(SWEEP_CHUNK * 2 + 500);
    const want = await sweepRecorded(rec, sweepConfigs, 1000, below, null);
    expect(want.every((c) => c.ok)).toBe(true);
    // The page's reader: one buffer, overwritten after each piece (odd sizes cut chunks anywhere).
    let reads = 0;
    const piece = new Uint8Array(1001);
    const reuse = async (blob: Blob, onBytes: (b: Uint8Array) => void): Promise<void> => {
      reads += 1;
      const all = new Uint8Array(await new Response(blob.stream()).arrayBuffer());
      for (let at = 0; at < all.length; at += piece.length) {
        const n = Math.min(piece.length, all.length - at);
        piece.set(all.subarray(at, at + n));
        onBytes(piece.subarray(0, n));
        piece.fill(0xff);
      }
    };
    const arrayBuffer = vi.spyOn(Blob.prototype, 'arrayBuffer');
    const progress: number[] = [];
    try {
      const got = await sweepRecorded(
        rec,
        sweepConfigs,
        1000,
        below,
        null,
        (n) => progress.push(n),
        reuse,
      );
      expect(got).toEqual(want);
      // Before, every chunk was a Blob slice read whole into a buffer of its own.
      expect(arrayBuffer).not.toHaveBeenCalled();
    } finally {
      arrayBuffer.mockRestore();
    }
    expect(reads).toBe(1);
    expect(progress).toEqual([SWEEP_CHUNK, 2 * SWEEP_CHUNK, rec.count]);
  });

  it('a copy shorter than its count says which chunk it ends in', async () => {
    const { rec, below } = await recordedCopy(SWEEP_CHUNK + 10);
    const short = { ...rec, blob: rec.blob.slice(0, rec.blob.size - 8) };
    await expect(sweepRecorded(short, sweepConfigs, 1000, below, null)).rejects.toThrow(
      'The recorded requests end early (chunk 2 of 2).',
    );
  });
});

describe('a streamed read frees the arrays nothing reads again', () => {
  /** Counts detached buffers (transfer(0)) while `f` runs. */
  async function counting<T>(f: () => Promise<T> | T): Promise<{ value: T; detached: number }> {
    const detach = proto.transfer as (n: number) => ArrayBuffer;
    let detached = 0;
    proto.transfer = function (this: ArrayBuffer, n: number): ArrayBuffer {
      detached += 1;
      return detach.call(this, n);
    };
    try {
      return { value: await f(), detached };
    } finally {
      proto.transfer = detach;
    }
  }

  it('a reader growing its columns frees the ones it outgrew, and its part is whole', async () => {
    const bytes = new TextEncoder().encode(log(20_000));
    const opts = { name: 'big.log', keySpec: [{ kind: 'client' as const }] };
    const head = rangeHead(bytes.subarray(0, 64 * 1024), opts) as string;
    const read = (): TracePart => {
      const s = new TraceStream({ ...opts, detectFrom: head, rangeStart: 0 });
      s.push(bytes);
      return s.finishPart();
    };
    const plain = read();
    const { value: part, detached } = await counting(read);
    expect(part.count).toBe(20_000);
    expect(Array.from(part.arrivalMs)).toEqual(Array.from(plain.arrivalMs));
    expect(Array.from(part.line)).toEqual(Array.from(plain.line));
    // 4,096 → 8,192 → 16,384 → 32,768: three growths, five columns each.
    expect(detached).toBe(15);
  });

  it('each part is given back once merged, and ranges read into the columns given back', async () => {
    const bytes = new TextEncoder().encode(log(30_000));
    const file = source(bytes);
    const keySpec = [{ kind: 'client' as const }];
    const run = async (reuse: boolean) => {
      const spare: PartColumns[] = [];
      const given: TracePart[] = [];
      let filled = 0;
      const readRange: RangeReader = (start, end, options) => {
        const columns = reuse ? (spare.pop() ?? null) : null;
        const s = new TraceStream({ ...options, rangeStart: start, columns });
        s.push(bytes.subarray(start, end));
        const part = s.finishPart();
        if (columns !== null && part.arrivalMs.buffer === columns.arrivalMs.buffer) filled += 1;
        return Promise.resolve(part);
      };
      const result = await streamRead(
        file,
        new StreamPass(file.name, keySpec, sweepConfigs.slice(0, 1)),
        { keySpec },
        {
          parallel: 2,
          readRange,
          progress: () => {},
          segmentBytes: 256 * 1024,
          recycle: (part) => {
            given.push(part);
            const c = partColumns(part);
            if (c !== null) spare.push(c);
          },
        },
      );
      return { result, given: given.length, filled };
    };
    const plain = await run(false);
    const reused = await run(true);
    expect(plain.result.requests).toBe(30_000);
    // Every part comes back after it is merged; ranges after the first ones fill those columns.
    expect(plain.given).toBeGreaterThanOrEqual(5);
    expect(reused.given).toBe(plain.given);
    expect(reused.filled).toBeGreaterThanOrEqual(plain.given - 3);
    expect({ ...reused.result, report: null }).toEqual({ ...plain.result, report: null });
    expect(reused.result.report).toEqual(plain.result.report);
  });

  it('a reader given columns too short for its range grows them and reads it whole', () => {
    const bytes = new TextEncoder().encode(log(10_000));
    const opts = { name: 'big.log', keySpec: [{ kind: 'client' as const }] };
    const head = rangeHead(bytes.subarray(0, 64 * 1024), opts) as string;
    const plain = new TraceStream({ ...opts, detectFrom: head, rangeStart: 0 });
    plain.push(bytes);
    const want = plain.finishPart();
    const small: PartColumns = {
      arrivalMs: new Float64Array(100),
      keyId: new Uint32Array(100),
      cost: new Uint16Array(100),
      status: new Uint16Array(100),
      line: new Float64Array(100),
    };
    const s = new TraceStream({ ...opts, detectFrom: head, rangeStart: 0, columns: small });
    s.push(bytes);
    const got = s.finishPart();
    expect(got.count).toBe(10_000);
    expect(Array.from(got.arrivalMs)).toEqual(Array.from(want.arrivalMs));
    expect(Array.from(got.keyId)).toEqual(Array.from(want.keyId));
    expect(Array.from(got.line)).toEqual(Array.from(want.line));
  });
});

describe('nextLineStart', () => {
  const line = (n: number): string => 'x'.repeat(n - 1) + '\n';
  it('finds the end of a line longer than the first look (100 kB)', async () => {
    const text = line(10) + line(100_000) + line(10);
    expect(await nextLineStart(source(new TextEncoder().encode(text)), 10)).toBe(100_010);
  });
  it('cuts after the longest line allowed when no newline comes within it', async () => {
    const text = line(10) + line(MAX_LINE_BYTES + 500) + line(10);
    const at = await nextLineStart(source(new TextEncoder().encode(text)), 10);
    expect(at).toBe(10 + MAX_LINE_BYTES + 1);
  });
  it('ends at the file’s end when the last line has no newline', async () => {
    const text = line(10) + 'y'.repeat(300);
    expect(await nextLineStart(source(new TextEncoder().encode(text)), 10)).toBe(310);
  });
});
