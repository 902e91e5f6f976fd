/**
 * A held log read in shrinking byte ranges, parts merged in file order as they come
 * (src/trace/heldRanges.ts): the same trace as one stream, whatever order the ranges finish in;
 * the first parts merged while later ranges are still being read; the request cap still names the
 * line a single stream stops at.
 */
import { describe, expect, it } from 'vitest';
import { TraceStream, parseTrace, simTraceOf } from '../../src/trace';
import type { BuiltTrace, KeySpec, ParseOptions, TracePart } from '../../src/trace';
import { nextRangeBytes, readHeldInRanges } from '../../src/trace/heldRanges';
import type { RangeReader } from '../../src/trace/streamRead';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

/** Combined lines, some blank, malformed or of another format, times a little out of order. */
function log(n: number): string {
  const out: string[] = [];
  for (let i = 0; i < n; i += 1) {
    const s = 1_767_571_200 + Math.floor(i / 10) - (i % 97 === 0 ? 30 : 0);
    if (i % 53 === 0) out.push('');
    if (i % 71 === 0) out.push(`garbage line ${i}`);
    if (i % 89 === 0) out.push('{"time":"2026-01-05T00:00:00Z"}');
    // Now and then one far back (an hour): once the window has let requests out (past its
    // 32,768-request tail), outside it, sorted into place at the end.
    const far = i % 1_009 === 500 ? 3_600 : 0;
    out.push(
      `10.0.${i % 5}.${i % 11} - - [05/Jan/2026:00:00:00 +0000] "GET /p${i % 3} HTTP/1.1" ${i % 13 === 0 ? 429 : 200} 1 "-" "UA${i % 23}" "-" 0.00${i % 10} ${s - far}.${String(i % 1000).padStart(3, '0')}`,
    );
  }
  return out.join('\n');
}

/** Parses bytes [start, end) as a range worker does, in pieces. */
function readPart(bytes: Uint8Array, start: number, end: number, options: ParseOptions): TracePart {
  const s = new TraceStream({ ...options, rangeStart: start });
  const range = bytes.subarray(start, end);
  for (let j = 0; j < range.length; j += 7_919) s.push(range.subarray(j, j + 7_919));
  return s.finishPart();
}

/**
 * A range reader whose reads finish in the order `order` gives (the k-th read asked for is the
 * `order(k)`-th to finish among those in flight), recording every event.
 */
function scrambledReader(
  bytes: Uint8Array,
  events: string[],
  lastFirst: boolean,
): { read: RangeReader; settle: () => void } {
  const waiting: { k: number; done: () => void }[] = [];
  let asked = 0;
  const settle = (): void => {
    // The newest read asked for finishes first when `lastFirst`, else the oldest.
    const next = lastFirst ? waiting.pop() : waiting.shift();
    next?.done();
  };
  const read: RangeReader = (start, end, options) => {
    const k = asked;
    asked += 1;
    events.push(`ask ${k}`);
    return new Promise<TracePart>((resolve) => {
      waiting.push({
        k,
        done: () => {
          events.push(`read ${k}`);
          resolve(readPart(bytes, start, end, options));
        },
      });
      // Each ask lets one read finish a moment later.
      setTimeout(settle, 0);
    });
  };
  return { read, settle };
}

async function inRanges(
  bytes: Uint8Array,
  keySpec: KeySpec,
  lastFirst: boolean,
  events: string[] = [],
  maxRequests?: number,
  /** Cut ranges of 20–120 kB (many), or by default one range per reader. */
  small = true,
): Promise<BuiltTrace> {
  const head = new TextDecoder().decode(bytes.subarray(0, 128 * 1024));
  const opts: ParseOptions = {
    name: 'p.log',
    keySpec,
    detectFrom: head,
    ...(maxRequests === undefined ? {} : { maxRequests }),
  };
  const { read } = scrambledReader(bytes, events, lastFirst);
  let merged = 0;
  const file = new File([bytes as Uint8Array<ArrayBuffer>], 'p.log');
  return readHeldInRanges(file, opts, {
    parallel: 2,
    readRange: read,
    recycle: () => {
      events.push(`merged ${merged}`);
      merged += 1;
    },
    ...(small ? { leastBytes: 20_000, mostBytes: 120_000 } : {}),
  });
}

/** The trace read in ranges equals the one read whole, field for field (times compared as arrays). */
function expectSameTrace(merged: BuiltTrace, whole: BuiltTrace): void {
  expect({ ...merged, arrivalMs: [...merged.arrivalMs] }).toEqual({
    ...whole,
    arrivalMs: [...whole.arrivalMs],
  });
}
/**
 * A range reader for two ranges that hands on each range's requests in chunks of at least `least`
 * as it reads them (as the page's range workers do when asked), each chunk and the part a message
 * of its own. Once both ranges are asked for, their messages come one a task, alternating, the
 * second range's first: the second range's first chunks come before the first range ends (kept
 * until it is merged), its last ones after (merged as they come).
 */
function chunkingReader(bytes: Uint8Array, least: number, events: string[]): RangeReader {
  const messages: (() => void)[][] = [];
  const deliver = (): void => {
    const order = [messages[1] ?? [], messages[0] ?? []];
    let turn = 0;
    const step = (): void => {
      const from = order[turn % 2]?.length ? order[turn % 2] : order[(turn + 1) % 2];
      turn += 1;
      from?.shift()?.();
      if (order.some((m) => m.length > 0)) setTimeout(step, 0);
    };
    setTimeout(step, 0);
  };
  return (start, end, options, onChunk) => {
    const k = messages.length;
    events.push(`ask ${k}`);
    const s = new TraceStream({ ...options, rangeStart: start, rangeBytes: end - start });
    const range = bytes.subarray(start, end);
    const mine: (() => void)[] = [];
    messages.push(mine);
    let j = 0;
    for (let at = 0; at < range.length; at += 7_919) {
      s.push(range.subarray(at, at + 7_919));
      const c = onChunk === undefined ? null : s.takeRangeChunk(least);
      if (c === null) continue;
      const name = `chunk ${k}.${j}`;
      const read = Math.min(range.length, at + 7_919);
      mine.push(() => {
        events.push(name);
        onChunk?.(c, read);
      });
      j += 1;
    }
    const part = s.finishPart();
    const done = new Promise<TracePart>((resolve) => {
      mine.push(() => {
        events.push(`read ${k}`);
        resolve(part);
      });
    });
    if (messages.length === 2) deliver();
    return done;
  };
}

describe('a held log read in shrinking ranges, merged as the parts come', () => {
  it('ranges shrink from the most to the least as the file is cut', () => {
    expect(nextRangeBytes(1_000_000_000, 2, 1_000, 64_000_000)).toBe(64_000_000);
    expect(nextRangeBytes(100_000_000, 2, 1_000, 64_000_000)).toBe(25_000_000);
    expect(nextRangeBytes(1_024, 2, 8_000, 64_000_000)).toBe(8_000);
    expect(nextRangeBytes(400_000, 4, 10_000, 1_000_000)).toBe(50_000);
  });

  for (const keySpec of [
    [{ kind: 'client' }],
    [{ kind: 'path' }],
    [{ kind: 'xff-first' }],
  ] as KeySpec[]) {
    for (const lastFirst of [false, true]) {
      it(`equal one stream (key ${keySpec[0]?.kind}, ${lastFirst ? 'later ranges read first' : 'ranges read in order'})`, async () => {
        const bytes = enc(log(40_000));
        const whole = parseTrace(bytes, { name: 'p.log', keySpec });
        expect(whole.report.malformed).toBeGreaterThan(100);
        expect(whole.report.outOfOrder).toBeGreaterThan(0);
        expect(whole.report.outsideWindow).toBeGreaterThan(0);
        const events: string[] = [];
        const merged = await inRanges(bytes, keySpec, lastFirst, events);
        // Many ranges, not one per reader.
        expect(events.filter((e) => e.startsWith('ask')).length).toBeGreaterThan(8);
        expectSameTrace(merged, whole);
        expect(simTraceOf(merged).hash).toBe(simTraceOf(whole).hash);
      });
    }
  }

  it('by default, one range per reader: the file cut in equal ranges at line ends', async () => {
    const bytes = enc(log(40_000));
    const whole = parseTrace(bytes, { name: 'p.log', keySpec: [{ kind: 'client' }] });
    for (const lastFirst of [false, true]) {
      const events: string[] = [];
      const merged = await inRanges(
        bytes,
        [{ kind: 'client' }],
        lastFirst,
        events,
        undefined,
        false,
      );
      expect(events.filter((e) => e.startsWith('ask'))).toEqual(['ask 0', 'ask 1']);
      // The first range read first is merged before the second is read.
      if (!lastFirst) expect(events.indexOf('merged 0')).toBeLessThan(events.indexOf('read 1'));
      expectSameTrace(merged, whole);
    }
  });

  it('cuts a range where a line start read ahead (lineStart) says, the same trace', async () => {
    const bytes = enc(log(40_000));
    const whole = parseTrace(bytes, { name: 'p.log', keySpec: [{ kind: 'client' }] });
    const head = new TextDecoder().decode(bytes.subarray(0, 128 * 1024));
    const opts: ParseOptions = { name: 'p.log', keySpec: [{ kind: 'client' }], detectFrom: head };
    const file = new File([bytes as Uint8Array<ArrayBuffer>], 'p.log');
    const firstBytes = Math.ceil(bytes.length * 0.475);
    // The cut read ahead: three lines past the next line start after the first range's share.
    let ahead = firstBytes;
    for (let lines = 0; lines < 4; lines += 1) ahead = bytes.indexOf(10, ahead) + 1;
    const asked: number[] = [];
    const ranges: [number, number][] = [];
    const merged = await readHeldInRanges(file, opts, {
      parallel: 2,
      firstBytes,
      readRange: (start, end, options) => {
        ranges.push([start, end]);
        return Promise.resolve(readPart(bytes, start, end, options));
      },
      lineStart: (at) => {
        asked.push(at);
        return Promise.resolve(at === firstBytes ? ahead : bytes.length);
      },
    });
    expect(asked).toEqual([firstBytes, bytes.length]);
    expect(ranges).toEqual([
      [0, ahead],
      [ahead, bytes.length],
    ]);
    expectSameTrace(merged, whole);
  });

  it('merges the first parts while later ranges are still being read', async () => {
    const events: string[] = [];
    await inRanges(enc(log(6_000)), [{ kind: 'client' }], false, events);
    const asks = events.filter((e) => e.startsWith('ask')).length;
    // The first part is merged before the last range is even asked for, let alone read.
    expect(events.indexOf('merged 0')).toBeLessThan(events.indexOf(`ask ${asks - 1}`));
    // Never more than two ranges per reader asked for and not yet merged.
    let open = 0;
    for (const e of events) {
      if (e.startsWith('ask')) open += 1;
      if (e.startsWith('merged')) open -= 1;
      expect(open).toBeLessThanOrEqual(4);
    }
  });

  for (const keySpec of [[{ kind: 'client' }], [{ kind: 'xff-first' }]] as KeySpec[]) {
    it(`read in chunks, a small first range: equal one stream (key ${keySpec[0]?.kind})`, async () => {
      const bytes = enc(log(40_000));
      const whole = parseTrace(bytes, { name: 'p.log', keySpec });
      expect(whole.report.outsideWindow).toBeGreaterThan(0);
      const head = new TextDecoder().decode(bytes.subarray(0, 128 * 1024));
      const opts: ParseOptions = { name: 'p.log', keySpec, detectFrom: head };
      const file = new File([bytes as Uint8Array<ArrayBuffer>], 'p.log');
      const events: string[] = [];
      const merged = await readHeldInRanges(file, opts, {
        parallel: 2,
        readRange: chunkingReader(bytes, 3_000, events),
        firstBytes: Math.ceil(bytes.length * 0.4),
        chunked: true,
      });
      expect(events.filter((e) => e.startsWith('ask'))).toEqual(['ask 0', 'ask 1']);
      // Chunks of both ranges came, the second range's first before the first range ended.
      expect(events.filter((e) => e.startsWith('chunk 0.')).length).toBeGreaterThan(3);
      expect(events.filter((e) => e.startsWith('chunk 1.')).length).toBeGreaterThan(3);
      expect(events.indexOf('chunk 1.0')).toBeLessThan(events.indexOf('read 0'));
      // … and its last after it (merged as it came).
      const second = events.filter((e) => e.startsWith('chunk 1.'));
      expect(events.indexOf(second[second.length - 1] ?? '')).toBeGreaterThan(
        events.indexOf('read 0'),
      );
      expectSameTrace(merged, whole);
      expect(simTraceOf(merged).hash).toBe(simTraceOf(whole).hash);
    });
  }

  it('read in chunks, the request cap names the line a single stream stops at', async () => {
    const bytes = enc(log(3_000));
    let one = '';
    try {
      parseTrace(bytes, { name: 'p.log', maxRequests: 2_000 });
    } catch (e) {
      one = (e as Error).message;
    }
    const named = one.slice(0, one.indexOf(' Reading stopped'));
    expect(named).toMatch(/line [\d,]+ would be one more\./);
    const head = new TextDecoder().decode(bytes.subarray(0, 128 * 1024));
    const file = new File([bytes as Uint8Array<ArrayBuffer>], 'p.log');
    await expect(
      readHeldInRanges(
        file,
        { name: 'p.log', detectFrom: head, maxRequests: 2_000 },
        {
          parallel: 2,
          readRange: chunkingReader(bytes, 300, []),
          firstBytes: Math.ceil(bytes.length * 0.4),
          chunked: true,
        },
      ),
    ).rejects.toThrow(named);
  });

  it('the request cap names the line a single stream stops at', async () => {
    const bytes = enc(log(3_000));
    let one = '';
    try {
      parseTrace(bytes, { name: 'p.log', maxRequests: 2_000 });
    } catch (e) {
      one = (e as Error).message;
    }
    // A single stream adds where reading stopped; the merge names the same line.
    const named = one.slice(0, one.indexOf(' Reading stopped'));
    expect(named).toMatch(/line [\d,]+ would be one more\. Split the log or filter it first\.$/);
    await expect(inRanges(bytes, [{ kind: 'client' }], true, [], 2_000)).rejects.toThrow(named);
  });
});
