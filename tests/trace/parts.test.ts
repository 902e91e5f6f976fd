/**
 * A line log read in byte ranges (each ending after a newline, read by a stream of its own with
 * the file's start deciding the format) and merged gives the trace one stream gives: requests,
 * keys, line numbers of malformed lines, notes, NAT hints, reordering, fingerprint.
 */
import { describe, expect, it, vi } from 'vitest';
import { TraceMerger } from '../../src/trace/builder';
import { TraceStream, mergeParts, parseTrace, simTraceOf } from '../../src/trace';
import type { BuiltTrace, KeySpec } from '../../src/trace';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

function log(n: number): string {
  const out: string[] = [];
  for (let i = 0; i < n; i += 1) {
    const s = 1_767_571_200 + Math.floor(i / 10) - (i % 97 === 0 ? 30 : 0);
    if (i % 53 === 0) out.push('');
    if (i % 71 === 0) out.push(`garbage line ${i}`);
    if (i % 89 === 0) out.push('{"time":"2026-01-05T00:00:00Z"}');
    out.push(
      `10.0.${i % 5}.${i % 11} - - [05/Jan/2026:00:00:00 +0000] "GET /p${i % 3} HTTP/1.1" ${i % 13 === 0 ? 429 : 200} 1 "-" "UA${i % 23}" "-" 0.00${i % 10} ${s}.${String(i % 1000).padStart(3, '0')}`,
    );
  }
  return out.join('\n');
}

function inParts(bytes: Uint8Array, n: number, keySpec: KeySpec): BuiltTrace {
  const head = new TextDecoder().decode(bytes.subarray(0, 128 * 1024));
  const opts = { name: 'p.log', keySpec, detectFrom: head };
  const cuts = [0];
  for (let k = 1; k < n; k += 1) {
    const at = bytes.indexOf(10, Math.floor((bytes.length * k) / n));
    if (at >= 0 && at + 1 > (cuts[cuts.length - 1] as number)) cuts.push(at + 1);
  }
  cuts.push(bytes.length);
  const parts = cuts.slice(0, -1).map((start, i) => {
    const s = new TraceStream({ ...opts, rangeStart: start });
    const range = bytes.subarray(start, cuts[i + 1]);
    for (let j = 0; j < range.length; j += 7_919) s.push(range.subarray(j, j + 7_919));
    return s.finishPart();
  });
  return mergeParts(parts, opts);
}

describe('ranges read apart and merged', () => {
  for (const keySpec of [
    [{ kind: 'client' }],
    [{ kind: 'path' }],
    [{ kind: 'xff-first' }],
  ] as KeySpec[]) {
    it(`equal one stream (key ${keySpec[0]?.kind})`, () => {
      const bytes = enc(log(6_000));
      const whole = parseTrace(bytes, { name: 'p.log', keySpec });
      expect(whole.report.malformed).toBeGreaterThan(100);
      expect(whole.report.outOfOrder).toBeGreaterThan(0);
      expect(whole.natHints.length).toBeGreaterThan(0);
      for (const n of [1, 2, 3, 4, 7]) {
        const merged = inParts(bytes, n, keySpec);
        expect({ ...merged, arrivalMs: [...merged.arrivalMs] }).toEqual({
          ...whole,
          arrivalMs: [...whole.arrivalMs],
        });
        expect(simTraceOf(merged).hash).toBe(simTraceOf(whole).hash);
      }
    });
  }

  it("keeps each empty-key request's address in trace order, however the log is cut", () => {
    // No line has X-Forwarded-For: every request's key is empty, and the address kept for the
    // i-th is the key the same log keyed by address gives request i (the same time-sorted order).
    const bytes = enc(log(6_000));
    const byAddress = parseTrace(bytes, { name: 'p.log', keySpec: [{ kind: 'client' }] });
    const want = Array.from(byAddress.keyId, (k) => byAddress.keys[k]);
    for (const n of [1, 3, 7]) {
      const t = inParts(bytes, n, [{ kind: 'xff-first' }]);
      const ec = t.emptyClients!;
      expect(ec.client.length).toBe(t.count);
      expect(Array.from(ec.client, (c) => ec.names[c - 1])).toEqual(want);
    }
  });

  it('the request cap holds across ranges, naming how far the log got', () => {
    const bytes = enc(log(3_000));
    const head = new TextDecoder().decode(bytes.subarray(0, 128 * 1024));
    const half = bytes.indexOf(10, bytes.length >> 1) + 1;
    const parts = [bytes.subarray(0, half), bytes.subarray(half)].map((b, i) => {
      const s = new TraceStream({ name: 'p.log', detectFrom: head, rangeStart: i ? half : 0 });
      s.push(b);
      return s.finishPart();
    });
    // The line named is the one a single stream stops at.
    let one = '';
    try {
      parseTrace(bytes, { name: 'p.log', maxRequests: 2_000 });
    } catch (e) {
      one = (e as Error).message;
    }
    const line = /line ([\d,]+) would be one more/.exec(one)?.[1];
    expect(line).toBeDefined();
    expect(() =>
      mergeParts(parts, { name: 'p.log', detectFrom: head, maxRequests: 2_000 }),
    ).toThrow(
      `Too many requests: the page holds at most 2,000 requests (16 bytes each) and line ${line} would be one more. Split the log or filter it first.`,
    );
  });
  it('a range of known size makes its columns once, for about its requests, and reads the same', () => {
    const bytes = enc(log(20_000));
    const head = new TextDecoder().decode(bytes.subarray(0, 128 * 1024));
    const start = bytes.indexOf(10, 1_000) + 1;
    const read = (sized: boolean) => {
      const s = new TraceStream({
        name: 'p.log',
        detectFrom: head,
        rangeStart: start,
        ...(sized ? { rangeBytes: bytes.length - start } : {}),
      });
      for (let j = start; j < bytes.length; j += 65_536) s.push(bytes.subarray(j, j + 65_536));
      return s.finishPart();
    };
    const sized = read(true);
    const grown = read(false);
    expect({ ...sized, end: sized.end }).toEqual({ ...grown, end: grown.end });
    expect(sized.count).toBeGreaterThan(19_000);
    // Made for the range's estimated requests (2 % over, and 1,024), not doubled as they came.
    const capacity = sized.arrivalMs.buffer.byteLength / 8;
    expect(capacity).toBeGreaterThanOrEqual(sized.count);
    expect(capacity).toBeLessThan(sized.count * 1.1 + 1_024);
    for (const column of [sized.keyId, sized.cost, sized.status, sized.line]) {
      expect(column.buffer.byteLength / column.BYTES_PER_ELEMENT).toBe(capacity);
    }
  });
  it('one stream past its hand-off size lends its columns to the merger and reads as ranges do', () => {
    // 140,000 requests: the stream hands its merger two full chunks (65,536 each) and a last one.
    const bytes = enc(log(140_000));
    const add = vi.spyOn(TraceMerger.prototype, 'add');
    let whole: BuiltTrace;
    let seen: ArrayBufferLike[];
    try {
      whole = parseTrace(bytes, { name: 'p.log', keySpec: [{ kind: 'client' }] });
      // Calls through; each chunk's buffer is looked at after the read.
      seen = add.mock.calls.map(([chunk]) => chunk.arrivalMs.buffer);
    } finally {
      add.mockRestore();
    }
    expect(whole.count).toBeGreaterThan(130_000);
    // The two full chunks are views of the same columns, filled again (not copies of them).
    expect(seen.length).toBeGreaterThanOrEqual(3);
    expect(seen[1] === seen[0]).toBe(true);
    const merged = inParts(bytes, 3, [{ kind: 'client' }]);
    expect({ ...merged, arrivalMs: [...merged.arrivalMs] }).toEqual({
      ...whole,
      arrivalMs: [...whole.arrivalMs],
    });
  });
});
