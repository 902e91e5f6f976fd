/**
 * The nginx and HAProxy exports key as the loaded log is replayed (src/export/replayKey.ts): the
 * exported key for each kind of replay key, and the sentence saying so where the product's config
 * cannot key by it. tests/export/replay-key.server.test.ts runs them on the real servers.
 */
import { describe, expect, it } from 'vitest';
import type { LeakyBucketConfig, SlidingWindowCounterConfig } from '../../src/core';
import { toHaproxy, toNginx } from '../../src/export';
import type { ReplayKey } from '../../src/export';

const LB: LeakyBucketConfig = {
  kind: 'leaky-bucket',
  rate: 5,
  rateUnit: 'r/s',
  burst: 0,
  delay: 0,
};
const SW: SlidingWindowCounterConfig = {
  kind: 'sliding-window-counter',
  limit: 3,
  windowMs: 10_000,
  anchor: 'entry',
};

function nginx(replayKey: ReplayKey) {
  const out = toNginx(LB, { replayKey });
  if (!out.ok) throw new Error(out.reason);
  return out;
}
function haproxy(replayKey: ReplayKey) {
  const out = toHaproxy(SW, { replayKey });
  if (!out.ok) throw new Error(out.reason);
  return out;
}
const zone = (text: string) => /^limit_req_zone (\S+) zone=/m.exec(text)?.[1];
const track = (text: string) => /http-request track-sc0 (.+)$/m.exec(text)?.[1];
const table = (text: string) => /stick-table type (.+) size /m.exec(text)?.[1];

describe('exports keyed as the replay', () => {
  it('the client address (or no log): the exports are unchanged', () => {
    for (const format of ['nginx', 'har', null] as const) {
      expect(nginx({ spec: [{ kind: 'client' }], format }).text).toBe(
        (toNginx(LB) as { text: string }).text,
      );
      expect(haproxy({ spec: [{ kind: 'client' }], format }).text).toBe(
        (toHaproxy(SW) as { text: string }).text,
      );
    }
  });

  it('first X-Forwarded-For hop: an nginx map taking the first hop; req.hdr(x-forwarded-for,1)', () => {
    const n = nginx({ spec: [{ kind: 'xff-first' }], format: 'nginx' });
    expect(n.text).toContain(
      [
        '# In the http { } block:',
        'map $http_x_forwarded_for $xff_first_hop {',
        '    "~^\\s*(?<hop>[^,]*[^,\\s])" $hop;',
        '    default "";',
        '}',
        'limit_req_zone $xff_first_hop zone=ratelimit:10m rate=5r/s;',
      ].join('\n'),
    );
    expect(n.notes[0]).toMatch(/^Keyed by first X-Forwarded-For hop/);
    const h = haproxy({ spec: [{ kind: 'xff-first' }], format: 'nginx' });
    expect(track(h.text)).toBe(
      'req.hdr(x-forwarded-for,1) if { req.hdr(x-forwarded-for,1) -m len 1: }',
    );
    expect(table(h.text)).toBe('string len 128');
  });

  it('last X-Forwarded-For hop', () => {
    const n = nginx({ spec: [{ kind: 'xff-last' }], format: 'alb' });
    expect(zone(n.text)).toBe('$xff_last_hop');
    expect(n.text).toContain('map $http_x_forwarded_for $xff_last_hop {');
    expect(track(haproxy({ spec: [{ kind: 'xff-last' }], format: 'alb' }).text)).toBe(
      'req.hdr(x-forwarded-for,-1) if { req.hdr(x-forwarded-for,-1) -m len 1: }',
    );
  });

  it('the path: $uri and HAProxy’s path', () => {
    const n = nginx({ spec: [{ kind: 'path' }], format: 'csv' });
    expect(zone(n.text)).toBe('$uri');
    expect(n.notes.join(' ')).toMatch(/percent-decoded/);
    expect(track(haproxy({ spec: [{ kind: 'path' }], format: 'csv' }).text)).toBe('path');
  });

  it('a HAR header: $http_<name> and req.fhdr(<name>,1)', () => {
    const spec = [{ kind: 'field' as const, name: 'x-api-key' }];
    expect(zone(nginx({ spec, format: 'har' }).text)).toBe('$http_x_api_key');
    const h = haproxy({ spec, format: 'har' });
    expect(track(h.text)).toBe('req.fhdr(x-api-key,1) if { req.fhdr(x-api-key,1) -m len 1: }');
    expect(table(h.text)).toBe('string len 128');
  });

  it('an nginx log’s variable: the same variable; a header variable is a header for HAProxy', () => {
    const header = [{ kind: 'field' as const, name: 'http_x_api_key' }];
    expect(zone(nginx({ spec: header, format: 'nginx' }).text)).toBe('$http_x_api_key');
    expect(track(haproxy({ spec: header, format: 'nginx' }).text)).toBe(
      'req.fhdr(x-api-key,1) if { req.fhdr(x-api-key,1) -m len 1: }',
    );
    const user = [{ kind: 'field' as const, name: 'remote_user' }];
    expect(zone(nginx({ spec: user, format: 'nginx' }).text)).toBe('$remote_user');
    const h = haproxy({ spec: user, format: 'nginx' });
    expect(track(h.text)).toBe('src');
    expect(h.differences[0]).toBe(
      'The HAProxy export keys by the client address while the replay keys by nginx variable $remote_user, which is not part of a request HAProxy sees.',
    );
  });

  it('a column of a CSV, or a field of a log not loaded here: the exports keep the address and say so', () => {
    const spec = [{ kind: 'field' as const, name: 'user' }];
    const n = nginx({ spec, format: 'csv' });
    expect(zone(n.text)).toBe('$binary_remote_addr');
    expect(n.differences[0]).toBe(
      'The nginx export keys by the client address while the replay keys by column "user" of the file, which is not part of a request nginx sees.',
    );
    const h = haproxy({ spec, format: null });
    expect(track(h.text)).toBe('src');
    expect(h.differences[0]).toBe(
      'The HAProxy export keys by the client address while the replay keys by field "user" of a log not loaded here, which is not part of a request HAProxy sees.',
    );
  });

  it('one key for everything: a constant', () => {
    expect(zone(nginx({ spec: [], format: 'nginx' }).text)).toBe('all');
    expect(track(haproxy({ spec: [], format: 'nginx' }).text)).toBe('str(all)');
  });

  it('client address + path: nginx joins the variables; HAProxy keeps src and says so', () => {
    const spec = [{ kind: 'client' as const }, { kind: 'path' as const }];
    expect(zone(nginx({ spec, format: 'nginx' }).text)).toBe('$binary_remote_addr$uri');
    const h = haproxy({ spec, format: 'nginx' });
    expect(track(h.text)).toBe('src');
    expect(h.differences[0]).toMatch(
      /^The HAProxy export keys by the client address while the replay keys by client address \+ path/,
    );
  });
});
