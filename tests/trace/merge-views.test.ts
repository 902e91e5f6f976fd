/**
 * A merge of ranges reserves its columns from an estimate a little over the requests: the trace
 * then keeps views of those columns (no copy of 16 bytes a request after the last range), and
 * exact copies only when the estimate was far over (the copies free more than they cost).
 */
import { describe, expect, it } from 'vitest';
import { PartsMerge } from '../../src/trace/parse';
import { TraceStream, parseTrace } from '../../src/trace';
import type { BuiltTrace } from '../../src/trace';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

function log(n: number): string {
  const out: string[] = [];
  for (let i = 0; i < n; i += 1) {
    const s = 1_767_571_200 + Math.floor(i / 10) - (i % 97 === 0 ? 3 : 0);
    out.push(
      `10.0.${i % 5}.${i % 11} - - [05/Jan/2026:00:00:00 +0000] "GET /p${i % 3} HTTP/1.1" ${i % 13 === 0 ? 429 : 200} 1 "-" "UA${i % 23}" "-" 0.00${i % 10} ${s}.${String(i % 1000).padStart(3, '0')}`,
    );
  }
  return out.join('\n');
}

/** The log read in two ranges and merged into columns reserved for `reserve` requests. */
function merged(bytes: Uint8Array, reserve: number): BuiltTrace {
  const head = new TextDecoder().decode(bytes.subarray(0, 128 * 1024));
  const opts = { name: 'p.log', detectFrom: head };
  const cut = bytes.indexOf(10, bytes.length >> 1) + 1;
  const merge = new PartsMerge(opts);
  merge.reserve(reserve);
  for (const [start, end] of [
    [0, cut],
    [cut, bytes.length],
  ] as const) {
    const s = new TraceStream({ ...opts, rangeStart: start });
    s.push(bytes.subarray(start, end));
    merge.add(s.finishPart());
  }
  return merge.finish();
}

const columns = (t: BuiltTrace) => ({
  count: t.count,
  arrivalMs: [...t.arrivalMs],
  keyId: [...t.keyId],
  keys: t.keys,
  cost: [...t.cost],
  status: [...t.status],
  report: t.report,
});

describe('a merge reserved a little over its requests', () => {
  const bytes = enc(log(5_000));
  const whole = parseTrace(bytes, { name: 'p.log' });

  it('keeps views of its columns, the same requests as one stream', () => {
    const t = merged(bytes, 5_100);
    expect(columns(t)).toEqual(columns(whole));
    expect(t.report.outOfOrder).toBeGreaterThan(0);
    // Views of the reserved columns: their buffers hold 5,100 requests, the views 5,000.
    expect(t.arrivalMs.length).toBe(5_000);
    expect(t.arrivalMs.buffer.byteLength).toBe(5_100 * 8);
    expect(t.keyId.buffer.byteLength).toBe(5_100 * 4);
    expect(t.cost.buffer.byteLength).toBe(5_100 * 2);
    expect(t.status.buffer.byteLength).toBe(5_100 * 2);
  });

  it('copies them exactly when reserved far over', () => {
    const t = merged(bytes, 10_000);
    expect(columns(t)).toEqual(columns(whole));
    expect(t.arrivalMs.buffer.byteLength).toBe(5_000 * 8);
    expect(t.keyId.buffer.byteLength).toBe(5_000 * 4);
  });
});
