/**
 * What a streaming pass (src/trace/stream.ts, with the merger and its reorder window,
 * src/trace/reorder.ts) leaves for the collector per request, as the stream worker runs it: V8's
 * sampling heap profiler (every allocation counted, those collected since included) over merging
 * parts already read (the range workers' part) and deciding each request with express-rate-limit's
 * limiter, once the code is hot. An arrival (a number past 2^30) handed to a call or written to a
 * number field, and a context made per call, were heap objects per request (about 18 bytes a
 * request here before; 40 to 90 over the bench's combined log); what is left is per part and per
 * key, about 2 bytes a request here (the test allows 6).
 */
import { describe, expect, it } from 'vitest';
import { leastGarbagePer } from './sampledGarbage';
import type { AlgorithmConfig } from '../../src/core';
import { StreamPass, TraceStream } from '../../src/trace';
import { partsFormat } from '../../src/trace/parse';
import type { TracePart } from '../../src/trace';

const T0 = 1_767_571_200_000;

/**
 * `n` combined lines ($msec at the end) over 200 addresses, a few ms apart, about one in three a
 * little out of order (as a server writes them when each request ends), cut into 4 parts.
 */
function parts(n: number, seed: number): { parts: TracePart[]; head: string } {
  const out: TracePart[] = [];
  let head = '';
  let x = seed;
  let ms = T0;
  for (let p = 0; p < 4; p += 1) {
    const lines: string[] = [];
    for (let i = 0; i < n / 4; i += 1) {
      x = (x * 1_103_515_245 + 12_345) % 2 ** 31;
      const r = Math.floor(x / 65_536);
      ms += r % 7;
      const t = ms - (r % 3 === 0 ? r % 500 : 0);
      lines.push(
        `10.0.${r % 2}.${r % 100} - - [05/Jan/2026:00:00:00 +0000] "GET /p HTTP/1.1" ${r % 13 === 0 ? 429 : 200} 1 "-" "UA" "-" 0.001 ${Math.floor(t / 1000)}.${String(t % 1000).padStart(3, '0')}`,
      );
    }
    const text = lines.join('\n') + '\n';
    if (p === 0) head = text.slice(0, 4096);
    const s = new TraceStream({
      name: 'big.log',
      keySpec: [{ kind: 'client' }],
      rangeStart: p,
      detectFrom: head,
    });
    s.push(new TextEncoder().encode(text));
    out.push(s.finishPart());
  }
  return { parts: out, head };
}

const CONFIG: AlgorithmConfig = {
  kind: 'anchored-window',
  limit: 5,
  windowMs: 60_000,
  countRejected: true,
};

/** One pass over the parts; its requests. */
function pass(ps: readonly TracePart[], head: string): number {
  const p = new StreamPass('big.log', [{ kind: 'client' }], [CONFIG]);
  for (const part of ps) p.merger.add(part);
  const info = partsFormat({ name: 'big.log', keySpec: [{ kind: 'client' }], detectFrom: head });
  return p.finish(p.merger.finishReport(info)).requests;
}

describe('the streaming pass’s garbage', () => {
  it('merging, counting and deciding leave under 6 bytes a request for the collector', async () => {
    const requests = 200_000;
    const { parts: ps, head } = parts(requests, 5);
    for (let i = 0; i < 4; i += 1) expect(pass(ps, head)).toBe(requests);
    let counted = 0;
    const perUnit = await leastGarbagePer(
      () => {
        counted = pass(ps, head);
      },
      requests,
      6,
    );
    expect(counted).toBe(requests);
    expect(perUnit).toBeLessThan(6);
    expect(perUnit).toBeGreaterThan(0);
  });
});
