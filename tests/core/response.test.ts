/**
 * toHttpResponse: what the client sees for a decision (DESIGN.md, "What the client sees").
 *
 * - RFC 9110 §10.2.3: Retry-After = delay-seconds, here ⌈retryAfterMs / 1000⌉.
 * - draft-ietf-httpapi-ratelimit-headers-10 §3: RateLimit-Policy is a List of Items whose value
 *   MUST be a String, with parameters q (REQUIRED, non-negative Integer) and w (non-zero,
 *   non-negative Integer seconds); §4: RateLimit is a List of Items with r (REQUIRED, non-negative
 *   Integer) and t (non-negative Integer seconds); §6: "If a response contains both the Retry-After
 *   and the RateLimit header fields, the Retry-After field value SHOULD NOT reference a point in
 *   time earlier than the reset parameter."
 * - nginx limit_req_status: "Sets the status code to return in response to rejected requests."
 *   Default 503.
 *
 * The header values are parsed with `structured-headers` (RFC 9651), not with a regex of ours.
 */
import fc from 'fast-check';
import { parseList, Token } from 'structured-headers';
import type { Item } from 'structured-headers';
import { describe, expect, it, vi } from 'vitest';
import { createLimiter, quotaOf, toHttpResponse } from '../../src/core';
import type { AlgorithmConfig, Decision, HttpResponse } from '../../src/core';
import { configArb, FC_SEED, KINDS, runs, traceArb } from './arbitraries';

// Property runs take about a second each here; a loaded CI machine, or FC_RUNS_SCALE, needs more.
vi.setConfig({ testTimeout: 120_000 });

const header = (r: HttpResponse, name: string): string | undefined =>
  r.headers.find(([n]) => n.toLowerCase() === name.toLowerCase())?.[1];

const decision = (d: Partial<Decision>): Decision => ({
  outcome: 'admit',
  delayMs: 0,
  retryAfterMs: 0,
  remaining: 0,
  limit: 10,
  resetMs: 0,
  ...d,
});

const FIXED: AlgorithmConfig = { kind: 'fixed-window', limit: 10, windowMs: 60_000 };
const NGINX: AlgorithmConfig = {
  kind: 'leaky-bucket',
  rate: 1,
  rateUnit: 'r/s',
  burst: 5,
  delay: 'nodelay',
};

/** The single Item of a one-member List header, parsed per RFC 9651. */
function onlyItem(value: string | undefined): Item {
  expect(value).toBeDefined();
  const list = parseList(value as string);
  expect(list).toHaveLength(1);
  const member = list[0] as Item;
  expect(Array.isArray(member[0])).toBe(false); // an Item, not an Inner List
  return member;
}

/** A non-negative sf-integer parameter. */
function intParam(item: Item, key: string): number {
  const v = item[1].get(key);
  if (typeof v !== 'number') throw new Error(`parameter ${key} is not a number`);
  expect(Number.isInteger(v) && v >= 0, `${key}=${v}`).toBe(true);
  return v;
}

describe('status', () => {
  it('is 200 for admit and for delay (the delayed request is answered once released)', () => {
    expect(toHttpResponse(FIXED, decision({ outcome: 'admit' })).statusLine).toBe(
      'HTTP/1.1 200 OK',
    );
    const delayed = toHttpResponse(NGINX, decision({ outcome: 'delay', delayMs: 3000 }));
    expect(delayed.status).toBe(200);
    expect(header(delayed, 'Retry-After')).toBeUndefined();
  });

  it('is 429 on reject for every model but nginx and HAProxy', () => {
    for (const kind of KINDS.filter((k) => k !== 'leaky-bucket')) {
      const [config] = fc.sample(
        configArb[kind].filter(
          (c) => !(c.kind === 'sliding-window-counter' && c.anchor === 'entry'),
        ),
        { seed: 1, numRuns: 1 },
      );
      if (config === undefined) throw new Error('a sample');
      const r = toHttpResponse(config, decision({ outcome: 'reject', retryAfterMs: 1 }));
      expect(r.status, kind).toBe(429);
      expect(r.statusLine).toBe('HTTP/1.1 429 Too Many Requests');
    }
  });

  it("is HAProxy's deny 403 by default, and deny_status when set", () => {
    const reject = decision({ outcome: 'reject', retryAfterMs: 1000 });
    const haproxy = {
      kind: 'sliding-window-counter',
      limit: 5,
      windowMs: 1000,
      anchor: 'entry',
    } as const;
    expect(toHttpResponse(haproxy, reject).status).toBe(403);
    expect(toHttpResponse({ ...haproxy, denyStatus: 429 }, reject).status).toBe(429);
  });

  it("is nginx's 503 by default, and limit_req_status when set", () => {
    const reject = decision({ outcome: 'reject', retryAfterMs: 1000 });
    expect(toHttpResponse(NGINX, reject).statusLine).toBe('HTTP/1.1 503 Service Unavailable');
    expect(toHttpResponse({ ...NGINX, limitReqStatus: 429 }, reject).status).toBe(429);
    expect(toHttpResponse({ ...NGINX, limitReqStatus: 444 }, reject).status).toBe(444);
    const odd = toHttpResponse({ ...NGINX, limitReqStatus: 599 }, reject);
    expect(odd.status).toBe(599);
    expect(odd.statusLine.startsWith('HTTP/1.1 599 ')).toBe(true);
    // limit_req_status only changes rejections.
    expect(toHttpResponse({ ...NGINX, limitReqStatus: 429 }, decision({})).status).toBe(200);
  });
});

describe('Retry-After', () => {
  it.each([
    [1, '1'],
    [999, '1'],
    [1000, '1'],
    [1001, '2'],
    [61_500, '62'],
    [86_400_000, '86400'],
  ])('retryAfterMs %i → "%s" (whole seconds, rounded up)', (ms, value) => {
    const r = toHttpResponse(FIXED, decision({ outcome: 'reject', retryAfterMs: ms, resetMs: ms }));
    expect(header(r, 'Retry-After')).toBe(value);
  });

  it('is sent only on reject', () => {
    expect(header(toHttpResponse(FIXED, decision({ outcome: 'admit' })), 'Retry-After')).toBe(
      undefined,
    );
  });
});

describe('RateLimit-Policy and RateLimit (draft-ietf-httpapi-ratelimit-headers)', () => {
  it('match the draft example shape: "burst";q=10;w=1 and "burst";r=3;t=1', () => {
    const config: AlgorithmConfig = { kind: 'fixed-window', limit: 10, windowMs: 1000 };
    const r = toHttpResponse(config, decision({ remaining: 3, limit: 10, resetMs: 400 }), {
      policyName: 'burst',
    });
    expect(header(r, 'RateLimit-Policy')).toBe('"burst";q=10;w=1');
    expect(header(r, 'RateLimit')).toBe('"burst";r=3;t=1');
  });

  it('name the policy with an sf-string (default: the kind), escaping what must be', () => {
    const plain = toHttpResponse(FIXED, decision({}));
    expect(onlyItem(header(plain, 'RateLimit-Policy'))[0]).toBe('fixed-window');
    const tricky = toHttpResponse(FIXED, decision({}), { policyName: 'a "quoted" \\ name' });
    const item = onlyItem(header(tricky, 'RateLimit-Policy'));
    expect(item[0]).toBe('a "quoted" \\ name');
    expect(item[0]).not.toBeInstanceOf(Token);
    // Outside printable ASCII nothing is allowed in an sf-string: replaced, still parseable.
    const unicode = toHttpResponse(FIXED, decision({}), { policyName: 'per-user→día' });
    expect(typeof onlyItem(header(unicode, 'RateLimit'))[0]).toBe('string');
  });

  it("advertise each model's quota: q = limit, w = the time to restore it, in whole seconds", () => {
    const cases: ReadonlyArray<readonly [AlgorithmConfig, number, number]> = [
      [{ kind: 'fixed-window', limit: 100, windowMs: 60_000 }, 100, 60],
      [{ kind: 'sliding-window-counter', limit: 50, windowMs: 1500 }, 50, 2],
      // Envoy: max_tokens, refilled from empty in 10 · 1000 / 2 ms.
      [{ kind: 'token-bucket', maxTokens: 10, tokensPerFill: 2, fillIntervalMs: 1000 }, 10, 5],
      // nginx burst=5: 6 pass at once; their excess of 6000 drains in 6 s at 1r/s.
      [NGINX, 6, 6],
      // redis-cell 15 30 60: limit 16; τ = 2 s · 16 = 32 s.
      [{ kind: 'gcra', count: 30, periodMs: 60_000, burst: 15 }, 16, 32],
      // Sub-second windows still advertise w ≥ 1 (the draft requires a non-zero integer).
      [{ kind: 'fixed-window', limit: 5, windowMs: 10 }, 5, 1],
    ];
    for (const [config, q, w] of cases) {
      const d = createLimiter(config).decide(0);
      const item = onlyItem(header(toHttpResponse(config, d), 'RateLimit-Policy'));
      expect([intParam(item, 'q'), intParam(item, 'w')], config.kind).toEqual([q, w]);
    }
  });

  it('carry remaining (r) and the reset (t) of the decision; X-RateLimit-* the same', () => {
    const l = createLimiter({ kind: 'gcra', count: 30, periodMs: 60_000, burst: 15 });
    const config = l.config;
    const first = toHttpResponse(config, l.decide(0));
    const item = onlyItem(header(first, 'RateLimit'));
    expect([intParam(item, 'r'), intParam(item, 't')]).toEqual([15, 2]);
    expect(header(first, 'X-RateLimit-Limit')).toBe('16');
    expect(header(first, 'X-RateLimit-Remaining')).toBe('15');
    expect(header(first, 'X-RateLimit-Reset')).toBe('2');
  });

  it('every response for every model parses, with non-negative integers and w ≥ 1', () => {
    fc.assert(
      fc.property(fc.oneof(...KINDS.map((k) => configArb[k])), traceArb(), (c, trace) => {
        const l = createLimiter(c);
        const { limit } = quotaOf(c);
        for (const { nowMs, key } of trace) {
          const d = l.decide(nowMs, key);
          const r = toHttpResponse(c, d);
          const policy = onlyItem(header(r, 'RateLimit-Policy'));
          const current = onlyItem(header(r, 'RateLimit'));
          expect(policy[0]).toBe(current[0]); // the same policy
          expect(intParam(policy, 'q')).toBe(limit);
          expect(intParam(policy, 'w')).toBeGreaterThanOrEqual(1);
          expect(intParam(current, 'r')).toBe(d.remaining);
          const t = intParam(current, 't');
          expect(header(r, 'X-RateLimit-Limit')).toBe(String(d.limit));
          expect(header(r, 'X-RateLimit-Remaining')).toBe(String(d.remaining));
          expect(header(r, 'X-RateLimit-Reset')).toBe(String(Math.ceil(d.resetMs / 1000)));
          if (d.outcome === 'reject') {
            const retry = Number(header(r, 'Retry-After'));
            expect(retry).toBe(Math.ceil(d.retryAfterMs / 1000));
            expect(retry).toBeGreaterThanOrEqual(1);
            // draft §6: Retry-After SHOULD NOT point earlier than the reset parameter t.
            expect(retry).toBeGreaterThanOrEqual(t);
          } else {
            expect(header(r, 'Retry-After')).toBeUndefined();
            expect(t).toBe(Math.ceil(d.resetMs / 1000));
          }
        }
      }),
      { seed: FC_SEED, numRuns: runs(300) },
    );
  });
});
