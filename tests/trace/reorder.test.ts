/**
 * The reorder window lets requests out in the order a stable sort by time gives, holds no more than
 * it says, and names every request it could not put in its place (and only those).
 */
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { Columns, ReorderWindow } from '../../src/trace/reorder';
import { TraceStream, mergeParts, parseTrace } from '../../src/trace';
import type { BuiltTrace } from '../../src/trace';

interface Req {
  t: number;
  line: number;
}

/** Runs `reqs` through a window; what left (in order) and what was outside. */
function through(reqs: readonly Req[], windowMs: number, maxHeld: number) {
  const out: Req[] = [];
  const outside: Req[] = [];
  let maxHeldSeen = 0;
  let mismatched = 0;
  const w = new ReorderWindow(
    (c, from, count) => {
      for (let i = from; i < from + count; i += 1) {
        out.push({ t: c.t[i] as number, line: c.line[i] as number });
        // The key, cost and status travel with their request.
        const line = c.line[i] as number;
        if (c.key[i] !== line % 1000 || c.status[i] !== 200 + (line % 7)) mismatched += 1;
        if (c.cost[i] !== 1 + (line % 3)) mismatched += 1;
      }
    },
    (t, _k, _c, _s, line) => outside.push({ t, line }),
    windowMs,
    maxHeld,
  );
  for (const r of reqs) {
    w.push(r.t, r.line % 1000, 1 + (r.line % 3), 200 + (r.line % 7), r.line);
    maxHeldSeen = Math.max(maxHeldSeen, w.held);
  }
  w.flush();
  expect(mismatched).toBe(0);
  return { out, outside, report: w.report, maxHeldSeen };
}

const stableSort = (reqs: readonly Req[]): Req[] =>
  reqs.slice().sort((a, b) => a.t - b.t || a.line - b.line);

/** A nearly sorted log: a clock going up, with some lines stepping back by up to `back` ms. */
const nearlySorted = (back: number) =>
  fc
    .array(
      fc.record({
        step: fc.integer({ min: 0, max: 50 }),
        back: fc.oneof(fc.constant(0), fc.constant(0), fc.integer({ min: 0, max: back })),
      }),
      { maxLength: 3000 },
    )
    .map((xs) => {
      let clock = 1_700_000_000_000;
      return xs.map((x, i) => {
        clock += x.step;
        return { t: clock - x.back, line: i + 1 };
      });
    });

describe('ReorderWindow', () => {
  it('lets requests out as a stable sort by time, when no line is outside the window', () => {
    fc.assert(
      fc.property(nearlySorted(2_000), (reqs) => {
        const r = through(reqs, 5_000, 1 << 20);
        expect(r.outside).toEqual([]);
        expect(r.out).toEqual(stableSort(reqs));
      }),
      { numRuns: 200 },
    );
  });

  it('names exactly the requests earlier than one already let out, and sorts the rest', () => {
    fc.assert(
      fc.property(nearlySorted(60_000), fc.integer({ min: 1, max: 20_000 }), (reqs, windowMs) => {
        const r = through(reqs, windowMs, 1 << 20);
        // What left is sorted, and with what was outside it is every request once.
        expect(r.out).toEqual(stableSort(r.out));
        expect([...r.out, ...r.outside].map((x) => x.line).sort((a, b) => a - b)).toEqual(
          reqs.map((x) => x.line),
        );
        // A request is outside only when something later had left before it came.
        for (const o of r.outside) {
          const before = r.out.filter((x) => x.line < o.line);
          expect(before.some((x) => x.t > o.t)).toBe(true);
        }
        // Every request within the window of the latest arrival before it is sorted in.
        let maxT = -Infinity;
        const outsideLines = new Set(r.outside.map((o) => o.line));
        for (const q of reqs) {
          if (q.t >= maxT - windowMs) expect(outsideLines.has(q.line)).toBe(false);
          maxT = Math.max(maxT, q.t);
        }
        expect(r.report.outside).toBe(r.outside.length);
        expect(r.report.firstOutsideLine).toBe(r.outside[0]?.line ?? 0);
      }),
      { numRuns: 200 },
    );
  });

  it('holds at most its cap, letting the oldest out early', () => {
    const reqs = Array.from({ length: 200_000 }, (_, i) => ({ t: 1000 + i, line: i + 1 }));
    const r = through(reqs, 10_000_000, 50_000);
    expect(r.maxHeldSeen).toBeLessThanOrEqual(50_000 + (1 << 15));
    expect(r.out).toEqual(reqs);
  });

  it('counts steps back as the whole-log sort reported them', () => {
    const reqs = [5, 3, 9, 1, 9, 8].map((t, i) => ({ t, line: i + 1 }));
    const r = through(reqs, 1_000, 1 << 20);
    expect(r.report.outOfOrder).toBe(3);
    expect(r.report.maxBackstepMs).toBe(8);
    expect(r.out.map((x) => x.t)).toEqual([1, 3, 5, 8, 9, 9]);
  });

  it('keeps fractional and far-apart times in order (no packed sort)', () => {
    const reqs = [0.5, 0.25, 2 ** 40, 3, 2 ** 40 - 1].map((t, i) => ({ t, line: i + 1 }));
    const r = through(reqs, 2 ** 41, 1 << 20);
    expect(r.out).toEqual(stableSort(reqs));
  });
});

describe('a log read through the window', () => {
  // $msec lines, one a second; from line 40,001 every 10,000th line steps back a day (past the
  // 5-minute window, and past what a window holding requests in runs of 32,768 still holds) and
  // every 7th line 2 s (inside it).
  const N = 120_000;
  const rows: { t: number; ip: string; line: number }[] = [];
  const text: string[] = [];
  for (let i = 0; i < N; i += 1) {
    const back = i >= 40_000 && i % 10_000 === 0 ? 86_400 : i % 7 === 0 ? 2 : 0;
    const t = 1_767_571_200 + i - back;
    const ip = `10.0.${(i >> 8) & 255}.${i & 255}`;
    rows.push({ t: t * 1000, ip, line: i + 1 });
    text.push(
      `${ip} - - [05/Jan/2026:00:00:00 +0000] "GET / HTTP/1.1" 200 1 "-" "UA" "-" 0.000 ${t}.000`,
    );
  }
  const bytes = new TextEncoder().encode(`${text.join('\n')}\n`);
  const expected = rows.slice().sort((a, b) => a.t - b.t || a.line - b.line);

  const check = (t: BuiltTrace): void => {
    expect(t.count).toBe(N);
    expect(Array.from(t.arrivalMs)).toEqual(expected.map((r) => r.t));
    expect(Array.from(t.keyId, (k) => t.keys[k])).toEqual(expected.map((r) => r.ip));
    expect(t.report.outsideWindow).toBe(8);
    expect(t.report.firstOutsideLine).toBe(40_001);
    // Every 7th line from line 8 (17,142), the 8 a day back (one of them, line 70,001, a 7th
    // line too), less line 50,002, which follows a line a day back and so is not behind it.
    expect(t.report.notes).toContain(
      '17,148 requests were earlier than a line before them (by up to 86,399,000 ms) and were sorted into place.',
    );
    expect(t.report.notes.filter((n) => n.includes('reorder window'))).toEqual([
      expect.stringMatching(
        /^8 requests were further back than the 5-minute reorder window \(the first at line 40,001, up to [\d,]+ ms before requests already sorted\); the whole trace is held, so they were sorted into place at the end\.$/,
      ),
    ]);
  };

  it('sorts lines far out of order into place and names them (one stream)', () => {
    check(parseTrace(bytes, { name: 'w.log' }));
  });

  it('the same, read in two ranges and merged', () => {
    const head = new TextDecoder().decode(bytes.subarray(0, 128 * 1024));
    const half = bytes.indexOf(10, bytes.length >> 1) + 1;
    const parts = [0, half].map((start, i) => {
      const s = new TraceStream({ name: 'w.log', detectFrom: head, rangeStart: start });
      s.push(bytes.subarray(start, i === 0 ? half : bytes.length));
      return s.finishPart();
    });
    check(mergeParts(parts, { name: 'w.log', detectFrom: head }));
  });
});

describe('ReorderWindow.pushMany', () => {
  /** Every call the sink and the outsider get, as flat rows, with the report. */
  function record(feed: (w: ReorderWindow) => void, windowMs: number, maxHeld: number) {
    const rows: number[] = [];
    const outside: number[] = [];
    const w = new ReorderWindow(
      (c, from, n) => {
        for (let i = from; i < from + n; i += 1) {
          rows.push(
            c.t[i] as number,
            c.key[i] as number,
            c.cost[i] as number,
            c.status[i] as number,
            c.line[i] as number,
          );
        }
      },
      (t, k, c, s, line) => outside.push(t, k, c, s, line),
      windowMs,
      maxHeld,
    );
    feed(w);
    w.flush();
    return { rows, outside, report: { ...w.report } };
  }

  it('is push of each request, key ids mapped and lines offset, in batches of any size', () => {
    // A log of 150,000 requests (more than a few sorting runs), nearly in order, some far back.
    let seed = 7;
    const rnd = (): number => {
      seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
      return seed / 2 ** 32;
    };
    const n = 150_000;
    const t = new Float64Array(n);
    const key = new Uint32Array(n);
    const cost = new Uint16Array(n);
    const status = new Uint16Array(n);
    const line = new Float64Array(n);
    let clock = 1_700_000_000_000;
    for (let i = 0; i < n; i += 1) {
      clock += Math.floor(rnd() * 8);
      const r = rnd();
      t[i] = r < 0.9 ? clock : r < 0.99 ? clock - Math.floor(rnd() * 2_000) : clock - 90_000;
      key[i] = Math.floor(rnd() * 50);
      cost[i] = 1 + (i % 3);
      status[i] = 200 + (i % 7);
      line[i] = i + 1;
    }
    const map = Uint32Array.from({ length: 50 }, (_, i) => 1000 + i * 3);
    const offset = 40_000;
    for (const [windowMs, maxHeld] of [
      [60_000, 1 << 20],
      [1_000, 5_000],
    ] as const) {
      const one = record(
        (w) => {
          for (let i = 0; i < n; i += 1) {
            w.push(
              t[i] as number,
              map[key[i] as number] as number,
              cost[i] as number,
              status[i] as number,
              (line[i] as number) + offset,
            );
          }
        },
        windowMs,
        maxHeld,
      );
      expect(one.report.outside).toBeGreaterThan(0);
      expect(one.report.outOfOrder).toBeGreaterThan(one.report.outside);
      for (const batch of [1, 777, 32_768, 50_000, n]) {
        const many = record(
          (w) => {
            for (let at = 0; at < n; at += batch) {
              const to = Math.min(n, at + batch);
              w.pushMany(
                t.subarray(at, to),
                key.subarray(at, to),
                map,
                cost.subarray(at, to),
                status.subarray(at, to),
                line.subarray(at, to),
                offset,
                to - at,
              );
            }
          },
          windowMs,
          maxHeld,
        );
        expect(many.report).toEqual(one.report);
        expect(many.outside).toEqual(one.outside);
        expect(many.rows.length).toBe(one.rows.length);
        // The first field that differs (−1: none), not a diff of 750,000 numbers.
        expect(many.rows.findIndex((x, i) => x !== one.rows[i])).toBe(-1);
      }
    }
  });
});

describe('ReorderWindow over tails of a long, nearly sorted log', () => {
  /** 100,000 requests 0 – 11 ms apart, one in 150 written up to 2 s late (as servers log slow ones). */
  function longLog(): Req[] {
    const reqs: Req[] = [];
    let clock = 1_700_000_000_000;
    let seed = 7;
    const rnd = (): number => {
      seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
      return seed / 4_294_967_296;
    };
    for (let i = 0; i < 100_000; i += 1) {
      clock += Math.floor(rnd() * 12);
      reqs.push({ t: clock - (rnd() < 1 / 150 ? Math.floor(rnd() * 2_000) : 0), line: i + 1 });
    }
    return reqs;
  }

  it('lets them out as a stable sort by time', () => {
    const reqs = longLog();
    const r = through(reqs, 5 * 60_000, 1 << 20);
    expect(r.outside).toEqual([]);
    expect(r.report.outOfOrder).toBeGreaterThan(300);
    expect(r.out).toEqual(stableSort(reqs));
  });

  it('moves the runs between late lines as blocks, not request by request', () => {
    const copy = vi.spyOn(Columns.prototype, 'copy');
    const copyRange = vi.spyOn(Columns.prototype, 'copyRange');
    try {
      through(longLog(), 5 * 60_000, 1 << 20);
      // Each late line splits a run: a few thousand requests at most go one by one, against the
      // 100,000 that pass through the sorted tails.
      expect(copy.mock.calls.length).toBeLessThan(10_000);
      expect(copyRange.mock.calls.length).toBeGreaterThan(0);
    } finally {
      copy.mockRestore();
      copyRange.mockRestore();
    }
  });
});
