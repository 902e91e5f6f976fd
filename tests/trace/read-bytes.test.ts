/**
 * A byte range read through one reused buffer (src/store/readBytes.ts, as the range workers read
 * a log) parses to the trace a stream of fresh pieces gives: the stream keeps no view of a piece
 * past its push (a line cut at a piece's end, a key, the first line are copies), so filling the
 * buffer again changes nothing. Read with a BYOB reader, and the default way where the stream has
 * none.
 */
import { describe, expect, it } from 'vitest';
import { readBytes } from '../../src/store/readBytes';
import { TraceStream, mergeParts, parseTrace, simTraceOf } from '../../src/trace';

function log(n: number): string {
  const out: string[] = [];
  for (let i = 0; i < n; i += 1) {
    const s = 1_767_571_200 + Math.floor(i / 10) - (i % 97 === 0 ? 30 : 0);
    if (i % 71 === 0) out.push(`garbage line ${i}`);
    out.push(
      `10.${i % 7}.${i % 5}.${i % 11} - - [05/Jan/2026:00:00:${String(i % 60).padStart(2, '0')} +0000] "GET /p${i % 3} HTTP/1.1" ${i % 13 === 0 ? 429 : 200} 1 "-" "UA${i % 23}" "-" 0.00${i % 10} ${s}.${String(i % 1000).padStart(3, '0')}`,
    );
  }
  return out.join('\n');
}

/** A Blob-like source of `bytes`: a byte stream (BYOB reads) or a default one, in pieces. */
function source(bytes: Uint8Array, byob: boolean): Pick<Blob, 'stream' | 'size'> {
  return {
    size: bytes.length,
    stream: () => {
      let at = 0;
      if (byob) {
        return new ReadableStream({
          type: 'bytes',
          pull(c) {
            const req = c.byobRequest;
            if (at >= bytes.length) {
              c.close();
              req?.respond(0);
              return;
            }
            const view = req?.view as Uint8Array;
            const n = Math.min(view.byteLength, bytes.length - at);
            view.set(bytes.subarray(at, at + n));
            at += n;
            req?.respond(n);
          },
        });
      }
      return new ReadableStream<Uint8Array<ArrayBuffer>>({
        pull(c) {
          if (at >= bytes.length) return c.close();
          c.enqueue(bytes.slice(at, at + 4_001));
          at += 4_001;
        },
      });
    },
  };
}

describe('a range read through one reused buffer', () => {
  for (const byob of [true, false]) {
    it(`parses as fresh pieces do (${byob ? 'BYOB reads' : 'default reads'})`, async () => {
      const bytes = new TextEncoder().encode(log(5_000));
      const whole = parseTrace(bytes, { name: 'p.log' });
      expect(whole.report.malformed).toBeGreaterThan(50);
      const head = new TextDecoder().decode(bytes.subarray(0, 128 * 1024));
      const opts = { name: 'p.log', detectFrom: head };
      const cut = bytes.indexOf(10, bytes.length >> 1) + 1;
      const parts = [];
      for (const [start, end] of [
        [0, cut],
        [cut, bytes.length],
      ] as const) {
        const s = new TraceStream({ ...opts, rangeStart: start });
        let pieces = 0;
        // A buffer of 3,001 bytes: lines are cut at most pieces' ends.
        await readBytes(
          source(bytes.subarray(start, end), byob),
          (b) => {
            pieces += 1;
            s.push(b);
          },
          3_001,
        );
        expect(pieces).toBeGreaterThan(20);
        parts.push(s.finishPart());
      }
      const merged = mergeParts(parts, opts);
      expect({ ...merged, arrivalMs: [...merged.arrivalMs] }).toEqual({
        ...whole,
        arrivalMs: [...whole.arrivalMs],
      });
      expect(simTraceOf(merged).hash).toBe(simTraceOf(whole).hash);
    });
  }
});

/**
 * A Blob-like byte stream of `bytes` that hands them out as asked and then, like the stream
 * Chromium 143 sometimes gave a range worker, never answers another read (no close). `asked`
 * records the bytes each read asked for, `cancelled` whether the reader let the stream go.
 */
function silentAtEnd(bytes: Uint8Array): {
  blob: Pick<Blob, 'stream' | 'size'>;
  asked: number[];
  cancelled: () => boolean;
} {
  const asked: number[] = [];
  let cancelled = false;
  const blob = {
    size: bytes.length,
    stream: () => {
      let at = 0;
      return new ReadableStream({
        type: 'bytes',
        pull(c) {
          const req = c.byobRequest;
          if (req === null || req.view === null) return;
          asked.push(req.view.byteLength);
          // Past the last byte: no answer, ever (the read stays pending).
          if (at >= bytes.length) return new Promise<void>(() => {});
          const view = new Uint8Array(req.view.buffer, req.view.byteOffset, req.view.byteLength);
          const n = Math.min(view.byteLength, bytes.length - at, 7_000);
          view.set(bytes.subarray(at, at + n));
          at += n;
          req.respond(n);
        },
        cancel() {
          cancelled = true;
        },
      });
    },
  };
  return { blob, asked, cancelled: () => cancelled };
}

describe('a BYOB read of a known size', () => {
  it('resolves once every byte was handed on, without the read that waits for the end', async () => {
    const bytes = new TextEncoder().encode(log(2_000));
    const { blob, asked, cancelled } = silentAtEnd(bytes);
    const got: number[] = [];
    let total = 0;
    const result = await Promise.race([
      readBytes(
        blob,
        (b) => {
          got.push(b[0] as number);
          total += b.length;
        },
        10_000,
      ).then(() => 'read'),
      new Promise<string>((r) => setTimeout(() => r('hung'), 2_000)),
    ]);
    expect(result).toBe('read');
    expect(total).toBe(bytes.length);
    expect(got.length).toBeGreaterThan(10);
    // No read asked past the end: the last asked for exactly the bytes still to come.
    expect(asked.length).toBe(got.length);
    let left = bytes.length;
    for (const a of asked) {
      expect(a).toBeLessThanOrEqual(left);
      left -= Math.min(a, 7_000, left);
    }
    expect(cancelled()).toBe(true);
  });

  it('rejects, saying how far it got, when the stream ends short of the size', async () => {
    const bytes = new TextEncoder().encode(log(300));
    const short = source(bytes.subarray(0, 10_000), true);
    const blob = { size: bytes.length, stream: short.stream };
    await expect(readBytes(blob, () => {}, 4_096)).rejects.toThrow(
      `the file ended after 10,000 of its ${bytes.length.toLocaleString('en-US')} bytes`,
    );
  });

  it('reads an empty blob without a read', async () => {
    const { blob, asked } = silentAtEnd(new Uint8Array(0));
    let calls = 0;
    await readBytes(blob, () => (calls += 1));
    expect(calls).toBe(0);
    expect(asked).toEqual([]);
  });
});

describe('a buffer kept from one read to the next', () => {
  it('each read fills the kept buffer and leaves it kept for the next; the bytes are whole', async () => {
    const bytes = new TextEncoder().encode(log(300));
    const keep: { buffer: ArrayBuffer | null } = { buffer: new ArrayBuffer(777) };
    for (let round = 0; round < 3; round += 1) {
      const got: number[] = [];
      const sizes = new Set<number>();
      await readBytes(
        source(bytes, true),
        (b) => {
          // Lent to the read while it lasts.
          expect(keep.buffer).toBeNull();
          sizes.add(b.buffer.byteLength);
          got.push(...b);
        },
        undefined,
        keep,
      );
      expect(got).toEqual(Array.from(bytes));
      // Every piece was read into the kept buffer (777 bytes), none into one made for the read.
      expect([...sizes]).toEqual([777]);
      expect(keep.buffer?.byteLength).toBe(777);
    }
  });

  it('a read that fails keeps no buffer (the next read makes its own)', async () => {
    const bytes = new TextEncoder().encode(log(50));
    const keep: { buffer: ArrayBuffer | null } = { buffer: new ArrayBuffer(512) };
    const short = { ...source(bytes, true), size: bytes.length + 10 };
    await expect(readBytes(short, () => {}, undefined, keep)).rejects.toThrow('the file ended');
    expect(keep.buffer).toBeNull();
  });
});
