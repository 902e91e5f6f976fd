import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { parseTrace } from '../../src/trace';
import type { BuiltTrace, KeySpec, ParseOptions } from '../../src/trace';
import type { TruthRequest } from './formats';
import { generate } from './fixtures/generate';

const dir = join(import.meta.dirname, 'fixtures');
const file = (name: string): Uint8Array => new Uint8Array(readFileSync(join(dir, name)));
const truth = JSON.parse(readFileSync(join(dir, 'truth.json'), 'utf8')) as TruthRequest[];
const expected = JSON.parse(readFileSync(join(dir, 'expected.json'), 'utf8')) as {
  count: number;
  clients: number;
  natClient: string;
  natUserAgents: number;
  msecOutOfOrder: number;
  combinedOutOfOrder: number;
  malformedLines: number[];
  statuses429: number;
};

const parse = (name: string, extra: Partial<ParseOptions> = {}): BuiltTrace =>
  parseTrace(file(name), { name, ...extra });

/** (arrival, key, status) of every request, sorted, for multiset comparison. */
function rows(t: BuiltTrace): string[] {
  const out: string[] = [];
  for (let i = 0; i < t.count; i += 1) {
    out.push(`${t.arrivalMs[i]} ${t.keys[t.keyId[i] as number]} ${t.status[i]}`);
  }
  return out.sort();
}
function truthRows(
  arrival: (r: TruthRequest) => number,
  key: (r: TruthRequest) => string,
): string[] {
  return truth.map((r) => `${arrival(r)} ${key(r)} ${r.status}`).sort();
}
function ascending(a: Float64Array): boolean {
  for (let i = 1; i < a.length; i += 1) if ((a[i] as number) < (a[i - 1] as number)) return false;
  return true;
}

describe('trace fixtures', () => {
  it('are what the generator script writes (regenerate with npm run fixtures:trace)', () => {
    for (const [name, data] of Object.entries(generate())) {
      if (name.endsWith('.gz')) {
        expect(gunzipSync(file(name)).equals(gunzipSync(data as Uint8Array)), name).toBe(true);
      } else {
        expect(readFileSync(join(dir, name), 'utf8'), name).toBe(data);
      }
    }
  });

  it('nginx main + $request_time $msec: arrival = msec − request_time, to the ms, sorted', () => {
    const t = parse('msec.log');
    expect(t.report.formatName).toBe('nginx main + $request_time $msec');
    expect(t.report.resolutionMs).toBe(1);
    expect(t.report.timeSource).toContain('$msec − $request_time');
    expect(t.count).toBe(expected.count);
    expect(rows(t)).toEqual(
      truthRows(
        (r) => r.arrivalMs,
        (r) => r.client,
      ),
    );
    expect(t.report.outOfOrder).toBe(expected.msecOutOfOrder);
    expect(ascending(t.arrivalMs)).toBe(true);
    expect(t.keys.length).toBe(expected.clients);
  });

  it('nginx combined: $time_local only, 1-second resolution, said so', () => {
    const t = parse('combined.log');
    expect(t.report.formatName).toBe('nginx combined');
    expect(t.report.resolutionMs).toBe(1000);
    expect(t.report.notes.join(' ')).toContain('1-second resolution');
    // The line's second is when the response ended (the zone −0700 is undone).
    expect(rows(t)).toEqual(
      truthRows(
        (r) => Math.floor((r.arrivalMs + r.requestTimeMs) / 1000) * 1000,
        (r) => r.client,
      ),
    );
    expect(t.report.outOfOrder).toBe(expected.combinedOutOfOrder);
  });

  it('reads gzip directly, with the same result as the plain file', () => {
    const gz = parse('combined.log.gz');
    const plain = parse('combined.log');
    expect(rows(gz)).toEqual(rows(plain));
  });

  it('keys by X-Forwarded-For first or last hop, path, or a combination', () => {
    const spec = (s: KeySpec): BuiltTrace => parse('msec.log', { keySpec: s });
    const first = spec([{ kind: 'xff-first' }]);
    const xffFirst = (r: TruthRequest): string =>
      r.xff === '' ? '-' : (r.xff.split(',')[0] as string).trim();
    expect(rows(first)).toEqual(truthRows((r) => r.arrivalMs, xffFirst));
    const last = spec([{ kind: 'xff-last' }]);
    expect(rows(last)).toEqual(
      truthRows(
        (r) => r.arrivalMs,
        (r) => (r.xff === '' ? '-' : '198.51.100.7'),
      ),
    );
    const combo = spec([{ kind: 'client' }, { kind: 'path' }]);
    expect(rows(combo)).toEqual(
      truthRows(
        (r) => r.arrivalMs,
        (r) => `${r.client} | ${r.path}`,
      ),
    );
    const field = spec([{ kind: 'field', name: 'http_user_agent' }]);
    expect(field.keys.length).toBe(new Set(truth.map((r) => r.userAgent)).size);
  });

  it('hints at NAT where many user agents share one address', () => {
    const t = parse('msec.log');
    expect(t.natHints[0]?.client).toBe(expected.natClient);
    expect(t.natHints[0]?.userAgents).toBe(expected.natUserAgents);
    expect(t.natHints.length).toBe(1);
  });

  it('ALB: arrival = request_creation_time, key = client without port, elb_status_code', () => {
    const t = parse('alb.log');
    expect(t.report.format).toBe('alb');
    expect(rows(t)).toEqual(
      truthRows(
        (r) => r.arrivalMs,
        (r) => r.client,
      ),
    );
  });

  it('HAR: startedDateTime, keyed by a request header', () => {
    const t = parse('session.har', { keySpec: [{ kind: 'field', name: 'x-api-key' }] });
    expect(t.report.format).toBe('har');
    expect(rows(t)).toEqual(
      truthRows(
        (r) => r.arrivalMs,
        (r) => r.client,
      ),
    );
  });

  it('CSV with a BOM, CRLF and a quoted newline; cost column read', () => {
    const t = parse('requests.csv');
    expect(t.report.format).toBe('csv');
    expect(t.report.malformed).toBe(0);
    expect(rows(t)).toEqual(
      truthRows(
        (r) => r.arrivalMs,
        (r) => r.client,
      ),
    );
    const costs = [...t.cost].reduce((a, b) => a + b, 0);
    expect(costs).toBe(truth.reduce((a, r) => a + r.cost, 0));
  });

  it('TSV with ISO times and JSON lines with epoch seconds', () => {
    expect(rows(parse('requests.tsv'))).toEqual(
      truthRows(
        (r) => r.arrivalMs,
        (r) => r.client,
      ),
    );
    const j = parse('requests.jsonl');
    expect(j.report.format).toBe('jsonl');
    expect(rows(j)).toEqual(
      truthRows(
        (r) => r.arrivalMs,
        (r) => r.client,
      ),
    );
  });

  it('malformed lines are counted and listed with line numbers; they never abort', () => {
    const t = parse('malformed.log');
    expect(t.count).toBe(expected.count);
    expect(t.report.malformed).toBe(expected.malformedLines.length);
    expect(t.report.malformedFirst.map((m) => m.line)).toEqual(expected.malformedLines);
    const reasons = t.report.malformedFirst.map((m) => m.reason);
    expect(reasons[0]).toContain('does not match');
    expect(reasons[1]).toContain('$msec "yesterday"');
    expect(reasons[2]).toContain('looks like JSON');
    expect(reasons[3]).toContain('before 1970');
    expect(t.report.notes.join(' ')).toContain('Mixed formats: 1 line looks like JSON');
  });

  it('the recorded 429s are kept per request', () => {
    const t = parse('msec.log');
    expect([...t.status].filter((s) => s === 429).length).toBe(expected.statuses429);
  });
});
