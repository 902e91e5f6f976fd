/**
 * Memory a streaming read gives back as it goes: the sweep's cells free each chunk of the compact
 * copy once decided (its buffer detached), with cells unchanged; the cut between segments looks
 * at 64 kB first and only at the longest line allowed when that holds no newline.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BlobSink,
  SWEEP_CHUNK,
  StreamSweepPass,
  belowP99OfCounts,
  nextLineStart,
  releaseBuffers,
  streamRead,
  sweepRecorded,
} from '../../src/trace';
import type { StreamSource } from '../../src/trace';
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

describe('the sweep’s cells free each chunk of the copy once decided', () => {
  it('every chunk read from the copy is detached, and the cells are the same', async () => {
    const bytes = new TextEncoder().encode(log(SWEEP_CHUNK * 2 + 500));
    const file = source(bytes);
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
    const rec = { blob: sink.blob(), count: r.requests, keys: v.keys };
    const below = belowP99OfCounts(Array.from(v.counts));
    const configs: AlgorithmConfig[] = [
      { kind: 'leaky-bucket', rate: 2, rateUnit: 'r/s', burst: 5, delay: 'nodelay' },
      { kind: 'gcra', count: 5, periodMs: 1000, burst: 3 },
    ];
    const detach = proto.transfer as (n: number) => ArrayBuffer;
    delete proto.transfer;
    const want = await sweepRecorded(rec, configs, 1000, below, null);
    let released = 0;
    proto.transfer = function (this: ArrayBuffer, n: number): ArrayBuffer {
      released += 1;
      return detach.call(this, n);
    };
    try {
      const got = await sweepRecorded(rec, configs, 1000, below, null);
      expect(got).toEqual(want);
      expect(got.every((c) => c.ok)).toBe(true);
    } finally {
      proto.transfer = detach;
    }
    // One detach per chunk of SWEEP_CHUNK requests read from the copy.
    expect(released).toBe(Math.ceil(r.requests / SWEEP_CHUNK));
    expect(released).toBeGreaterThanOrEqual(3);
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
