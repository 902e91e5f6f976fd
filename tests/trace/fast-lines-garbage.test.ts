/**
 * What the byte reader (src/trace/fastLines.ts) leaves for the collector while a range worker
 * reads combined lines: V8's sampling heap profiler (every allocation counted, those collected
 * since included) over reading a range of 200,000 lines, once the reader's code is hot. A number
 * handed on per line as an argument (the arrival, past 2^30) was a heap number a line, 16 bytes;
 * what is left is per key and per piece of the file (key strings, the part's lists), about 2.5
 * bytes a line here (the test allows 6).
 */
import { describe, expect, it } from 'vitest';
import { leastGarbagePer } from './sampledGarbage';
import { TraceStream } from '../../src/trace';

const AGENTS = [
  'Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0',
  'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  'curl/8.5.0',
];

/** `n` combined lines, one a 100 ms, over 300 addresses (seeded). */
function combined(n: number, seed: number): Uint8Array {
  const out: string[] = [];
  let x = seed;
  for (let i = 0; i < n; i += 1) {
    x = (x * 1_103_515_245 + 12_345) % 2 ** 31;
    const r = Math.floor(x / 65_536);
    const s = Math.floor(i / 10);
    const hh = String(Math.floor(s / 3600) % 24).padStart(2, '0');
    const mm = String(Math.floor(s / 60) % 60).padStart(2, '0');
    const ss = String(s % 60).padStart(2, '0');
    out.push(
      `10.${r % 3}.${r % 10}.${r % 10} - - [02/Mar/2026:${hh}:${mm}:${ss} +0000] "GET /p?page=${r % 40} HTTP/1.1" ${r % 17 === 0 ? 429 : 200} ${r % 5000} "https://www.example.com/search?q=${r % 9}" "${AGENTS[r % 3] as string}"`,
    );
  }
  return new TextEncoder().encode(out.join('\n') + '\n');
}

/** Reads `bytes` as one range, in pieces of 1 MB, as traceRange.worker.ts does. */
function readRange(bytes: Uint8Array): number {
  const s = new TraceStream({
    name: 'big.log',
    keySpec: [{ kind: 'client' }],
    rangeStart: 0,
    rangeBytes: bytes.length,
  });
  for (let at = 0; at < bytes.length; at += 1 << 20) s.push(bytes.subarray(at, at + (1 << 20)));
  return s.finishPart().count;
}

describe('the byte reader’s garbage', () => {
  it('reading combined lines leaves under 6 bytes a line for the collector', async () => {
    const lines = 200_000;
    const bytes = combined(lines, 3);
    // Hot first: the reader's code optimized, as it is after a range worker's first ranges.
    for (let i = 0; i < 4; i += 1) expect(readRange(bytes)).toBe(lines);
    let counted = 0;
    const perUnit = await leastGarbagePer(
      () => {
        counted = readRange(bytes);
      },
      lines,
      6,
    );
    expect(counted).toBe(lines);
    expect(perUnit).toBeLessThan(6);
    expect(perUnit).toBeGreaterThan(0);
  });
});
