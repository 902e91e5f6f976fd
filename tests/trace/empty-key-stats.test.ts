/**
 * The per-key statistics leave the empty key (every request without the key's value, held under
 * one key `-`) out of the ranking and the requests-per-W percentiles, and count it on its own, held
 * and streamed: it is no client's, and each system has its own rule for it.
 */
import { describe, expect, it } from 'vitest';
import { StreamPass, holdTrace, streamRead } from '../../src/trace';
import type { BuiltTrace, KeySpec, StreamSource } from '../../src/trace';
import { csvReport } from './csvReport';

const XFF: KeySpec = [{ kind: 'xff-first' }];

/** 40 requests without X-Forwarded-For within 40 ms, then 3 for each of a, b, c, 1 s apart. */
function built(): BuiltTrace {
  const rows: [number, string][] = [];
  for (let i = 0; i < 40; i += 1) rows.push([1_700_000_000_000 + i, '-']);
  for (let i = 0; i < 9; i += 1) rows.push([1_700_000_001_000 + i * 1000, ['a', 'b', 'c'][i % 3]!]);
  const keys = ['-', 'a', 'b', 'c'];
  return {
    name: 't.log',
    count: rows.length,
    arrivalMs: Float64Array.from(rows.map((r) => r[0])),
    keyId: Uint32Array.from(rows.map((r) => keys.indexOf(r[1]))),
    keys,
    cost: new Uint16Array(rows.length).fill(1),
    status: new Uint16Array(rows.length).fill(200),
    keySpec: XFF,
    natHints: [],
    report: csvReport(rows.length),
  };
}

describe('the empty key in the per-key statistics', () => {
  it('held: not ranked, not in the percentiles, counted on its own', () => {
    const { held } = holdTrace(built());
    expect(held.emptyRequests).toBe(40);
    expect(held.top.map((k) => k.key)).toEqual(['a', 'b', 'c']);
    // The busiest W = 1 s is one request per named key; the empty key's 40 are left out.
    expect(held.stats.max).toBe(1);
    expect(held.stats.worst.map((w) => w.key)).not.toContain('-');
  });

  it('held: a trace keyed by the client address has no empty key', () => {
    const b = built();
    const { held } = holdTrace({ ...b, keySpec: [{ kind: 'client' }], keys: ['x', 'a', 'b', 'c'] });
    expect(held.emptyRequests).toBe(0);
    expect(held.top[0]?.key).toBe('x');
  });

  it('streamed: the busiest keys leave it out and the result counts it', async () => {
    const lines: string[] = [];
    const at = (ms: number) => `${Math.floor(ms / 1000)}.${String(ms % 1000).padStart(3, '0')}`;
    for (let i = 0; i < 30; i += 1) {
      const ms = 1_767_571_200_000 + i * 10;
      const xff = i % 3 === 0 ? `"10.1.0.${i % 2}"` : '"-"';
      lines.push(
        `10.0.0.9 - - [05/Jan/2026:00:00:00 +0000] "GET / HTTP/1.1" 200 1 "-" "UA" ${xff} 0.001 ${at(ms)}`,
      );
    }
    const blob = new Blob([lines.join('\n') + '\n']);
    const file: StreamSource = {
      name: 'x.log',
      size: blob.size,
      slice: (a, b) => blob.slice(a, b),
      stream: () => blob.stream(),
    };
    const pass = new StreamPass(file.name, XFF, [
      { kind: 'fixed-window', limit: 1, windowMs: 1000 },
    ]);
    const r = await streamRead(
      file,
      pass,
      { keySpec: XFF },
      { parallel: 0, readRange: null, progress: () => {} },
    );
    expect(r.requests).toBe(30);
    expect(r.empty?.requests).toBe(20);
    expect(r.top.map((k) => k.key).sort()).toEqual(['10.1.0.0', '10.1.0.1']);
    expect(r.topRejected.map((k) => k.key)).not.toContain('-');
  });
});
