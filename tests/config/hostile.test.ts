/**
 * Broken and hostile links: each opens a valid config that keeps the link's valid parts, with a
 * message saying exactly what was wrong and where, and the original text kept.
 */
import { describe, expect, it } from 'vitest';
import { MAX_LINK_LENGTH, NAME_PATTERN, defaultConfig, encodeConfig } from '../../src/config';
import { isValidConfig } from '../../src/config/valibot-schema';
import { decodeConfig } from '../../src/config/url';
import { repairConfig } from '../../src/config/repair';
import type { PlaygroundConfig } from '../../src/config';
import type { DecodeResult } from '../../src/config/url';

function decode(link: string): DecodeResult {
  const result = decodeConfig(link);
  expect(result.original).toBe(link);
  expect(isValidConfig(result.config)).toBe(true);
  return result;
}

const messages = (r: DecodeResult): string[] => r.errors.map((e) => e.message);

/** The default config with some parts replaced. */
function config(change: (c: PlaygroundConfig) => void): PlaygroundConfig {
  const c = defaultConfig();
  change(c);
  return c;
}

describe('out-of-range and malformed values', () => {
  it('names the parameter, the rule and the value, and keeps the rest of the limiter', () => {
    const r = decode('v=1&l=envoy:max_tokens=10,fill_interval=1s&l=nginx:rate=10r/s,burst=-4');
    expect(messages(r)).toEqual(['l[1] burst: must be a whole number from 0 to 1000000, got "-4"']);
    expect(r.errors[0]).toMatchObject({ param: 'l[1] burst', path: 'limiters[1].config.burst' });
    expect(r.config.limiters[1]?.config).toEqual({
      kind: 'leaky-bucket',
      rate: 10,
      rateUnit: 'r/s',
      burst: 5, // the v1 default burst of an nginx limiter
      delay: 0,
    });
    expect(r.config.limiters[0]?.config).toEqual({
      kind: 'token-bucket',
      maxTokens: 10,
      tokensPerFill: 1,
      fillIntervalMs: 1000,
    });
  });

  it('refuses absurd numbers, NaN, Infinity, exponents and hex', () => {
    const r = decode(
      'v=1&l=envoy:max_tokens=1e308,fill_interval=Infinity&l=nginx:rate=99999999999999999999r/s,burst=NaN' +
        '&l=gcra:max_burst=-0,count=0x10,period=1.5ms&until=1e9h&speed=Infinity&seed=-1&t=-1s',
    );
    expect(messages(r)).toEqual([
      'l[0] max_tokens: must be a whole number from 1 to 1000000, got "1e308"',
      'l[0] fill_interval: must be a duration from 1ms to 24h in whole milliseconds, got "Infinity"',
      'l[1] rate: must be N r/s or N r/m with N a whole number from 1 to 1000000, got "99999999999999999999r/s"',
      'l[1] burst: must be a whole number from 0 to 1000000, got "NaN"',
      'l[2] count: must be a whole number from 1 to 1000000, got "0x10"',
      'l[2] period: must be a duration from 1ms to 24h in whole milliseconds, got "1.5ms"',
      'until: must be a duration from 1ms to 24h in whole milliseconds, got "1e9h"',
      'speed: must be a number from 0.1 to 100, got "Infinity"',
      'seed: must be a whole number from 0 to 4294967295, got "-1"',
      't: must be a duration from 0 to 24h in whole milliseconds, got "-1s"',
    ]);
    // max_burst=-0 is a valid 0.
    expect(r.config.limiters[2]?.config).toEqual({
      kind: 'gcra',
      burst: 0,
      count: 5,
      periodMs: 1000,
    });
    expect(r.config.view).toEqual(defaultConfig().view);
  });

  it('names a missing required option and fills in its default', () => {
    const r = decode('v=1&l=gcra:max_burst=2');
    expect(messages(r)).toEqual([
      'l[0] count: missing (must be a whole number from 1 to 1000000)',
      'l[0] period: missing (must be a duration from 1ms to 24h in whole milliseconds)',
    ]);
    expect(r.config.limiters[0]?.config).toEqual({
      kind: 'gcra',
      burst: 2,
      count: 5,
      periodMs: 1000,
    });
  });

  it('checks fields against each other, resetting the partner before giving up on the part', () => {
    expect(messages(decode('v=1&until=10s&t=20s'))).toEqual([
      't: must be a time from 0 to the run length (10s), got "20s"',
    ]);
    const retry = decode('v=1&retry=backoff:base=20s');
    expect(messages(retry)).toEqual([
      'retry cap: must be at least the backoff base (20s), got 10s (the default) (replaced retry base by its default)',
    ]);
    expect(retry.config.scenario.retry.onReject).toBe('backoff');
    const poisson = decode('v=1&src=poisson:rate=3r/s,from=70s,to=5s');
    expect(messages(poisson)).toEqual([
      'src[0] to: must be later than the start (70s), got "5s" (replaced src[0] from by its default)',
    ]);
    expect(poisson.config.scenario.sources).toEqual([
      // The end comes from the default config's own Poisson source, which `repair` prefers.
      { kind: 'poisson', ratePerSec: 3, startMs: 0, endMs: 20_000 },
    ]);
    const boundary = decode('v=1&src=boundary-burst:count=7,at=1s,spread=2s');
    expect(boundary.config.scenario.sources).toEqual([
      { kind: 'boundary-burst', count: 7, boundaryMs: 1000 },
    ]);
    expect(messages(decode('v=1&clients=2&src=burst:count=5,at=0,client=7'))).toEqual([
      'src[0] client: must be a client index from 0 to 1 (there are 2 clients), got "7"',
    ]);
    expect(messages(decode('v=1&sel=3:4'))).toEqual([
      'sel lane: must be a limiter index from 0 to 0, got "3" (replaced sel by its default)',
    ]);
    expect(messages(decode('v=1&bin=1ms&until=24h'))).toEqual([
      'bin: must be at least 864ms for a run of 24h (at most 100000 bins), got "1ms"',
    ]);
  });

  it('removes clock jumps that cannot be read, keeping the others', () => {
    const r = decode('v=1&clock=wall:jumps=0@1s;5s;1s@-1s;-2s@3s');
    expect(messages(r)).toEqual([
      'clock jumps[0] by: must be a duration from -24h to 24h in whole milliseconds, not 0, got "0" (removed clock jumps[0])',
      'clock jumps[1]: must be by@at, two durations (e.g. -5s@10s), got "5s" (removed)',
      'clock jumps[2] at: must be a duration from 0 to 24h in whole milliseconds, got "-1s" (removed clock jumps[2])',
    ]);
    expect(r.config.scenario.clock).toEqual({ mode: 'wall', jumps: [{ byMs: -2000, atMs: 3000 }] });
  });

  it('reports nginx delay and nodelay given together, and an empty flag', () => {
    expect(messages(decode('v=1&l=nginx:rate=10r/s,delay=2,nodelay'))).toEqual([
      'l[0]: both nodelay and delay given (nginx takes one); used nodelay',
    ]);
    expect(messages(decode('v=1&l=sliding-log:limit=5,window=1s,log_rejected='))).toEqual([
      'l[0] log_rejected: must be true or false, got ""',
    ]);
  });
});

describe('truncated links', () => {
  it('report the cut option and keep what came before', () => {
    const r = decode('v=1&l=nginx:rate=10r/s,bur');
    expect(messages(r)).toEqual([
      'l[0]: unknown option "bur" for nginx (known: name, burst, limit_req_status, std_headers, rate, delay, nodelay); ignored',
    ]);
    expect(r.config.limiters[0]?.config).toEqual({
      kind: 'leaky-bucket',
      rate: 10,
      rateUnit: 'r/s',
      burst: 0,
      delay: 0,
    });
  });

  it('detect a packed list cut short or changed, at any point', () => {
    const c = config((x) => {
      x.scenario.sources = [
        { kind: 'manual', timesMs: Array.from({ length: 300 }, (_, i) => i * 7) },
      ];
    });
    const link = encodeConfig(c);
    const payload = /lz=([^&,]*)/.exec(link)?.[1] ?? '';
    expect(payload.length).toBeGreaterThan(20);
    let complete = 0;
    for (let cut = 1; cut < payload.length; cut += 1) {
      const r = decode(link.replace(payload, payload.slice(0, cut)));
      if (r.errors.length === 0) {
        // Only padding bits were cut: the whole list, exactly.
        expect(r.config).toStrictEqual(c);
        complete += 1;
        continue;
      }
      expect(r.config.scenario.sources).toEqual([{ kind: 'manual', timesMs: [] }]);
      expect(messages(r)).toHaveLength(1);
      expect(messages(r)[0]).toMatch(
        /^src\[0\] lz: (could not be unpacked|does not match its checksum|unpacks to something that is not a list of times).*; used no times$/,
      );
    }
    expect(complete).toBeLessThanOrEqual(1);
  });
});

describe('versions', () => {
  it('opens a link from a newer version with what it can read, and says so', () => {
    const r = decode('v=2&t=1s');
    expect(messages(r)).toEqual([
      'v: this link was made by a newer version of Rate Limit Lab (v=2); this page reads up to v=1, so parts it does not know were replaced by defaults',
    ]);
    expect(r.version).toBe(2);
    expect(r.config.view.tMs).toBe(1000);
  });

  it('reads an unreadable version as the current one', () => {
    for (const v of ['abc', '0', '-1', '1.5', '', '1e0']) {
      const r = decode(`v=${v}&t=1s`);
      expect(messages(r)).toEqual([
        `v: must be a version number from 1 to 1, got ${JSON.stringify(v)}; read as version 1`,
      ]);
      expect(r.config.view.tMs).toBe(1000);
    }
  });
});

describe('length', () => {
  it(`reads links up to ${MAX_LINK_LENGTH} characters and refuses longer ones, keeping the text`, () => {
    // A readable manual list of 1 ms clicks, exactly MAX_LINK_LENGTH characters long.
    const base = 'v=1&src=manual:times=';
    const n = (MAX_LINK_LENGTH - base.length + 1) / 2;
    expect(Number.isInteger(n)).toBe(true);
    const fits = base + Array(n).fill('1').join(';');
    expect(fits).toHaveLength(MAX_LINK_LENGTH);
    expect(decode(fits).errors).toEqual([]);
    expect(decode(fits).config.scenario.sources).toEqual([
      { kind: 'manual', timesMs: Array(n).fill(1) },
    ]);
    const long = `${fits};`;
    const r = decode(`?${long}`);
    expect(messages(r)).toEqual([
      'link: 8001 characters is longer than the 8000 a link may have; loaded the default config (the original link is kept to copy)',
    ]);
    expect(r.config).toEqual(defaultConfig());
    expect(r.original).toBe(`?${long}`);
  });
});

describe('lists that are too long', () => {
  it('keep their first items', () => {
    const l = '&l=gcra:max_burst=1,count=1,period=1s';
    expect(messages(decode(`v=1${l.repeat(7)}`))).toEqual([
      'l: at most 6 limiters, got 7; kept the first 6',
    ]);
    expect(decode(`v=1${l.repeat(7)}`).config.limiters).toHaveLength(6);
    const src = '&src=burst:count=1,at=0';
    expect(messages(decode(`v=1${src.repeat(40)}`))).toEqual([
      'src: at most 32 traffic sources, got 40; kept the first 32',
    ]);
    // A packed list of 10,001 times (valid packing, one time too many).
    const link = encodeConfig(
      config((x) => {
        x.scenario.sources = [
          { kind: 'manual', timesMs: Array.from({ length: 10_001 }, (_, i) => i) },
        ];
      }),
    );
    expect(link.length).toBeLessThan(MAX_LINK_LENGTH);
    const r = decode(link);
    expect(messages(r)).toEqual([
      'src[0] times: must be a list of at most 10000 times, got 10001 (kept the first 10000)',
    ]);
    expect(r.config.scenario.sources[0]).toEqual({
      kind: 'manual',
      timesMs: Array.from({ length: 10_000 }, (_, i) => i),
    });
  });
});

describe('hostile text', () => {
  it('refuses markup and invisible characters in names, as plain text in the message', () => {
    const cases: Array<[string, string]> = [
      ['<script>alert(1)</script>', '"<script>alert(1)</script>"'],
      ['%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E', '"<img src=x onerror=alert(1)>"'],
      ['javascript:alert(1)', null as unknown as string],
      ['abc%E2%80%AEgpj.exe', '"abc\\u202Egpj.exe"'],
      ['a'.repeat(41), `"${'a'.repeat(40)}…"`],
      ['%22%3E%3Csvg%20onload%3Dalert(1)%3E', '"\\"><svg onload=alert(1)>"'],
    ];
    for (const [name, shown] of cases) {
      const r = decode(`v=1&l=envoy:name=${name},max_tokens=3,fill_interval=1s`);
      expect(r.config.limiters[0]).toEqual({
        config: { kind: 'token-bucket', maxTokens: 3, tokensPerFill: 1, fillIntervalMs: 1000 },
      });
      if (shown === null) {
        // `:` ends the kind, so this name is cut at its first `:` and then refused.
        expect(messages(r)[0]).toMatch(/^l\[0\] name: must be 1 to 40 characters/);
      } else {
        expect(messages(r)).toEqual([
          `l[0] name: must be 1 to 40 characters: letters, digits, spaces and - _ . ( ) /, got ${shown}`,
        ]);
      }
    }
  });

  it('accepts plain names in any script, written readably or percent-encoded', () => {
    const r = decode('v=1&l=envoy:name=API%20(EU)%20日本,max_tokens=3,fill_interval=1s');
    expect(r.errors).toEqual([]);
    expect(r.config.limiters[0]?.name).toBe('API (EU) 日本');
    expect(NAME_PATTERN.test('API (EU) 日本')).toBe(true);
  });

  it('ignores prototype-polluting keys and pollutes nothing', () => {
    const before = Object.getOwnPropertyNames(Object.prototype).sort();
    const r = decode(
      'v=1&__proto__=x&constructor=y&l=__proto__:polluted=1&l=envoy:__proto__=1,max_tokens=3,fill_interval=1s' +
        '&src=constructor:rate=1r/s&l=toString&src=hasOwnProperty&__proto__[polluted]=1',
    );
    expect(messages(r)).toEqual([
      'link: unknown parameter "__proto__"; ignored',
      'link: unknown parameter "constructor"; ignored',
      'link: unknown parameter "__proto__[polluted]"; ignored',
      'l[1]: unknown option "__proto__" for envoy (known: name, max_tokens, tokens_per_fill, fill_interval, refill, std_headers); ignored',
      'l[0]: must start with an algorithm: envoy, nginx, gcra, fixed-window, sliding-log, sliding-window-counter, anchored-window, calendar-windows, traefik, haproxy, redis-sliding-window, cloudflare, kong, envoy-global, caddy, spring-gateway, express-rate-limit, rate-limiter-flexible, got "__proto__" (replaced l[0] by its default)',
      'src[0]: must start with a traffic source: poisson, constant, on-off, burst, boundary-burst, manual, trace, got "constructor" (removed)',
      'l[2]: must start with an algorithm: envoy, nginx, gcra, fixed-window, sliding-log, sliding-window-counter, anchored-window, calendar-windows, traefik, haproxy, redis-sliding-window, cloudflare, kong, envoy-global, caddy, spring-gateway, express-rate-limit, rate-limiter-flexible, got "toString" (replaced l[2] by its default)',
      'src[1]: must start with a traffic source: poisson, constant, on-off, burst, boundary-burst, manual, trace, got "hasOwnProperty" (removed)',
    ]);
    expect(r.config.limiters).toHaveLength(3);
    expect(r.config.scenario.sources).toEqual([]);
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(before);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('never copies prototype keys from untrusted objects', () => {
    const input: unknown = JSON.parse(
      '{"__proto__": {"polluted": 1}, "constructor": {"prototype": {"polluted": 1}}, "view": {"__proto__": {"paused": true}}}',
    );
    const { config, issues } = repairConfig(input);
    expect(config).toEqual(defaultConfig());
    expect(config.view.paused).toBe(false);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(issues.map((i) => i.path.join('.'))).toEqual([
      'version',
      'limiters',
      'scenario',
      'view.untilMs',
      'view.tMs',
      'view.paused',
      'view.speed',
      'view.selected',
      'view.mode',
    ]);
  });

  it('reads a malformed percent escape as text', () => {
    expect(messages(decode('v=1&l=%E0%A4%A'))).toEqual([
      'l[0]: must start with an algorithm: envoy, nginx, gcra, fixed-window, sliding-log, sliding-window-counter, anchored-window, calendar-windows, traefik, haproxy, redis-sliding-window, cloudflare, kong, envoy-global, caddy, spring-gateway, express-rate-limit, rate-limiter-flexible, got "\uFFFD%A" (replaced l[0] by its default)',
    ]);
  });
});

describe('the link as a whole', () => {
  it('opens the defaults for an empty link, without errors', () => {
    for (const link of ['', '?', '#', '?#v=9', '?embed', '?embed=1']) {
      const r = decode(link);
      expect(r.errors).toEqual([]);
      expect(r.config).toEqual(defaultConfig());
    }
  });

  it('reads a whole URL, ignoring the fragment', () => {
    const r = decode('https://example.org/lab/?v=1&t=2s#v=9&t=5s');
    expect(r.errors).toEqual([]);
    expect(r.config.view.tMs).toBe(2000);
  });

  it('uses the first of repeated parameters, and says so', () => {
    const r = decode('v=1&t=1s&t=2s&v=1');
    expect(messages(r)).toEqual([
      'v: given 2 times; used the first',
      't: given more than once; used the first ("1s")',
    ]);
    expect(r.config.view.tMs).toBe(1000);
  });

  it('lists at most 50 problems', () => {
    const r = decode(`v=1&${Array.from({ length: 80 }, (_, i) => `x${i}=1`).join('&')}`);
    expect(r.errors).toHaveLength(50);
    expect(r.errors[49]?.message).toBe('link: and 31 more problems not listed');
  });

  it('never throws, even when given something that is not a string', () => {
    const odd: unknown[] = [undefined, null, 42, {}, { toString: () => 'v=1&t=3s' }];
    for (const value of odd) {
      const r = decodeConfig(value as string);
      expect(isValidConfig(r.config)).toBe(true);
    }
    const throwing = {
      toString() {
        throw new Error('no');
      },
    };
    expect(isValidConfig(decodeConfig(throwing as unknown as string).config)).toBe(true);
  });
});
