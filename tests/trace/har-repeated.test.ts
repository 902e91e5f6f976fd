/**
 * A HAR request that sends a header on several lines is keyed by what the proxies read (nginx
 * 1.22.1 src/http/ngx_http_variables.c: X-Forwarded-For's lines joined with ", ", Cookie's with
 * "; ", any other header's first line; HAProxy 2.6 req.fhdr(<name>,1): the first line). The
 * decisions on real nginx and haproxy are in tests/export/replay-key.server.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { haproxyReplayKey } from '../../src/export/replayKey';
import { headerValue, parseHar } from '../../src/trace/har';
import type { RequestRecord } from '../../src/trace/record';

function harOf(headers: Array<{ name: string; value: string }>): string {
  return JSON.stringify({
    log: {
      entries: [
        {
          startedDateTime: '2026-12-06T18:00:00.000Z',
          request: { url: 'http://example.test/a', headers },
          response: { status: 200 },
        },
      ],
    },
  });
}

describe('a header sent on several lines', () => {
  const { records } = parseHar(
    harOf([
      { name: 'X-Forwarded-For', value: 'e, p1' },
      { name: 'X-Api-Key', value: 'k4' },
      { name: 'x-forwarded-for', value: 'a' },
      { name: 'Cookie', value: 's=1' },
      { name: 'X-Api-Key', value: 'k1' },
      { name: 'cookie', value: 't=2' },
      { name: 'User-Agent', value: 'first' },
      { name: 'User-Agent', value: 'second' },
    ]),
  );
  const r = records[0] as RequestRecord;

  it('X-Forwarded-For: every line joined with ", " (first hop of the first line, last of the last)', () => {
    expect(r.xff).toBe('e, p1, a');
    expect(r.field('X-Forwarded-For')).toBe('e, p1, a');
  });

  it('Cookie: joined with "; "; any other header: its first line', () => {
    expect(r.field('cookie')).toBe('s=1; t=2');
    expect(r.field('x-api-key')).toBe('k4');
    expect(r.userAgent).toBe('first');
    expect(r.field('x-missing')).toBeUndefined();
  });

  it('one line is that line; none is undefined', () => {
    expect(headerValue(['a, b'], 'x-forwarded-for')).toBe('a, b');
    expect(headerValue([], 'x-api-key')).toBeUndefined();
    expect(headerValue(undefined, 'cookie')).toBeUndefined();
  });

  it('the HAProxy export keyed by X-Forwarded-For as a whole says it reads the first line only', () => {
    const k = haproxyReplayKey({
      spec: [{ kind: 'field', name: 'x-forwarded-for' }],
      format: 'har',
    });
    if ('gap' in k) throw new Error(k.gap);
    expect(k.fetch).toBe('req.fhdr(x-forwarded-for,1)');
    expect(k.note).toMatch(
      /on several lines is keyed by its first line only; the replay joins them/,
    );
    const other = haproxyReplayKey({ spec: [{ kind: 'field', name: 'x-api-key' }], format: 'har' });
    if ('gap' in other) throw new Error(other.gap);
    expect(other.note).not.toMatch(/several lines/);
  });
});
