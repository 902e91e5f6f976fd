/**
 * A streaming pass (src/trace/stream.ts, streamRead.ts) over a log gives the figures a held trace
 * gives — requests, keys, busiest keys, each limiter's decisions and flips against the recorded
 * statuses — read as one stream, gzip (one or several members) or in segments; and bad input gets
 * a message naming what and where, never a figure shown as exact that is not.
 */
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  StreamPass,
  TraceStream,
  dryRun,
  parseTrace,
  replayTrace,
  streamRead,
  streamsFromStart,
  topKeys,
} from '../../src/trace';
import type { RangeReader, StreamResult, StreamSource } from '../../src/trace';
import type { AlgorithmConfig } from '../../src/core';
import { decisionFigures } from './emptyKeyStream';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

/** A combined-like log ($msec at the end): `n` requests over 40 keys, a few lines a little late. */
function log(n: number, lateEvery = 0, lateMs = 0, stepMs = 37): string {
  const out: string[] = [];
  for (let i = 0; i < n; i += 1) {
    let ms = 1_767_571_200_000 + i * stepMs - (i % 7 === 0 ? 900 : 0);
    if (lateEvery > 0 && i % lateEvery === lateEvery - 1) ms -= lateMs;
    const key = i % 5 === 0 ? 0 : i % 40;
    if (i % 211 === 0) out.push(`garbage ${i}`);
    out.push(
      `10.0.0.${key} - - [05/Jan/2026:00:00:00 +0000] "GET /p${i % 3} HTTP/1.1" ${i % 13 === 0 ? 429 : 200} 1 "-" "UA${i % 23}" "-" 0.001 ${Math.floor(ms / 1000)}.${String(ms % 1000).padStart(3, '0')}`,
    );
  }
  return out.join('\n') + '\n';
}

const CONFIGS: AlgorithmConfig[] = [
  { kind: 'leaky-bucket', rate: 2, rateUnit: 'r/s', burst: 5, delay: 'nodelay' },
  { kind: 'token-bucket', maxTokens: 4, tokensPerFill: 2, fillIntervalMs: 1000, maxDelayMs: 300 },
  { kind: 'sliding-window-counter', limit: 20, windowMs: 1000 },
];

function source(bytes: Uint8Array, name = 'big.log'): StreamSource {
  const blob = new Blob([bytes as Uint8Array<ArrayBuffer>]);
  return {
    name,
    size: blob.size,
    slice: (a, b) => blob.slice(a, b),
    stream: () => blob.stream(),
  };
}

/** A range reader in this thread, as traceRange.worker.ts reads a range. */
function rangeReader(file: StreamSource): RangeReader {
  return async (start, end, options) => {
    const s = new TraceStream({ ...options, rangeStart: start });
    s.push(new Uint8Array(await file.slice(start, end).arrayBuffer()));
    return s.finishPart();
  };
}

/**
 * Reads a file as the page's BYOB reader does: every piece lands in the same buffer, which is
 * overwritten once the piece was handed on — anything kept by reference and not copied reads
 * garbage. Pieces of 7 and 4,099 bytes in turn cut lines, gzip headers (10 bytes) and blocks.
 */
async function reusedBuffer(
  file: StreamSource,
  onBytes: (bytes: Uint8Array) => void,
): Promise<void> {
  const all = new Uint8Array(await file.slice(0, file.size).arrayBuffer());
  const buffer = new Uint8Array(4099);
  for (let at = 0, i = 0; at < all.length; i += 1) {
    const n = Math.min(i % 2 === 0 ? 7 : buffer.length, all.length - at);
    buffer.set(all.subarray(at, at + n));
    onBytes(buffer.subarray(0, n));
    buffer.fill(0x55);
    at += n;
  }
}

async function stream(
  bytes: Uint8Array,
  opts: { name?: string; segments?: number; configs?: AlgorithmConfig[]; reuse?: boolean } = {},
): Promise<StreamResult> {
  const file = source(bytes, opts.name);
  const pass = new StreamPass(file.name, [{ kind: 'client' }], opts.configs ?? CONFIGS);
  const seg = opts.segments;
  return streamRead(
    file,
    pass,
    { keySpec: [{ kind: 'client' }] },
    {
      parallel: seg === undefined ? 0 : 2,
      readRange: seg === undefined ? null : rangeReader(file),
      progress: () => {},
      ...(seg !== undefined ? { segmentBytes: Math.ceil(bytes.length / seg) } : {}),
      ...(opts.reuse === true ? { readAll: reusedBuffer } : {}),
    },
  );
}

function held(bytes: Uint8Array) {
  const trace = parseTrace(bytes, { name: 'big.log', keySpec: [{ kind: 'client' }] });
  const decisions = CONFIGS.map((c) => {
    const r = replayTrace(trace, c);
    return decisionFigures(r, dryRun(trace, r, 'recorded'));
  });
  return { trace, decisions };
}

describe('a streaming pass gives the held trace’s figures', () => {
  const bytes = enc(log(20_000));
  const h = held(bytes);

  it.each([
    ['one stream', {}],
    ['7 segments, 2 readers at once', { segments: 7 }],
    ['gzip', { gzip: true }],
    ['gzip of three members', { members: 3 }],
    ['one stream through a reused buffer', { reuse: true }],
    ['gzip through a reused buffer', { gzip: true, reuse: true }],
    ['gzip of three members through a reused buffer', { members: 3, reuse: true }],
  ])(
    '%s',
    async (
      _name,
      how: { segments?: number; gzip?: boolean; members?: number; reuse?: boolean },
    ) => {
      let input = bytes;
      if (how.gzip === true) input = new Uint8Array(gzipSync(bytes));
      if (how.members !== undefined) {
        const third = Math.floor(bytes.length / 3);
        input = new Uint8Array(
          Buffer.concat([
            gzipSync(bytes.subarray(0, third)),
            gzipSync(bytes.subarray(third, 2 * third)),
            gzipSync(bytes.subarray(2 * third)),
          ]),
        );
      }
      const r = await stream(input, {
        ...(how.segments !== undefined ? { segments: how.segments } : {}),
        ...(how.reuse === true ? { reuse: true } : {}),
      });
      expect(r.requests).toBe(h.trace.count);
      expect(r.keys).toBe(h.trace.keys.length);
      expect(r.exact).toBe(true);
      expect(r.report.malformed).toBe(h.trace.report.malformed);
      expect(r.report.malformedFirst).toEqual(h.trace.report.malformedFirst);
      expect(r.report.outOfOrder).toBe(h.trace.report.outOfOrder);
      expect(r.decisions).toEqual(h.decisions);
      expect(r.top.map((k) => [k.key, k.requests])).toEqual(
        topKeys(h.trace, 10).map((k) => [k.key, k.requests]),
      );
      expect(r.firstMs).toBe(h.trace.arrivalMs[0]);
      expect(r.lastMs).toBe(h.trace.arrivalMs[h.trace.count - 1]);
      let binned = 0;
      for (const c of r.overview.requests) binned += c;
      expect(binned).toBe(h.trace.count);
      let rejectedBinned = 0;
      for (const c of r.overview.rejected) rejectedBinned += c;
      expect(rejectedBinned).toBe(h.decisions[0]?.rejected);
    },
  );

  it('the first limiter’s rejections per key add up to its total', async () => {
    const r = await stream(bytes);
    expect(r.topRejected.length).toBeGreaterThan(0);
    // Key 10.0.0.0 takes a fifth of the traffic (about 5 a second): 2 r/s rejects most of it.
    expect(r.topRejected[0]?.key).toBe('10.0.0.0');
    expect(r.topRejected[0]?.peakPerSecond).toBeGreaterThan(5);
  });
});

describe('bad input while streaming', () => {
  it.each([
    ['one stream', undefined],
    ['4 segments', 4],
  ])(
    'lines further back than the reorder window: counted, named, and the result is not exact (%s)',
    async (_how, segments) => {
      // 20 requests a second for 10,000 s; every 20,000th line is 20 minutes late.
      const bytes = enc(log(200_000, 20_000, 20 * 60_000, 50));
      const h = parseTrace(bytes, { name: 'big.log', keySpec: [{ kind: 'client' }] });
      const late = h.report.outsideWindow ?? 0;
      expect(late).toBeGreaterThan(5);
      const r = await stream(bytes, {
        configs: CONFIGS.slice(0, 1),
        ...(segments === undefined ? {} : { segments }),
      });
      expect(r.requests).toBe(h.count);
      expect(r.outsideWindow).toBe(late);
      expect(r.exact).toBe(false);
      expect(r.report.outsideWindow).toBe(late);
      expect(r.report.firstOutsideLine).toBe(h.report.firstOutsideLine);
      expect(r.report.notes.join(' ')).toContain(
        `${late} requests were further back than the 5-minute reorder window (the first at line ${(h.report.firstOutsideLine ?? 0).toLocaleString('en-US')}`,
      );
      expect(r.report.notes.join(' ')).toContain('figures that depend on order are not exact');
    },
  );

  it.each([
    ['one stream', undefined],
    ['3 segments', 3],
  ])(
    'a log that ends mid-line: the cut line is read as what it is (here malformed), counted (%s)',
    async (_how, segments) => {
      const text = log(1000);
      const cut = text.slice(0, text.length - 40);
      const r = await stream(enc(cut), segments === undefined ? {} : { segments });
      expect(r.requests + r.report.malformed).toBe(1000 + 5);
      expect(r.report.malformedFirst.at(-1)?.line).toBe(1005);
    },
  );

  it('a gzip that ends mid-member is refused, naming where; no figures', async () => {
    const gz = new Uint8Array(gzipSync(enc(log(5000))));
    const cut = gz.subarray(0, Math.floor(gz.length * 0.6));
    await expect(stream(cut, { name: 'cut.log.gz' })).rejects.toThrow(
      /"cut\.log\.gz" is not valid gzip \(.*\) at line [\d,]+, [\d,]+ kB into the file \([\d,]+ kB of text\): nothing was loaded/,
    );
  });

  it('a 20 GB file of NUL bytes is read as a stream (not refused for its size) and refused for what it holds, at once', async () => {
    const size = 20 * 1024 ** 3;
    expect(streamsFromStart(size)).toBe(true);
    let served = 0;
    const zeros = new Uint8Array(1 << 20);
    const file: StreamSource = {
      name: 'sparse.log',
      size,
      slice: (a = 0, b = size) => new Blob([zeros.subarray(0, Math.min(b - a, zeros.length))]),
      stream: () =>
        new ReadableStream<Uint8Array>({
          pull(c) {
            served += zeros.length;
            if (served > size) c.close();
            else c.enqueue(zeros.slice());
          },
        }),
    };
    const pass = new StreamPass(file.name, [{ kind: 'client' }], CONFIGS);
    await expect(
      streamRead(file, pass, {}, { parallel: 0, readRange: null, progress: () => {} }),
    ).rejects.toThrow(/"sparse\.log" looks binary \(NUL byte at offset 0\)/);
    // Refused from the first chunk, not after reading 20 GB.
    expect(served).toBeLessThanOrEqual(4 * zeros.length);
  });

  it('an invalid limiter is refused before anything is read, naming the field', () => {
    expect(
      () =>
        new StreamPass(
          'x',
          [{ kind: 'client' }],
          [{ kind: 'fixed-window', limit: 0, windowMs: 1 }],
        ),
    ).toThrow(/limit/);
  });
});
