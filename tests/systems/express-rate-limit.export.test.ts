/**
 * The express-rate-limit export run as written: the text the Export panel gives, completed only
 * where its own comment says (a route under "// Your routes here."), run with the real express
 * 5.3.0 and express-rate-limit 8.7.5 in this process, listening where the export's own
 * `app.listen(process.env.PORT ?? 3000)` puts it (PORT=0: a free port), and asked over real HTTP at
 * 127.0.0.1 from two loopback addresses (two clients, two keys). The clock is faked (Date and
 * the MemoryStore's setInterval; the sockets' own timers stay real) and starts at the scenario's
 * wall-clock epoch, so `Date` and `X-RateLimit-Reset` are compared too. Every
 * response's status line, rate-limit headers (names, values, order) and body are compared with
 * what the page shows for the same limiter, arrivals and client.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLimiter } from '../../src/core';
import type { AnchoredWindowConfig } from '../../src/core';
import { exportSystems, toExpressRateLimit } from '../../src/export';
import type { ExpressExportOptions } from '../../src/export/exporters';
import { SCENARIO_EPOCH_MS, entryResponse } from '../../src/systems/respond';
import {
  expressRateLimitSystemResponse,
  loadExpressHash,
} from '../../src/systems/respond/express-rate-limit';
import { int, seeded } from '../export/gen';
import type { Rng } from '../export/gen';
import { proofCount } from './proofCounts';

const CACHE = path.join(process.cwd(), 'node_modules', '.cache', 'rll-export-express');

/** The route put where the export's comment says; its answer is the body of an admitted request. */
const ROUTE = "app.get('/', (req, res) => { res.send('ok'); });";

/** express-rate-limit 8.7.5's default `message` (dist/index.mjs parseOptions), sent on a 429. */
const REJECT_BODY = 'Too many requests, please try again later.';

/**
 * Headers that are not the limiter's: Express's `X-Powered-By` (its init middleware, before any
 * other), what `res.send` sets (Content-Type, Content-Length, ETag) and Node's own connection
 * field (`Connection: close`: one connection per request), written after every header set by the
 * app. The page shows the limiter's headers.
 */
const FRAMEWORK_BEFORE = ['X-Powered-By'];
const FRAMEWORK_AFTER = ['Content-Type', 'Content-Length', 'ETag', 'Connection'];

/** The export, completed as its comment says: the route where "// Your routes here." stands. */
function completed(text: string): string {
  expect(text).toContain('\n// Your routes here.\n');
  expect(text).toContain('\napp.listen(process.env.PORT ?? 3000);\n');
  return text.replace('// Your routes here.', ROUTE);
}

interface Answer {
  statusLine: string;
  headers: Array<[string, string]>;
  body: string;
}

/** One GET / from `from` (a loopback address: the client's IP, express-rate-limit's key). */
function get(port: number, from: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, path: '/', localAddress: from, agent: false, timeout: 5000 },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const raw = res.rawHeaders;
          const headers: Array<[string, string]> = [];
          for (let i = 0; i < raw.length; i += 2)
            headers.push([raw[i], raw[i + 1]] as [string, string]);
          resolve({
            statusLine: `HTTP/${res.httpVersion} ${res.statusCode} ${res.statusMessage}`,
            headers,
            body: Buffer.concat(chunks).toString('utf8'),
          });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer from 127.0.0.1:${port} in 5 s`)));
    req.on('error', reject);
    req.end();
  });
}

/**
 * The limiter's headers of an answer: the framework's named fields removed after checking they
 * stand where Express and Node write them (first; after all of the app's), nothing else removed.
 * With `legacyHeaders: false` nobody in the app sets `Date`, so Node writes it from its own clock
 * (lib/_http_outgoing.js, before Connection); the page then shows no Date either, and that field
 * is checked as an HTTP date but not compared.
 */
function limiterHeaders(a: Answer, nodeDate: boolean): Array<[string, string]> {
  const after = nodeDate
    ? [...FRAMEWORK_AFTER.slice(0, -1), 'Date', ...FRAMEWORK_AFTER.slice(-1)]
    : FRAMEWORK_AFTER;
  const names = a.headers.map(([n]) => n);
  expect(names.slice(0, FRAMEWORK_BEFORE.length)).toEqual(FRAMEWORK_BEFORE);
  expect(names.slice(-after.length)).toEqual(after);
  if (nodeDate) {
    const date = a.headers.find(([n]) => n === 'Date')?.[1];
    expect(date).toMatch(/^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d\d \w{3} \d{4} \d\d:\d\d:\d\d GMT$/);
  }
  return a.headers.slice(FRAMEWORK_BEFORE.length, a.headers.length - after.length);
}

/** The exported app, imported from a file as a person would run it; returns its server. */
async function startExport(text: string, file: string): Promise<http.Server> {
  writeFileSync(file, completed(text));
  // The export calls app.listen itself (express lib/application.js: http.createServer(app)); the
  // server it makes is kept here to close it afterwards.
  const spy = vi.spyOn(http, 'createServer');
  process.env.PORT = '0';
  let server: http.Server | undefined;
  try {
    await import(/* @vite-ignore */ pathToFileURL(file).href);
    server = spy.mock.results[0]?.value as http.Server | undefined;
  } finally {
    spy.mockRestore();
    delete process.env.PORT;
  }
  if (server === undefined) throw new Error('the export did not call app.listen');
  const s = server;
  if (!s.listening) await new Promise((resolve) => s.once('listening', resolve));
  return s;
}

function close(server: http.Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

/** Non-decreasing steps with ties, steps around the window and long idle gaps (as the proof). */
function step(rng: Rng, windowMs: number): number {
  const r = rng();
  if (r < 0.35) return 0;
  if (r < 0.7) return int(rng, 1, Math.max(1, Math.floor(windowMs / 4)));
  if (r < 0.85) return Math.max(1, windowMs + int(rng, -2, 2));
  return int(rng, 1, 3 * windowMs);
}

const CLIENTS = ['127.0.0.1', '127.0.0.2'] as const;
const WINDOWS = [1000, 1500, 5000, 60_000, 90_000, 3_600_000, 7_200_000, 86_400_000];
/** The export's header options: the page's two (standard headers added or not) and the rest. */
const HEADERS: ReadonlyArray<{ page: boolean | null; options: ExpressExportOptions }> = [
  { page: false, options: {} },
  { page: true, options: { standardHeaders: 'draft-6' } },
  { page: null, options: { standardHeaders: 'draft-7' } },
  { page: null, options: { standardHeaders: 'draft-8' } },
  { page: null, options: { standardHeaders: 'draft-8', legacyHeaders: false } },
  { page: null, options: { standardHeaders: 'draft-6', legacyHeaders: false } },
];

beforeAll(() => loadExpressHash());

describe('the exported express-rate-limit app sends what the page shows', () => {
  const warned: unknown[][] = [];
  beforeEach(() => {
    // Date for the headers, setInterval for the MemoryStore's clearExpired; sockets stay real.
    vi.useFakeTimers({ toFake: ['Date', 'setInterval', 'clearInterval'] });
    vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void warned.push(a));
    vi.spyOn(console, 'warn').mockImplementation((...a: unknown[]) => void warned.push(a));
    mkdirSync(CACHE, { recursive: true });
  });
  afterEach(() => {
    vi.restoreAllMocks();
    vi.useRealTimers();
  });
  afterAll(() => rmSync(CACHE, { recursive: true, force: true }));

  it('status line, every rate-limit header in order, and body, for every header option', async () => {
    const rng = seeded(13_041);
    let compared = 0;
    let rejects = 0;
    let atBoundary = 0;
    let onPage = 0;
    for (let run = 0; run < 48; run++) {
      const h = HEADERS[run % HEADERS.length] as (typeof HEADERS)[number];
      const windowMs = WINDOWS[int(rng, 0, WINDOWS.length - 1)] as number;
      const config: AnchoredWindowConfig = {
        kind: 'anchored-window',
        limit: int(rng, 1, 8),
        windowMs,
        countRejected: true,
      };
      // The page's own cases: the text the Export panel shows for this limiter.
      const out =
        h.page === null
          ? toExpressRateLimit(config, h.options)
          : exportSystems(config, undefined, h.page)['express-rate-limit'];
      if (!out.ok) throw new Error(out.reason);
      vi.clearAllTimers(); // the previous run's MemoryStore interval
      vi.setSystemTime(SCENARIO_EPOCH_MS); // the scenario's time 0 on the wall clock
      const server = await startExport(out.text, path.join(CACHE, `run${run}.mjs`));
      try {
        const port = (server.address() as AddressInfo).port;
        const model = createLimiter(config);
        let t = 0;
        for (let i = 0; i < 50; i++) {
          const key = rng() < 0.75 ? CLIENTS[0] : CLIENTS[1];
          let dt = step(rng, windowMs);
          // Now and then exactly when the client's window ends (first hit + windowMs), or 1 ms
          // either side: the MemoryStore's resetTime boundary.
          const w = model.inspect(t, key);
          if (rng() < 0.25 && w.kind === 'anchored-window' && w.resetAtMs !== null) {
            const at = w.resetAtMs + int(rng, -1, 1);
            if (at >= t) {
              dt = at - t;
              if (at === w.resetAtMs) atBoundary += 1;
            }
          }
          if (dt > 0) vi.advanceTimersByTime(dt); // fires the store's interval too
          t += dt;
          const answer = await get(port, key);
          const d = model.decide(t, key);
          const shown =
            h.page === null
              ? expressRateLimitSystemResponse(config, d, { nowMs: t, key, express: h.options })
              : entryResponse(
                  { system: 'express-rate-limit', config, standardHeaders: h.page },
                  d,
                  'x',
                  { nowMs: t, key },
                );
          expect({
            run,
            t,
            key,
            line: answer.statusLine,
            headers: limiterHeaders(answer, h.options.legacyHeaders === false),
          }).toEqual({
            run,
            t,
            key,
            line: shown.statusLine,
            headers: shown.headers.map(([n, v]) => [n, v]),
          });
          expect(answer.body).toBe(d.outcome === 'reject' ? REJECT_BODY : 'ok');
          compared += 1;
          if (h.page !== null) onPage += 1;
          if (d.outcome === 'reject') rejects += 1;
        }
      } finally {
        await close(server);
      }
    }
    expect(warned, 'express-rate-limit printed no warning').toEqual([]);
    console.info(
      `express-rate-limit export run as written vs the page: ${compared} responses compared (${onPage} with the page's own header options), ${rejects} rejected, ${atBoundary} exactly when a window ends; status line, every rate-limit header in order, body; 0 disagreements`,
    );
    expect(atBoundary).toBeGreaterThan(50);
    expect(rejects).toBeGreaterThan(100);
    expect(compared - rejects).toBeGreaterThan(100);
    // The counts the README's proof table states.
    const row = 'express-rate-limit (memory store)';
    expect(compared).toBe(proofCount(row, 'exportResponses'));
    expect(rejects).toBe(proofCount(row, 'exportRejected'));
    expect(atBoundary).toBe(proofCount(row, 'exportAtWindowEnd'));
  }, 120_000);

  it('a cost per request is exported as the requests it admits: the same decisions and remaining', async () => {
    const rng = seeded(13_042);
    let compared = 0;
    let rejects = 0;
    for (let run = 0; run < 8; run++) {
      const cost = int(rng, 2, 4);
      // rate-limiter-flexible's points and pointsToConsume: the core's limit and cost.
      const config: AnchoredWindowConfig = {
        kind: 'anchored-window',
        limit: int(rng, cost, 12),
        windowMs: [1000, 60_000][run % 2] as number,
        countRejected: true,
        cost,
      };
      const out = toExpressRateLimit(config);
      if (!out.ok) throw new Error(out.reason);
      expect(out.text).toContain(
        `limit: ${Math.floor(config.limit / cost)}, // ${config.limit} points, ${cost} per request`,
      );
      vi.clearAllTimers();
      vi.setSystemTime(SCENARIO_EPOCH_MS);
      const server = await startExport(out.text, path.join(CACHE, `cost${run}.mjs`));
      try {
        const port = (server.address() as AddressInfo).port;
        const model = createLimiter(config);
        let t = 0;
        for (let i = 0; i < 30; i++) {
          const dt = step(rng, config.windowMs);
          if (dt > 0) vi.advanceTimersByTime(dt);
          t += dt;
          const answer = await get(port, CLIENTS[0]);
          const d = model.decide(t, CLIENTS[0]);
          const remaining = answer.headers.find(([n]) => n === 'X-RateLimit-Remaining')?.[1];
          expect({ run, t, line: answer.statusLine, remaining }).toEqual({
            run,
            t,
            line: d.outcome === 'reject' ? 'HTTP/1.1 429 Too Many Requests' : 'HTTP/1.1 200 OK',
            remaining: String(d.remaining),
          });
          compared += 1;
          if (d.outcome === 'reject') rejects += 1;
        }
      } finally {
        await close(server);
      }
    }
    expect(warned).toEqual([]);
    console.info(
      `express-rate-limit export with a cost per request: ${compared} decisions compared, ${rejects} rejected, 0 disagreements`,
    );
    expect(rejects).toBeGreaterThan(20);
  }, 60_000);

  it('a window that never ends (windowMs 0) is not exported: express-rate-limit refuses it', async () => {
    const config: AnchoredWindowConfig = {
      kind: 'anchored-window',
      limit: 1,
      windowMs: 0,
      countRejected: true,
    };
    const out = toExpressRateLimit(config);
    expect(out.ok).toBe(false);
    expect(!out.ok && out.reason).toMatch(/refuses windowMs 0 \(ERR_ERL_WINDOW_MS\)/);
    // What such a text would do, run: the real package reports ERR_ERL_WINDOW_MS for windowMs 0
    // and then lets every request through, where the page refuses all but the first.
    vi.setSystemTime(SCENARIO_EPOCH_MS);
    const server = await startExport(
      `import express from 'express';
import { rateLimit } from 'express-rate-limit';

const app = express();
app.use(rateLimit({ windowMs: 0, limit: 1 }));

// Your routes here.

app.listen(process.env.PORT ?? 3000);
`,
      path.join(CACHE, 'window0.mjs'),
    );
    try {
      const port = (server.address() as AddressInfo).port;
      const lines: string[] = [];
      for (let i = 0; i < 3; i++) lines.push((await get(port, CLIENTS[0])).statusLine);
      expect(lines).toEqual(Array.from({ length: 3 }, () => 'HTTP/1.1 200 OK'));
      const model = createLimiter(config);
      expect([0, 0, 0].map((t) => model.decide(t, CLIENTS[0]).outcome)).toEqual([
        'admit',
        'reject',
        'reject',
      ]);
    } finally {
      await close(server);
    }
    expect(String(warned.flat().join(' '))).toMatch(/ERR_ERL_WINDOW_MS/);
    warned.length = 0;
  });
});
