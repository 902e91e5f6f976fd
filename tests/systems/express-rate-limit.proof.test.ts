/**
 * Proof: the express-rate-limit model (src/systems/express-rate-limit.ts on the core's
 * anchored-window) against the real express-rate-limit 8.7.5 middleware with its MemoryStore,
 * driven request by request on a fake clock (vi.useFakeTimers: Date and the store's setInterval).
 * Every decision is compared — passed or 429 — and every header, value and order, including Date,
 * X-RateLimit-Reset (absolute) and the draft-8 partition key.
 */
import { createHash } from 'node:crypto';
import * as erl from 'express-rate-limit';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLimiter } from '../../src/core';
import type { ExpressRateLimitOptions } from '../../src/systems/express-rate-limit';
import { expressRateLimitConfig } from '../../src/systems/express-rate-limit';
import {
  expressPartitionKey,
  expressRateLimitResponse,
  loadExpressHash,
} from '../../src/systems/respond/express-rate-limit';
import { deriveConfig, systemById } from '../../src/systems';
import { int, seeded } from '../export/gen';
import type { Rng } from '../export/gen';
import { SCENARIO_EPOCH_MS, entryResponse } from '../../src/systems/respond';
import { proofCount } from './proofCounts';

/** The middleware, typed here: the package's own types need @types/express, not installed. */
type Middleware = (req: unknown, res: unknown, next: () => void) => Promise<void>;
const rateLimit = (erl as unknown as { rateLimit: (o: Record<string, unknown>) => Middleware })
  .rateLimit;

interface FakeResponse {
  statusCode: number;
  headersSent: boolean;
  writableEnded: boolean;
  headers: Array<[string, string]>;
  setHeader(name: string, value: string): void;
  append(name: string, value: string): void;
  status(code: number): FakeResponse;
  send(body: string): void;
  on(): void;
}

function fakeResponse(): FakeResponse {
  const res: FakeResponse = {
    statusCode: 200,
    headersSent: false,
    writableEnded: false,
    headers: [],
    setHeader(name, value) {
      const at = res.headers.findIndex(([n]) => n.toLowerCase() === name.toLowerCase());
      if (at >= 0) res.headers[at] = [name, value];
      else res.headers.push([name, value]);
    },
    append(name, value) {
      res.setHeader(name, value);
    },
    status(code) {
      res.statusCode = code;
      return res;
    },
    send() {
      res.writableEnded = true;
    },
    on() {},
  };
  return res;
}

/** One request through the real middleware: [status, headers in the order set]. */
async function realRequest(
  mw: Middleware,
  key: string,
): Promise<[number, Array<[string, string]>]> {
  const req = { ip: '127.0.0.1', key, headers: {}, app: { get: () => false } };
  const res = fakeResponse();
  let passed = false;
  await mw(req, res, () => {
    passed = true;
  });
  return [passed ? 200 : res.statusCode, res.headers];
}

function randomOptions(rng: Rng): ExpressRateLimitOptions {
  const drafts = [false, 'draft-6', 'draft-7', 'draft-8'] as const;
  return {
    windowMs: [1000, 1500, 5000, 60_000, 90_000, 3_600_000, 7_200_000, 86_400_000][
      int(rng, 0, 7)
    ] as number,
    limit: int(rng, 1, 8),
    standardHeaders: drafts[int(rng, 0, 3)] as ExpressRateLimitOptions['standardHeaders'],
    legacyHeaders: rng() < 0.7,
    statusCode: 429,
  };
}

/** Non-decreasing times with ties, steps around the window and long idle gaps. */
function randomSteps(rng: Rng, windowMs: number, n: number): number[] {
  return Array.from({ length: n }, () => {
    const r = rng();
    if (r < 0.35) return 0;
    if (r < 0.7) return int(rng, 1, Math.max(1, Math.floor(windowMs / 4)));
    if (r < 0.85) return windowMs + int(rng, -2, 2) > 0 ? windowMs + int(rng, -2, 2) : 1;
    return int(rng, 1, 3 * windowMs);
  });
}

// The draft-8 partition key's SHA-256 is a chunk of its own: loaded before the proofs.
beforeAll(() => loadExpressHash());

describe('express-rate-limit 8.7.5 (real middleware) = model', () => {
  it('the draft-8 partition key says what to do until SHA-256 has loaded, then matches node:crypto', async () => {
    vi.resetModules();
    const fresh = await import('../../src/systems/respond/express-rate-limit');
    expect(() => fresh.expressPartitionKey('203.0.113.7')).toThrow(
      /await loadExpressHash\(\) first/,
    );
    await fresh.loadExpressHash();
    const hex = createHash('sha256').update('203.0.113.7').digest('hex').slice(0, 12);
    expect(fresh.expressPartitionKey('203.0.113.7')).toBe(btoa(hex));
    expect(expressPartitionKey('203.0.113.7')).toBe(btoa(hex));
  });

  let compared = 0;
  let rejects = 0;
  let atBoundary = 0;

  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date', 'setInterval', 'clearInterval'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('decides and answers exactly like the model, decision by decision, headers included', async () => {
    const rng = seeded(13_001);
    // Which standardHeaders × legacyHeaders combinations the runs met.
    const combos = new Set<string>();
    for (let run = 0; run < 60; run++) {
      const o = randomOptions(rng);
      combos.add(`${String(o.standardHeaders)} × ${String(o.legacyHeaders)}`);
      vi.clearAllTimers(); // the previous run's MemoryStore interval
      const startMs = [0, 1_700_000_000_123, int(rng, 1, 1e12)][int(rng, 0, 2)] as number;
      vi.setSystemTime(startMs);
      const mw = rateLimit({
        windowMs: o.windowMs,
        limit: o.limit,
        standardHeaders: o.standardHeaders,
        legacyHeaders: o.legacyHeaders,
        keyGenerator: (req: { key: string }) => req.key,
        validate: false,
      });
      const model = createLimiter(expressRateLimitConfig(o));
      let t = startMs;
      for (let step of randomSteps(rng, o.windowMs, 40)) {
        const key = rng() < 0.75 ? 'alice' : 'bob';
        // Now and then exactly when the key's window ends (its first hit + windowMs), or 1 ms
        // either side: the MemoryStore's resetTime boundary.
        const w = model.inspect(t, key);
        if (rng() < 0.2 && w.kind === 'anchored-window' && w.resetAtMs !== null) {
          const at = w.resetAtMs + int(rng, -1, 1);
          if (at >= t) {
            step = at - t;
            if (at === w.resetAtMs) atBoundary += 1;
          }
        }
        if (step > 0) vi.advanceTimersByTime(step); // fires the store's clearExpired interval too
        t += step;
        const [status, headers] = await realRequest(mw, key);
        const d = model.decide(t, key);
        const want = expressRateLimitResponse(o, d, t, key);
        expect({ t, key, status, headers }).toEqual({
          t,
          key,
          status: want.status,
          headers: want.headers.map(([n, v]) => [n, v]),
        });
        compared += 1;
        if (status !== 200) rejects += 1;
      }
    }
    console.info(
      `express-rate-limit vs model: ${compared} decisions compared, ${rejects} rejected, ${atBoundary} exactly when the window ends, 0 disagreements`,
    );
    expect(atBoundary).toBeGreaterThan(50);
    // Every standardHeaders (none, draft-6, draft-7, draft-8) with and without legacyHeaders.
    expect(combos.size).toBe(8);
    expect(rejects).toBeGreaterThan(100);
    expect(compared - rejects).toBeGreaterThan(100);
    // The counts the README's proof table states.
    const row = 'express-rate-limit (memory store)';
    expect(compared).toBe(proofCount(row, 'decisions'));
    expect(rejects).toBe(proofCount(row, 'rejected'));
    expect(atBoundary).toBe(proofCount(row, 'atWindowEnd'));
  });

  it("the page's answer is the real middleware's at the scenario's wall clock (Date is not 1970)", async () => {
    const system = systemById('express-rate-limit');
    if (system === undefined) throw new Error('express-rate-limit is registered');
    const config = deriveConfig(system, { kind: 'anchored-window', limit: 2, windowMs: 60_000 });
    const model = createLimiter(config);
    // The scenario's time 0 is SCENARIO_EPOCH_MS on the wall clock; the real middleware runs there.
    vi.setSystemTime(SCENARIO_EPOCH_MS);
    const mw = rateLimit({
      windowMs: 60_000,
      limit: 2,
      standardHeaders: 'draft-6',
      keyGenerator: () => 'k',
      validate: false,
    });
    let t = 0;
    for (const step of [0, 0, 1500, 999, 57_501, 1, 30_000]) {
      vi.advanceTimersByTime(step);
      t += step;
      const [status, headers] = await realRequest(mw, 'k');
      const page = entryResponse(
        { system: 'express-rate-limit', config, standardHeaders: true },
        model.decide(t, 'k'),
        'x',
        { nowMs: t, key: 'k' },
      );
      expect({ t, status: page.status, headers: page.headers.map(([n, v]) => [n, v]) }).toEqual({
        t,
        status,
        headers,
      });
      expect(headers.find(([n]) => n === 'Date')?.[1]).toMatch(/ 2026 /);
    }
  });

  it('counts rejected hits: a client that keeps hammering stays at remaining 0 until its window ends', async () => {
    vi.setSystemTime(0);
    const mw = rateLimit({ windowMs: 10_000, limit: 2, keyGenerator: () => 'k', validate: false });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      statuses.push((await realRequest(mw, 'k'))[0]);
      vi.advanceTimersByTime(1000);
    }
    // Anchored at t = 0: the window ends at 10 000 whatever the rejected hits; then it restarts.
    vi.advanceTimersByTime(5000);
    statuses.push((await realRequest(mw, 'k'))[0]);
    expect(statuses).toEqual([200, 200, 429, 429, 429, 200]);
  });
});
