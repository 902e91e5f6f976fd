/**
 * The Caddy export, directive by directive, against caddy-ratelimit's Caddyfile parser at master
 * 5625512 (the version src/systems/caddy.ts cites; it builds against caddy v2.10.0, go.mod):
 * - caddyfile.go UnmarshalCaddyfile (lines 39-160): `rate_limit` takes no argument; its block
 *   holds zone, distributed, log_key, disable_metrics, storage, jitter, sweep_interval; `zone
 *   <name>` holds key, window, events, ipv4_prefix, ipv6_prefix, match, each given once
 *   ("already specified"), anything else "unrecognized subdirective"; window by
 *   caddy.ParseDuration, events by strconv.Atoi; "a rate limit zone requires both a window and
 *   maximum events" (non-zero). init(): the directive is registered (order: before basic_auth).
 * - ratelimit.go provision: window > 0, max_events ≥ 0, ipv4_prefix 0 … 32, ipv6_prefix 0 … 128.
 * caddy.ParseDuration (caddy v2 duration.go) is Go's time.ParseDuration plus a "d" (24 h) unit.
 * The key `{remote_host}` is a Caddyfile placeholder shorthand for {http.request.remote.host}
 * (caddy's Caddyfile adapter, httpcaddyfile). The global `order` option takes
 * `<directive> before|after <directive>` or `<directive> first|last`.
 * The Caddyfile is read as Caddy's lexer reads it: whitespace-separated tokens, `{` and `}` at
 * the end or alone on a line open and close blocks, a line per directive.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SlidingLogConfig } from '../../../src/core';
import { toCaddy } from '../../../src/export';
import { caddy } from '../../../src/systems/caddy';
import { RUNS, parseGoDuration, slidingLogs, textOf } from './check';

/** One Caddyfile line: a directive, its arguments, and its block when the line ends with "{". */
interface Directive {
  name: string;
  args: string[];
  block?: Directive[];
  line: number;
}

/** Caddyfile text → directives (quotes and # comments handled; enough for the export's text). */
function parseCaddyfile(text: string): Directive[] {
  const root: Directive[] = [];
  const stack: Directive[][] = [root];
  text.split('\n').forEach((raw, i) => {
    const tokens = (raw.replace(/(^|\s)#.*$/, '').match(/"(?:[^"\\]|\\.)*"|\S+/g) ?? []).map((t) =>
      t.startsWith('"') ? (JSON.parse(t) as string) : t,
    );
    if (tokens.length === 0) return;
    if (tokens.length === 1 && tokens[0] === '}') {
      stack.pop();
      if (stack.length === 0) throw new Error(`line ${i + 1}: unexpected }`);
      return;
    }
    const opens = tokens[tokens.length - 1] === '{';
    const words = opens ? tokens.slice(0, -1) : tokens;
    const d: Directive = { name: words[0] ?? '', args: words.slice(1), line: i + 1 };
    stack[stack.length - 1]!.push(d);
    if (opens) {
      d.block = [];
      stack.push(d.block);
    }
  });
  if (stack.length !== 1) throw new Error('unclosed block');
  return root;
}

const caddyDurationNs = (s: string): number | undefined => parseGoDuration(s, { d: 86_400e9 });
const ZONE_SUBDIRECTIVES = new Set([
  'key',
  'window',
  'events',
  'ipv4_prefix',
  'ipv6_prefix',
  'match',
]);
const HANDLER_SUBDIRECTIVES = new Set([
  'zone',
  'distributed',
  'log_key',
  'disable_metrics',
  'storage',
  'jitter',
  'sweep_interval',
]);

/** Every problem Caddy's parsing and provisioning would report, as "line N: what". */
function caddyProblems(text: string): string[] {
  let tree: Directive[];
  try {
    tree = parseCaddyfile(text);
  } catch (e) {
    return [(e as Error).message];
  }
  const out: string[] = [];
  const bad = (d: Directive, what: string) => out.push(`line ${d.line} ${d.name}: ${what}`);
  const [global, ...sites] = tree;
  if (global === undefined || global.name !== '' || global.block === undefined) {
    out.push('expected a global options block first');
  } else {
    for (const o of global.block) {
      if (o.name !== 'order') bad(o, 'not a global option this export may use');
      const [dir, pos, other] = o.args;
      const ok =
        dir === 'rate_limit' &&
        ((o.args.length === 3 && (pos === 'before' || pos === 'after') && other !== undefined) ||
          (o.args.length === 2 && (pos === 'first' || pos === 'last')));
      if (!ok) bad(o, 'order <directive> before|after <directive> | first|last');
    }
  }
  const limits = sites.flatMap((s) => s.block ?? []).filter((d) => d.name === 'rate_limit');
  if (limits.length === 0) out.push('no rate_limit directive in a site block');
  for (const rl of limits) {
    if (rl.args.length > 0) bad(rl, 'takes no argument');
    for (const sub of rl.block ?? []) {
      if (!HANDLER_SUBDIRECTIVES.has(sub.name)) bad(sub, 'unrecognized subdirective');
      if (sub.name !== 'zone') continue;
      if (sub.args.length !== 1) bad(sub, 'zone takes one name');
      const seen = new Map<string, string>();
      for (const z of sub.block ?? []) {
        if (!ZONE_SUBDIRECTIVES.has(z.name)) bad(z, 'unrecognized subdirective');
        if (seen.has(z.name)) bad(z, 'already specified');
        if (z.name !== 'match' && z.args.length !== 1) bad(z, 'takes one argument');
        seen.set(z.name, z.args[0] ?? '');
      }
      const window = seen.get('window');
      const events = seen.get('events');
      const key = seen.get('key');
      if (window !== undefined && !((caddyDurationNs(window) ?? 0) > 0)) {
        out.push(`zone ${sub.args[0]}: invalid window duration '${window}' (must be > 0)`);
      }
      if (events !== undefined && !(/^[+-]?\d+$/.test(events) && Number(events) > 0)) {
        out.push(`zone ${sub.args[0]}: invalid max events integer '${events}'`);
      }
      if (window === undefined || events === undefined) {
        out.push(`zone ${sub.args[0]}: requires both a window and maximum events`);
      }
      if (key === undefined || key === '') out.push(`zone ${sub.args[0]}: no key`);
      for (const [name, max] of [
        ['ipv4_prefix', 32],
        ['ipv6_prefix', 128],
      ] as const) {
        const p = seen.get(name);
        if (p !== undefined && !(/^\d+$/.test(p) && Number(p) <= max)) {
          out.push(`zone ${sub.args[0]}: ${name} must be between 0 and ${max}`);
        }
      }
    }
  }
  return out;
}

/** The zone's key, events and window as written. */
function zoneOf(text: string): Record<string, string> {
  const rl = parseCaddyfile(text)
    .flatMap((s) => s.block ?? [])
    .find((d) => d.name === 'rate_limit')!;
  const zone = rl.block!.find((d) => d.name === 'zone')!;
  return Object.fromEntries(zone.block!.map((d) => [d.name, d.args[0] ?? '']));
}

const DEFAULT = caddy.defaultConfig as SlidingLogConfig;
const exportOf = (c: SlidingLogConfig): string => textOf(toCaddy(c));

describe('Caddy export against caddy-ratelimit caddyfile.go / ratelimit.go (5625512)', () => {
  it('the system default: every directive known, every value parsed as Caddy parses it', () => {
    expect(caddyProblems(exportOf(DEFAULT))).toEqual([]);
  });

  it('any sliding log (window ≥ 2 ms): the whole Caddyfile', () => {
    fc.assert(
      fc.property(slidingLogs, (c) => {
        expect(caddyProblems(exportOf(c))).toEqual([]);
      }),
      RUNS,
    );
  });

  it('zone: key {remote_host}, events an integer > 0, window a Caddy duration > 0', () => {
    fc.assert(
      fc.property(slidingLogs, (c) => {
        const z = zoneOf(exportOf(c));
        expect(Object.keys(z).sort()).toEqual(['events', 'key', 'window']);
        expect(z.key).toBe('{remote_host}');
        expect(z.events).toMatch(/^[1-9]\d*$/);
        expect(caddyDurationNs(z.window!)).toBeGreaterThan(0);
      }),
      RUNS,
    );
  });

  it('the global order line places rate_limit before reverse_proxy', () => {
    const global = parseCaddyfile(exportOf(DEFAULT))[0]!;
    expect(global.block).toEqual([
      { name: 'order', args: ['rate_limit', 'before', 'reverse_proxy'], line: 2 },
    ]);
  });

  describe('each check can fail: a mutated Caddyfile is refused where Caddy refuses it', () => {
    const good = exportOf(DEFAULT);
    const cases: [string, (text: string) => string, RegExp][] = [
      [
        'misspelt events',
        (t) => t.replace('\t\t\tevents ', '\t\t\tevent '),
        /event: unrecognized subdirective/,
      ],
      [
        'events not an integer',
        (t) => t.replace(/events \d+/, 'events 2.5'),
        /invalid max events integer '2.5'/,
      ],
      ['events 0', (t) => t.replace(/events \d+/, 'events 0'), /invalid max events integer '0'/],
      [
        'window with a space',
        (t) => t.replace(/window \S+/, 'window 1 s'),
        /window: takes one argument/,
      ],
      [
        'window "1sec"',
        (t) => t.replace(/window \S+/, 'window 1sec'),
        /invalid window duration '1sec'/,
      ],
      ['window 0', (t) => t.replace(/window \S+/, 'window 0'), /invalid window duration '0'/],
      [
        'no window',
        (t) => t.replace(/\t+window \S+\n/, ''),
        /requires both a window and maximum events/,
      ],
      [
        'key twice',
        (t) => t.replace(/(\t+key .*\n)/, '$1\t\t\tkey {path}\n'),
        /key: already specified/,
      ],
      [
        'zone without a name',
        (t) => t.replace('zone per_client {', 'zone {'),
        /zone takes one name/,
      ],
      [
        'rate_limit with an argument',
        (t) => t.replace('rate_limit {', 'rate_limit 10 {'),
        /takes no argument/,
      ],
      [
        'order first with a third word',
        (t) => t.replace(' before ', ' first '),
        /order <directive>/,
      ],
      ['unclosed block', (t) => t.replace(/}\n$/, ''), /unclosed block/],
    ];
    it.each(cases)('%s', (_label, edit, message) => {
      expect(caddyProblems(good)).toEqual([]);
      const bad = edit(good);
      expect(bad).not.toBe(good);
      expect(caddyProblems(bad).join('\n')).toMatch(message);
    });
    it('Caddy’s "d" unit is a duration, Go’s alone would not take it', () => {
      expect(caddyDurationNs('1d')).toBe(86_400e9);
      expect(parseGoDuration('1d')).toBeUndefined();
    });
  });
});

describe('Caddy export means what the lab simulates', () => {
  it('events = the lab limit; window + 1 ms = the lab window (Caddy still counts an event window old)', () => {
    fc.assert(
      fc.property(slidingLogs, (c) => {
        const z = zoneOf(exportOf(c));
        expect(Number(z.events)).toBe(c.limit);
        expect(caddyDurationNs(z.window!)! / 1e6 + 1).toBe(c.windowMs);
      }),
      RUNS,
    );
  });
});
