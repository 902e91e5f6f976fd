import { describe, expect, it } from 'vitest';
import { parseTrace } from '../../src/trace';

const enc = (s: string) => new TextEncoder().encode(s);
const T = 1_700_000_000_000;

describe('key columns', () => {
  it('a CSV whose key column is called `key` is keyed by it (2,000 requests, 50 keys)', () => {
    const rows = Array.from({ length: 2000 }, (_, i) => `${T + i},k${i % 50},200`);
    const t = parseTrace(enc(['timestamp,key,status', ...rows].join('\n')), { name: 'a.csv' });
    expect(t.count).toBe(2000);
    expect(t.keys.length).toBe(50);
    expect(t.report.timeSource).toContain('the client is column "key"');
  });

  it.each(['user', 'user_id', 'api_key', 'apikey', 'token', 'tenant', 'X-API-Key'])(
    'recognises a column named %s (TSV)',
    (name) => {
      const rows = Array.from({ length: 30 }, (_, i) => `${T + i}\tu${i % 3}`);
      const t = parseTrace(enc([`time\t${name}`, ...rows].join('\n')), { name: 'a.tsv' });
      expect(t.keys.length).toBe(3);
    },
  );

  it('an address column still wins over a key column', () => {
    const rows = Array.from({ length: 10 }, (_, i) => `${T + i},10.0.0.${i % 2},u${i % 5}`);
    const t = parseTrace(enc(['time,remote_addr,user', ...rows].join('\n')), { name: 'a.csv' });
    expect(t.keys.length).toBe(2);
  });

  it('lists the columns, and any column can be the key', () => {
    const rows = Array.from({ length: 12 }, (_, i) => `${T + i},10.0.0.1,tier${i % 4},/p`);
    const text = ['time,ip,plan,path', ...rows].join('\n');
    const t = parseTrace(enc(text), { name: 'a.csv' });
    expect(t.report.keyFields).toEqual(['time', 'ip', 'plan', 'path']);
    expect(t.keys).toEqual(['10.0.0.1']);
    const byPlan = parseTrace(enc(text), {
      name: 'a.csv',
      keySpec: [{ kind: 'field', name: 'plan' }],
    });
    expect(byPlan.keys.length).toBe(4);
  });

  it('JSON lines: recognises api_key, lists the first object’s fields', () => {
    const lines = Array.from({ length: 9 }, (_, i) =>
      JSON.stringify({ ts: T + i, api_key: `k${i % 3}`, route: '/x' }),
    );
    const t = parseTrace(enc(lines.join('\n')), { name: 'a.jsonl' });
    expect(t.keys.length).toBe(3);
    expect(t.report.keyFields).toEqual(['ts', 'api_key', 'route']);
  });

  it('HAR: lists the request headers seen and keys by any of them', () => {
    const entry = (i: number) => ({
      startedDateTime: new Date(T + i).toISOString(),
      request: {
        url: 'https://example.test/a',
        headers: [
          { name: 'X-API-Key', value: `key${i % 2}` },
          { name: 'Accept', value: '*/*' },
        ],
      },
      response: { status: 200 },
    });
    const har = JSON.stringify({ log: { entries: Array.from({ length: 6 }, (_, i) => entry(i)) } });
    const t = parseTrace(enc(har), {
      name: 'a.har',
      keySpec: [{ kind: 'field', name: 'x-api-key' }],
    });
    expect(t.report.keyFields).toEqual(['x-api-key', 'accept']);
    expect(t.keys.sort()).toEqual(['key0', 'key1']);
  });
});
