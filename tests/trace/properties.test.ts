import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TraceStream, parseTrace, windowStats } from '../../src/trace';
import type { BuiltTrace, KeySpec } from '../../src/trace';
import { albLine, byCompletion, csv, har, jsonl, nginxCombined, nginxMsec, tsv } from './formats';
import type { TruthRequest } from './formats';

const MIN_MS = 0;
const MAX_MS = 4_102_444_800_000 - 10_000_000;
const word = fc.stringMatching(/^[A-Za-z0-9._~-]{1,12}$/);
const ip = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((p) => p.join('.'));
const request: fc.Arbitrary<TruthRequest> = fc.record({
  arrivalMs: fc.integer({ min: MIN_MS + 10_000_000, max: MAX_MS }),
  requestTimeMs: fc.integer({ min: 0, max: 9_999_999 }),
  client: ip,
  xff: fc.oneof(
    fc.constant(''),
    fc.array(ip, { minLength: 1, maxLength: 3 }).map((a) => a.join(', ')),
  ),
  path: fc.array(word, { minLength: 1, maxLength: 3 }).map((a) => `/${a.join('/')}`),
  query: fc.oneof(
    fc.constant(''),
    word.map((w) => `q=${w}`),
  ),
  userAgent: fc
    .stringMatching(/^[A-Za-z0-9 ./();:-]{1,30}$/)
    .filter((s) => s.trim() === s && s !== '-'),
  status: fc.integer({ min: 100, max: 599 }),
  cost: fc.integer({ min: 0, max: 65_535 }),
});
const requests = fc.array(request, { minLength: 1, maxLength: 40 });

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const parse = (s: string, name: string, keySpec?: KeySpec): BuiltTrace =>
  parseTrace(enc(s), keySpec ? { name, keySpec } : { name });

function rows(t: BuiltTrace, withCost = false): string[] {
  const out: string[] = [];
  for (let i = 0; i < t.count; i += 1) {
    out.push(
      `${t.arrivalMs[i]}|${t.keys[t.keyId[i] as number]}|${t.status[i]}${withCost ? `|${t.cost[i]}` : ''}`,
    );
  }
  return out.sort();
}
const truthRows = (
  rs: readonly TruthRequest[],
  arrival: (r: TruthRequest) => number,
  key: (r: TruthRequest) => string,
  withCost = false,
): string[] =>
  rs.map((r) => `${arrival(r)}|${key(r)}|${r.status}${withCost ? `|${r.cost}` : ''}`).sort();
function ascending(a: Float64Array): boolean {
  for (let i = 1; i < a.length; i += 1) if ((a[i] as number) < (a[i - 1] as number)) return false;
  return true;
}

const RUNS = { numRuns: 60 };

describe('parsers round-trip every request (fast-check)', () => {
  it('nginx main + $request_time $msec, in completion order: exact arrivals, sorted', () => {
    fc.assert(
      fc.property(requests, (rs) => {
        const t = parse(byCompletion(rs).map(nginxMsec).join('\n'), 'a.log');
        expect(rows(t)).toEqual(
          truthRows(
            rs,
            (r) => r.arrivalMs,
            (r) => r.client,
          ),
        );
        expect(ascending(t.arrivalMs)).toBe(true);
        expect(t.report.malformed).toBe(0);
      }),
      RUNS,
    );
  });

  it('nginx combined in any zone: the second the line was written', () => {
    fc.assert(
      fc.property(requests, fc.integer({ min: -720, max: 840 }), (rs, zone) => {
        const t = parse(
          byCompletion(rs)
            .map((r) => nginxCombined(r, zone))
            .join('\n'),
          'a.log',
          [{ kind: 'path' }],
        );
        expect(rows(t)).toEqual(
          truthRows(
            rs,
            (r) => Math.floor((r.arrivalMs + r.requestTimeMs) / 1000) * 1000,
            (r) => r.path,
          ),
        );
      }),
      RUNS,
    );
  });

  it('X-Forwarded-For hops', () => {
    fc.assert(
      fc.property(requests, (rs) => {
        const text = rs.map(nginxMsec).join('\n');
        const hops = (r: TruthRequest): string[] => r.xff.split(',').map((h) => h.trim());
        expect(rows(parse(text, 'a.log', [{ kind: 'xff-first' }]))).toEqual(
          truthRows(
            rs,
            (r) => r.arrivalMs,
            (r) => (r.xff === '' ? '-' : (hops(r)[0] as string)),
          ),
        );
        expect(rows(parse(text, 'a.log', [{ kind: 'xff-last' }]))).toEqual(
          truthRows(
            rs,
            (r) => r.arrivalMs,
            (r) => (r.xff === '' ? '-' : (hops(r).at(-1) as string)),
          ),
        );
      }),
      RUNS,
    );
  });

  it('ALB', () => {
    fc.assert(
      fc.property(requests, (rs) => {
        const t = parse(byCompletion(rs).map(albLine).join('\n'), 'a.log');
        expect(rows(t)).toEqual(
          truthRows(
            rs,
            (r) => r.arrivalMs,
            (r) => r.client,
          ),
        );
      }),
      RUNS,
    );
  });

  it('HAR', () => {
    fc.assert(
      fc.property(requests, (rs) => {
        const t = parse(har(rs), 'a.har', [{ kind: 'field', name: 'X-Api-Key' }, { kind: 'path' }]);
        expect(rows(t)).toEqual(
          truthRows(
            rs,
            (r) => r.arrivalMs,
            (r) => `${r.client} | ${r.path}`,
          ),
        );
      }),
      RUNS,
    );
  });

  it('CSV (BOM or not, LF or CRLF), TSV and JSON lines, with costs', () => {
    fc.assert(
      // Epoch numbers carry no unit: src/trace/time.ts reads < 1e11 as seconds, so epoch-ms
      // columns are unambiguous from 1973-03-03 (1e11 ms) on; ISO (TSV here) has no such limit.
      fc.property(requests, fc.boolean(), fc.boolean(), (rs0, crlf, bom) => {
        const rs = rs0.map((r) => ({ ...r, arrivalMs: Math.max(1e11, r.arrivalMs) }));
        const c = parse(csv(rs, crlf ? '\r\n' : '\n', bom), 'a.csv');
        expect(rows(c, true)).toEqual(
          truthRows(
            rs,
            (r) => r.arrivalMs,
            (r) => r.client,
            true,
          ),
        );
        const t = parse(tsv(rs), 'a.tsv');
        expect(rows(t)).toEqual(
          truthRows(
            rs,
            (r) => r.arrivalMs,
            (r) => r.client,
          ),
        );
        const j = parse(jsonl(rs), 'a.jsonl');
        expect(rows(j, true)).toEqual(
          truthRows(
            rs,
            (r) => r.arrivalMs,
            (r) => r.client,
            true,
          ),
        );
      }),
      RUNS,
    );
  });

  it('chunk boundaries do not matter (any split of the bytes gives the same trace)', () => {
    fc.assert(
      fc.property(requests, fc.array(fc.nat(), { maxLength: 5 }), (rs, cuts) => {
        const bytes = enc(byCompletion(rs).map(nginxMsec).join('\n'));
        const whole = rows(parseTrace(bytes, { name: 'a' }));
        const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
        const s = new TraceStream({ name: 'a' });
        let prev = 0;
        for (const p of [...points, bytes.length]) {
          s.push(bytes.subarray(prev, p));
          prev = p;
        }
        expect(rows(s.finish())).toEqual(whole);
      }),
      RUNS,
    );
  });
});

describe('windowStats', () => {
  it('each key’s worst window equals a brute-force count over every window start', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 5000 }), fc.nat(3)), {
          minLength: 1,
          maxLength: 60,
        }),
        fc.integer({ min: 1, max: 2000 }),
        (reqs, w) => {
          const sorted = [...reqs].sort((a, b) => a[0] - b[0]);
          const keys = ['k0', 'k1', 'k2', 'k3'];
          const trace = {
            count: sorted.length,
            arrivalMs: Float64Array.from(sorted.map((r) => r[0])),
            keyId: Uint32Array.from(sorted.map((r) => r[1])),
            keys,
          };
          const s = windowStats(trace, w, 4);
          for (const wb of s.worst) {
            const k = keys.indexOf(wb.key);
            const times = sorted.filter((r) => r[1] === k).map((r) => r[0]);
            let brute = 0;
            for (const t0 of times)
              brute = Math.max(brute, times.filter((t) => t >= t0 && t < t0 + w).length);
            expect(wb.requests).toBe(brute);
          }
          expect(s.max).toBe(Math.max(...s.worst.map((x) => x.requests)));
        },
      ),
      RUNS,
    );
  });

  it('known answer: p50/p90/p99/max of worst windows', () => {
    // key a: 3 requests within 1 s; b: 1; c: 2 but 1.5 s apart.
    const trace = {
      count: 6,
      arrivalMs: Float64Array.from([0, 100, 200, 300, 1000, 2500]),
      keyId: Uint32Array.from([0, 0, 1, 0, 2, 2]),
      keys: ['a', 'b', 'c'],
    };
    const s = windowStats(trace, 1000);
    expect([s.p50, s.p90, s.p99, s.max]).toEqual([1, 3, 3, 3]);
    expect(s.worst[0]).toEqual({ key: 'a', requests: 3, startMs: 0 });
    expect(() => windowStats(trace, 0)).toThrow(/windowMs must be a whole number ≥ 1 \(got 0\)/);
  });
});
