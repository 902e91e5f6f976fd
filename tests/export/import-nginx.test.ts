import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatImportError, importNginx } from '../../src/export';

function errorsOf(text: string): string[] {
  const r = importNginx(text);
  return r.ok ? [] : r.errors.map(formatImportError);
}

describe('importNginx', () => {
  it('reads the limit_req lines out of a whole http block, skipping everything else', () => {
    const r = importNginx(`
http {
    # one bucket per client address
    limit_req_zone $binary_remote_addr zone=one:10m rate=5r/s;
    server {
        listen 80;
        location /search/ {
            limit_req zone=one burst=5 delay=3;
            limit_req_status 429;
            proxy_pass http://backend;
        }
    }
}`);
    expect(r).toEqual({
      ok: true,
      config: {
        kind: 'leaky-bucket',
        rate: 5,
        rateUnit: 'r/s',
        burst: 5,
        delay: 3,
        limitReqStatus: 429,
      },
      extras: { key: '$binary_remote_addr', zone: 'one', zoneSize: '10m' },
      warnings: [],
    });
  });

  it("takes nginx's defaults: no burst, delay 0, status 503 (left unset), rate=N meaning N r/s", () => {
    const r = importNginx('limit_req_zone $uri zone=z:1m rate=12;\nlimit_req zone=z;');
    expect(r.ok && r.config).toEqual({
      kind: 'leaky-bucket',
      rate: 12,
      rateUnit: 'r/s',
      burst: 0,
      delay: 0,
    });
  });

  it('handles quotes, ${var} keys and, as nginx, lets the last of delay= and nodelay win', () => {
    const r = importNginx(`limit_req_zone "$http_x_key $uri" zone=k:64k rate=90r/m;
limit_req_zone \${binary_remote_addr}x zone=other:64k rate=1r/s;
limit_req zone=k delay=1 nodelay;`);
    expect(r.ok && r.config).toEqual({
      kind: 'leaky-bucket',
      rate: 90,
      rateUnit: 'r/m',
      burst: 0,
      delay: 'nodelay',
    });
    expect(r.ok && r.extras).toEqual({ key: '$http_x_key $uri', zone: 'k', zoneSize: '64k' });
  });

  it('points at the line and column of what is wrong and says what was expected', () => {
    expect(
      errorsOf('limit_req_zone $binary_remote_addr zone=one:10m rate=10r/h;\nlimit_req zone=one;'),
    ).toEqual(['1:54 expected rate=<n>r/s or r/m, got "10r/h"']);
    expect(
      errorsOf('limit_req_zone $a zone=one:10m rate=1r/s;\n  limit_req zone=one burst=0;'),
    ).toEqual(['2:28 expected burst=<n> with n from 1 to 1000000, got "0"']);
    expect(errorsOf('limit_req_zone $a zone=one:10m rate=1r/s;\nlimit_req zone=two;')).toEqual([
      '2:16 unknown limit_req_zone "two": expected one of "one"',
    ]);
    expect(errorsOf('limit_req_zone $a zone=one:8k rate=1r/s;')).toEqual([
      '1:28 zone "one" is too small: nginx needs at least 32k, got "8k"',
    ]);
    expect(errorsOf('limit_req_zone $a zone=one:1m rate=1r/s;')).toEqual([
      '1:1 expected a limit_req zone=one line to go with this zone',
    ]);
    expect(errorsOf('limit_req_zone $a zone=one:1m rate=1r/s\nlimit_req zone=one;')).toEqual([
      '2:1 expected ";" after "rate=1r/s" (limit_req_zone takes <key> zone=<name>:<size> rate=<n>r/s), got "limit_req"',
    ]);
    expect(errorsOf('limit_req_zone zone=one:1m rate=1r/s;')).toEqual([
      '1:1 expected limit_req_zone <key> zone=<name>:<size> rate=<n>r/s; got 2 arguments',
    ]);
    expect(errorsOf('limit_req zone=one nodelay')).toEqual([
      '1:27 expected ";" after "nodelay", got the end of the text',
    ]);
    expect(errorsOf('limit_req zone=one fast;')).toEqual([
      '1:20 expected zone=, burst=, delay= or nodelay, got "fast"',
    ]);
    expect(errorsOf('limit_req_status 302;')).toEqual([
      '1:18 expected a status code from 400 to 599, got "302"',
    ]);
    expect(errorsOf('listen 80;')).toEqual([
      '1:1 expected a limit_req_zone line and a limit_req line',
    ]);
    expect(errorsOf('limit_req_zone "$a zone=one:1m rate=1r/s;')).toEqual([
      '1:16 unterminated double-quoted string',
    ]);
  });

  it('reports every bad directive, in order', () => {
    expect(errorsOf('limit_req_zone $a zone=one rate=1r/s;\nlimit_req zone=one delay=x;')).toEqual([
      '1:24 expected zone=<name>:<size> (e.g. zone=one:10m), got "one"',
      '2:26 expected delay=<n> with n from 1 to 1000000, got "x"',
    ]);
  });

  it('refuses more arguments than nginx takes (limit_req is TAKE123)', () => {
    expect(
      errorsOf('limit_req_zone $a zone=a:1m rate=1r/s;\nlimit_req zone=a burst=2 delay=1 nodelay;'),
    ).toEqual(['2:34 expected limit_req zone=<name> [burst=<n>] [nodelay | delay=<n>]']);
  });

  it('turns several limit_req lines into several limiters, each with its own zone', () => {
    const r = importNginx(
      [
        'limit_req_zone $binary_remote_addr zone=perip:10m rate=5r/s;',
        'limit_req_zone $server_name zone=perserver:10m rate=100r/s;',
        'limit_req_status 429;',
        'limit_req zone=perip burst=10 nodelay;',
        'limit_req zone=perserver burst=50 delay=20;',
      ].join('\n'),
    );
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.lanes?.map((l) => l.config)).toEqual([
      {
        kind: 'leaky-bucket',
        rate: 5,
        rateUnit: 'r/s',
        burst: 10,
        delay: 'nodelay',
        limitReqStatus: 429,
      },
      {
        kind: 'leaky-bucket',
        rate: 100,
        rateUnit: 'r/s',
        burst: 50,
        delay: 20,
        limitReqStatus: 429,
      },
    ]);
    expect(r.lanes?.map((l) => l.extras.zone)).toEqual(['perip', 'perserver']);
    expect(r.config).toEqual(r.lanes?.[0]?.config);
    expect(r.warnings.map(formatImportError)).toEqual([
      '5:1 2 limit_req lines become 2 limiters to compare side by side; nginx applies all of them to each request of a location, and the strictest decides',
    ]);
  });

  it('one limit_req gives no lanes list (the single-limiter result as before)', () => {
    const r = importNginx('limit_req_zone $a zone=a:1m rate=1r/s;\nlimit_req zone=a;');
    expect(r.ok && r.lanes).toBeUndefined();
  });

  it('reports an unknown zone on any of several limit_req lines', () => {
    expect(
      errorsOf(
        'limit_req_zone $a zone=a:1m rate=1r/s;\nlimit_req zone=a;\nlimit_req zone=b burst=2;',
      ),
    ).toEqual(['3:16 unknown limit_req_zone "b": expected one of "a"']);
  });

  it('warns that limit_req_dry_run on never limits', () => {
    const r = importNginx(
      'limit_req_zone $a zone=a:1m rate=1r/s;\nlimit_req zone=a;\nlimit_req_dry_run on;',
    );
    expect(r.ok && r.warnings.map(formatImportError)).toEqual([
      '3:1 limit_req_dry_run is on: nginx counts but never rejects or delays',
    ]);
  });

  it('never throws, whatever the text', () => {
    const fragment = fc.constantFrom(
      'limit_req_zone',
      'limit_req',
      'limit_req_status',
      'zone=a:1m',
      'zone=a',
      'rate=3r/s',
      'rate=x',
      'burst=2',
      'delay=1',
      'nodelay',
      '$binary_remote_addr',
      '${x}',
      ';',
      '{',
      '}',
      '"',
      "'",
      '#',
      '\\',
      '\n',
      ' ',
      '429',
      '=',
    );
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ maxLength: 80 }),
          fc.array(fragment, { maxLength: 30 }).map((a) => a.join(' ')),
        ),
        (text) => {
          const r = importNginx(text);
          if (!r.ok) {
            expect(r.errors.length).toBeGreaterThan(0);
            for (const e of r.errors) expect(e.line >= 1 && e.column >= 1).toBe(true);
          }
        },
      ),
      { numRuns: 2000 },
    );
  });
});
