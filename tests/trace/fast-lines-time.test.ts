/**
 * The byte reader (src/trace/fastLines.ts) reads `$time_local` against the day and zone it last
 * saw, a word at a time, and hashes the address and user agent as it scans them. These check the
 * times against known answers (Date.UTC of the instant the text names) and against the string
 * reader: a day boundary, zones changing mid-file (+0530, -0930, +1400, -1200), a day that comes
 * back after another, malformed times right after a cached day, and user agents of every length
 * read once each way (a byte-read line and a string-read line must give one hash, not two).
 */
import { describe, expect, it } from 'vitest';
import { parseTrace } from '../../src/trace';
import type { BuiltTrace, KeySpec } from '../../src/trace';
import { agentHash } from '../../src/trace/builder';
import { KeyTable } from '../../src/trace/fastLines';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

function read(text: string, keySpec: KeySpec): BuiltTrace | string {
  try {
    return parseTrace(enc(text), { name: 'x.log', keySpec });
  } catch (e) {
    return (e as Error).message;
  }
}

function view(t: BuiltTrace | string): unknown {
  if (typeof t === 'string') return t;
  return {
    count: t.count,
    arrival: [...t.arrivalMs],
    key: [...t.keyId],
    keys: t.keys,
    status: [...t.status],
    nat: t.natHints,
    report: t.report,
  };
}

const line = (addr: string, time: string, request = 'GET / HTTP/1.1', ua = 'curl/8'): string =>
  `${addr} - - [${time}] "${request}" 200 5 "-" "${ua}"`;

/** Each line's arrival read by the byte reader, and the string reader's trace equal to it. */
function arrivals(lines: string[]): { fast: BuiltTrace; times: number[] } {
  const text = lines.join('\n');
  const fast = read(text, [{ kind: 'client' }]);
  const slow = read(text, [{ kind: 'field', name: 'remote_addr' }]);
  expect(typeof fast === 'string' ? fast : 'read').toBe('read');
  expect(view(fast)).toEqual(view(slow));
  const t = fast as BuiltTrace;
  // Addresses are the line numbers: each line's time, whatever the sort did.
  const times: number[] = [];
  for (let i = 0; i < t.count; i += 1) {
    times[Number((t.keys[t.keyId[i] as number] as string).split('.')[3])] = t.arrivalMs[
      i
    ] as number;
  }
  return { fast: t, times };
}

describe('the byte reader’s $time_local', () => {
  it('reads across a day boundary, a month and a year as the instants they name', () => {
    const { times } = arrivals([
      line('10.0.0.0', '31/Dec/2025:23:59:58 +0000'),
      line('10.0.0.1', '31/Dec/2025:23:59:59 +0000'),
      line('10.0.0.2', '01/Jan/2026:00:00:00 +0000'),
      line('10.0.0.3', '01/Jan/2026:00:00:01 +0000'),
      line('10.0.0.4', '31/Jan/2026:23:59:59 +0000'),
      line('10.0.0.5', '01/Feb/2026:00:00:00 +0000'),
    ]);
    expect(times).toEqual([
      Date.UTC(2025, 11, 31, 23, 59, 58),
      Date.UTC(2025, 11, 31, 23, 59, 59),
      Date.UTC(2026, 0, 1, 0, 0, 0),
      Date.UTC(2026, 0, 1, 0, 0, 1),
      Date.UTC(2026, 0, 31, 23, 59, 59),
      Date.UTC(2026, 1, 1, 0, 0, 0),
    ]);
  });

  it('reads a zone that changes mid-file (the same day text, another offset), both ways', () => {
    const hm = (h: number, m: number): number => (h * 60 + m) * 60_000;
    const { times } = arrivals([
      line('10.0.0.0', '05/Jan/2026:12:00:00 +0000'),
      line('10.0.0.1', '05/Jan/2026:12:00:00 +0530'),
      line('10.0.0.2', '05/Jan/2026:12:00:00 -0930'),
      line('10.0.0.3', '05/Jan/2026:12:00:00 -0930'),
      line('10.0.0.4', '05/Jan/2026:12:00:00 +0930'),
      line('10.0.0.5', '05/Jan/2026:12:00:00 +1400'),
      line('10.0.0.6', '05/Jan/2026:12:00:00 -1200'),
      line('10.0.0.7', '05/Jan/2026:12:00:00 +0000'),
    ]);
    const noon = Date.UTC(2026, 0, 5, 12, 0, 0);
    expect(times).toEqual([
      noon,
      noon - hm(5, 30),
      noon + hm(9, 30),
      noon + hm(9, 30),
      noon - hm(9, 30),
      noon - hm(14, 0),
      noon + hm(12, 0),
      noon,
    ]);
  });

  it('reads a day that comes back after another (the cache holds one day) as the same instant', () => {
    const { times } = arrivals([
      line('10.0.0.0', '05/Jan/2026:00:00:10 +0000'),
      line('10.0.0.1', '06/Jan/2026:00:00:10 +0000'),
      line('10.0.0.2', '05/Jan/2026:00:00:10 +0000'),
      line('10.0.0.3', '05/Feb/2026:00:00:10 +0000'),
      line('10.0.0.4', '05/Jan/2027:00:00:10 +0000'),
    ]);
    expect(times).toEqual([
      Date.UTC(2026, 0, 5, 0, 0, 10),
      Date.UTC(2026, 0, 6, 0, 0, 10),
      Date.UTC(2026, 0, 5, 0, 0, 10),
      Date.UTC(2026, 1, 5, 0, 0, 10),
      Date.UTC(2027, 0, 5, 0, 0, 10),
    ]);
  });

  it('refuses a malformed clock or zone after a cached day, as the string reader does', () => {
    const good = '05/Jan/2026:10:00:00 +0000';
    const bad = [
      '05/Jan/2026:24:00:00 +0000',
      '05/Jan/2026:10:60:00 +0000',
      '05/Jan/2026:10:00:61 +0000',
      '05/Jan/2026:1a:00:00 +0000',
      '05/Jan/2026 10:00:00 +0000',
      '05/Jan/2026:10-00:00 +0000',
      '05/Jan/2026:10:00:00 *0000',
      '05/Jan/2026:10:00:00 +00x0',
      '05/Jan/2026:10:00:00  0000',
      '05/Jnn/2026:10:00:00 +0000',
      '05/Jan/2026:10:00:00 +000',
    ];
    const lines = [line('10.0.0.0', good)];
    bad.forEach((t, i) => lines.push(line(`10.0.0.${i + 1}`, t), line('10.0.0.0', good)));
    const { fast } = arrivals(lines);
    expect(fast.count).toBe(bad.length + 1);
    expect(fast.report.malformed).toBe(bad.length);
  });
});

describe('user-agent hashes: the byte reader’s equal the string reader’s', () => {
  it('counts an agent read once from bytes and once as text as one agent, at every length', () => {
    // One address, 40 agents of lengths 1 – 40; each on a plain line (byte reader) and on a line
    // the byte reader leaves to the string reader (a non-ASCII request).
    const lines: string[] = [];
    for (let n = 1; n <= 40; n += 1) {
      const ua = 'Mozilla/5.0 (X11; Linux x86_64) Gecko/20100101'.slice(0, n);
      lines.push(line('10.0.0.1', '05/Jan/2026:10:00:00 +0000', 'GET / HTTP/1.1', ua));
      lines.push(line('10.0.0.1', '05/Jan/2026:10:00:01 +0000', 'GET /é HTTP/1.1', ua));
    }
    const text = lines.join('\n');
    const fast = read(text, [{ kind: 'client' }]) as BuiltTrace;
    const slow = read(text, [{ kind: 'field', name: 'remote_addr' }]) as BuiltTrace;
    expect(fast.natHints).toEqual([{ client: '10.0.0.1', userAgents: 40, requests: 80 }]);
    expect(slow.natHints).toEqual(fast.natHints);
  });

  it('gives agents that differ in one character, at any position, different hashes', () => {
    const base = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4_1 like Mac OS X)';
    const seen = new Set<number>([agentHash(base)]);
    for (let i = 0; i < base.length; i += 1) {
      for (const c of ['a', 'Z', '0', ' ', '~']) {
        const ua = base.slice(0, i) + c + base.slice(i + 1);
        if (ua !== base) seen.add(agentHash(ua));
      }
      seen.add(agentHash(base.slice(0, i)));
    }
    // Every variant distinct: 5 per position (less the few equal to the base) and each prefix.
    let variants = 1 + base.length;
    for (let i = 0; i < base.length; i += 1) {
      variants += ['a', 'Z', '0', ' ', '~'].filter((c) => c !== base[i]).length;
    }
    expect(seen.size).toBe(variants);
  });
});

describe('the byte reader’s short literals and key table, a word at a time', () => {
  it('reads a literal of 2 – 4 bytes as the string reader does, at the very end of the file too', () => {
    for (const lit of [';;', ';;;', ';;;;', ';;;;;']) {
      const format = `$remote_addr [$time_local] $status${lit}`;
      const ok = (i: number): string => `10.0.0.${i} [05/Jan/2026:10:00:0${i} +0000] 200${lit}`;
      // A wrong byte at each place of the literal, then a good line that ends the file.
      const lines = [ok(1)];
      for (let j = 0; j < lit.length; j += 1) {
        lines.push(ok(2).slice(0, -lit.length) + lit.slice(0, j) + 'x' + lit.slice(j + 1));
      }
      lines.push(ok(3));
      for (const end of ['\n', '\r\n', '']) {
        const text = lines.join('\n') + end;
        const opts = { name: 'x.log', logFormat: format };
        const fast = parseTrace(enc(text), { ...opts, keySpec: [{ kind: 'client' }] });
        const slow = parseTrace(enc(text), {
          ...opts,
          keySpec: [{ kind: 'field', name: 'remote_addr' }],
        });
        expect(view(fast), `${lit} ${JSON.stringify(end)}`).toEqual(view(slow));
        expect(fast.count).toBe(2);
        expect(fast.report.malformed).toBe(lit.length);
      }
    }
  });

  it('tells apart keys of one hash that differ in any byte, whole words and the tail', () => {
    const t = new KeyTable();
    const keys: Uint8Array[] = [];
    for (let len = 1; len <= 13; len += 1) {
      for (let at = 0; at < len; at += 1) {
        const k = enc('a'.repeat(len));
        k[at] = 98;
        keys.push(k);
      }
      keys.push(enc('a'.repeat(len)));
    }
    // Every key under one hash: only the bytes tell them apart. Keys sit at odd offsets of a
    // larger array (as in a file's bytes), so no word is aligned.
    keys.forEach((k, i) => {
      const b = new Uint8Array(k.length + 3);
      b.set(k, 3);
      expect(t.find(b, 3, 3 + k.length, 7)).toBe(-1);
      t.add(b, 3, 3 + k.length, 7, i);
    });
    keys.forEach((k, i) => {
      const b = new Uint8Array(k.length + 1);
      b.set(k, 1);
      expect(t.find(b, 1, 1 + k.length, 7)).toBe(i);
    });
  });
});
