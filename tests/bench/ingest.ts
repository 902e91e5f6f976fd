/**
 * Reading a large access log (`BENCH=ingest`), side by side with DuckDB on the same file in the
 * same run. Prints figures beside their targets with the load average; asserts nothing.
 *
 * The log is made from a seed, shaped like real combined logs: ~240 bytes a line (long referrers
 * and browsers' user agents), a few thousand client addresses with a heavy tail (Zipf-like: a few
 * addresses send most requests), times nearly in order. `INGEST_LINES` changes its length
 * (1,000,000 by default: ~237 MB).
 * - Node, one thread: TraceStream over the file's chunks (the same code a worker runs).
 * - DuckDB (`@duckdb/node-api`, engine 1.5.6) with 1 and 2 threads: reads the file as lines,
 *   extracts address and time with regular expressions and counts each address's requests per
 *   second — the question the lab's statistics answer.
 * - The pinned Chromium: the built playground reads the file chosen in its input (range workers,
 *   one per core); from the choice to the summary shown.
 * `INGEST_PROFILE=1` adds the page's CPU profile per thread and a timeline of every thread's work
 * (tests/bench/ingestProfile.ts); `INGEST_PHASES=n` adds n traced reads (no profiler) listing the
 * phases each thread marked (src/trace/phase.ts). `INGEST_RUNS=n` reads the file in n fresh pages;
 * `INGEST_PAGE=only` measures the page alone; `INGEST_FILE=path` reads that file (written first
 * when absent) and keeps it. Otherwise the file is deleted at the end. `INGEST_DIST=dir` serves
 * another build of the page (another commit's `dist`, to compare the two in one sitting).
 */
import {
  createWriteStream,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  closeSync,
  rmSync,
  statSync,
} from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from '@playwright/test';
import { TraceStream } from '../../src/trace';
import { TRACE_RECORD, measureLoad } from '../e2e/attacks';
import { recordPage } from '../e2e/pageRecorder';
import { launchPinned, startPreview } from './frames';
import { profileIngestInPage } from './ingestProfile';

const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
const s2 = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;

/** mulberry32: a small seeded generator (the bench's logs are the same on every run). */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const MON = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const p2 = (n: number): string => String(n).padStart(2, '0');
const AGENTS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4.1 Safari/605.1.15',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4.1 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0',
  'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  'curl/8.5.0',
];
const PATHS = [
  '/',
  '/api/v2/items',
  '/api/v2/items/1842/reviews',
  '/static/app.3f9c1b.js',
  '/login',
  '/search',
];
const REFERRERS = [
  '-',
  'https://www.example.com/',
  'https://www.example.com/search/results?q=rate+limit&utm_source=newsletter&utm_medium=email',
  'https://news.example.org/item?id=40123456',
];

/** Writes `lines` combined lines from `seed` to `path`; resolves to the bytes written. */
export async function writeRealLikeLog(path: string, lines: number, seed = 44): Promise<number> {
  const rnd = seeded(seed);
  const ADDRESSES = 5_000;
  const file = createWriteStream(path);
  let t = Date.UTC(2026, 2, 2, 0, 0, 0);
  let bytes = 0;
  for (let i = 0; i < lines;) {
    let s = '';
    for (let j = 0; j < 10_000 && i < lines; j += 1, i += 1) {
      // Heavy tail: address rank ~ 1/u (a few addresses send most requests).
      const rank = Math.min(ADDRESSES - 1, Math.floor(1 / (rnd() + 1 / ADDRESSES)) - 1);
      const ip = `${(rank * 7) % 223}.${(rank * 13) % 251}.${(rank >> 8) & 255}.${rank & 255}`;
      t += Math.floor(rnd() * 12);
      const d = new Date(t - (rnd() < 0.01 ? 2_000 : 0));
      const local = `${p2(d.getUTCDate())}/${MON[d.getUTCMonth()]}/${d.getUTCFullYear()}:${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())} +0000`;
      const path = PATHS[Math.floor(rnd() * PATHS.length)] as string;
      const status = rnd() < 0.03 ? 429 : rnd() < 0.05 ? 404 : 200;
      s += `${ip} - - [${local}] "GET ${path}?page=${Math.floor(rnd() * 40)}&sort=price_desc&lang=en-US HTTP/1.1" ${status} ${Math.floor(rnd() * 40_000)} "${REFERRERS[Math.floor(rnd() * REFERRERS.length)] as string}" "${AGENTS[Math.floor(rnd() * AGENTS.length)] as string}"\n`;
    }
    bytes += Buffer.byteLength(s);
    if (!file.write(s)) await new Promise<void>((r) => file.once('drain', () => r()));
  }
  await new Promise<void>((r) => file.end(r));
  return bytes;
}

/**
 * Installed before the page's scripts: stamps (page time) the moment the parsed trace reaches the
 * main thread (`window.__doneAt`: the parsing worker's `done` reply), the summary is first in the
 * document (`__summaryAt`) and the frame after it (`__summaryFrameAt`: the next animation frame,
 * when it is drawn). Runs in the page, so it uses nothing from outside itself.
 */
function stampSummary(): void {
  const w = window as unknown as {
    __summaryAt?: number;
    __summaryFrameAt?: number;
    __doneAt?: number;
  };
  const Native = window.Worker;
  window.Worker = class extends Native {
    constructor(url: string | URL, workerOptions?: WorkerOptions) {
      super(url, workerOptions);
      this.addEventListener('message', (e: MessageEvent<unknown>) => {
        const d = e.data as { type?: unknown } | null;
        if (d !== null && typeof d === 'object' && d.type === 'done')
          w.__doneAt ??= performance.now();
      });
    }
  };
  new MutationObserver((_, observer) => {
    if (document.querySelector('[data-testid="trace-summary"]') === null) return;
    w.__summaryAt = performance.now();
    requestAnimationFrame(() => {
      w.__summaryFrameAt = performance.now();
    });
    observer.disconnect();
  }).observe(document, { childList: true, subtree: true });
}

/** How long the pointed run waits between hovering the chooser and the choice (a file dialog), ms. */
const DIALOG_MS = 1500;

/** Clock ticks a second in /proc's stat files (USER_HZ: 100 on Linux). */
const TICKS_PER_S = 100;

/**
 * CPU ms each process of `browser` has used so far (its threads', ended ones included), by the
 * process type Chromium names (browser, renderer, gpu, utility …), summed per type, from
 * /proc/<pid>/stat (Linux only; empty elsewhere).
 */
async function chromeCpuMs(browser: Browser): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  const cdp = await browser.newBrowserCDPSession();
  try {
    const { processInfo } = (await cdp.send('SystemInfo.getProcessInfo')) as {
      processInfo: { type: string; id: number }[];
    };
    for (const p of processInfo) {
      try {
        // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
        const stat = readFileSync(`/proc/${p.id}/stat`, 'utf8');
        const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        const ms = ((Number(f[11]) + Number(f[12])) * 1000) / TICKS_PER_S;
        out.set(p.type, (out.get(p.type) ?? 0) + ms);
      } catch {
        // the process ended, or no /proc here
      }
    }
  } finally {
    await cdp.detach();
  }
  return out;
}

/** `after − before` per process type, as `renderer 1.23 s, browser 0.10 s`. */
function cpuSpent(before: Map<string, number>, after: Map<string, number>): string {
  const rows = [...after]
    .map(([type, ms]) => [type, ms - (before.get(type) ?? 0)] as const)
    .filter(([, ms]) => ms >= 10)
    .sort((a, b) => b[1] - a[1]);
  const total = rows.reduce((sum, [, ms]) => sum + ms, 0);
  return `${s2(total)} (${rows.map(([type, ms]) => `${type} ${s2(ms)}`).join(', ')})`;
}

/** TraceStream over the file in 1 MB chunks, one thread: wall and CPU ms, requests. */
function parseInNode(path: string): { wallMs: number; cpuMs: number; requests: number } {
  const fd = openSync(path, 'r');
  const buf = new Uint8Array(1 << 20);
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const s = new TraceStream({ name: 'bench.log' });
  for (;;) {
    const n = readSync(fd, buf, 0, buf.length, null);
    if (n === 0) break;
    s.push(buf.subarray(0, n));
  }
  const t = s.finish();
  const wallMs = performance.now() - t0;
  const c = process.cpuUsage(c0);
  closeSync(fd);
  return { wallMs, cpuMs: (c.user + c.system) / 1000, requests: t.count };
}

/** DuckDB: per address, per second, the requests — over the file read as lines. */
export async function duckdb(
  path: string,
  threads: number,
): Promise<{ wallMs: number; cpuMs: number; groups: number }> {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const db = await DuckDBInstance.create(':memory:', { threads: String(threads) });
  const con = await db.connect();
  // One VARCHAR column per line: a delimiter and quote no log line holds.
  const sql = `SELECT count(*) AS groups FROM (
      SELECT regexp_extract(line, '^(\\S+)', 1) AS addr,
             regexp_extract(line, '\\[(\\d{2}/\\w{3}/\\d{4}:\\d{2}:\\d{2}:\\d{2})', 1) AS sec,
             count(*) AS n
      FROM read_csv('${path}', columns = {'line': 'VARCHAR'}, delim = '\u0001', quote = '', escape = '', header = false)
      GROUP BY addr, sec)`;
  // The engine runs in this process: its CPU time is this process's.
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const reader = await con.runAndReadAll(sql);
  const wallMs = performance.now() - t0;
  const c = process.cpuUsage(c0);
  const groups = Number(reader.getRows()[0]?.[0] ?? 0);
  con.closeSync();
  db.closeSync();
  return { wallMs, cpuMs: (c.user + c.system) / 1000, groups };
}

export async function runIngestBench(distDir = 'dist'): Promise<void> {
  const lines = Number(process.env.INGEST_LINES ?? 1_000_000);
  // INGEST_FILE: read (and first write, when absent) this file, and keep it, to measure again.
  const kept = process.env.INGEST_FILE;
  const dir = join(tmpdir(), 'rate-limit-lab-ingest-bench');
  mkdirSync(dir, { recursive: true });
  const path = kept ?? join(dir, 'combined.log');
  // INGEST_PAGE=only: the page alone (no Node or DuckDB run; nothing to compare it with).
  const pageOnly = process.env.INGEST_PAGE === 'only';
  const runs = Math.max(1, Number(process.env.INGEST_RUNS ?? 1));
  const dist = process.env.INGEST_DIST ?? distDir;
  let browser: Browser | null = null;
  try {
    const bytes =
      kept !== undefined && existsSync(kept)
        ? statSync(kept).size
        : await writeRealLikeLog(path, lines);
    console.log(
      `ingest: ${lines.toLocaleString('en-US')} combined lines, ${(bytes / 1e6).toFixed(0)} MB (${(bytes / lines).toFixed(0)} bytes a line), seed 44; load average ${load()} on ${cpus().length} cores (shared: wall times are inflated)`,
    );
    let d2WallMs = Number.NaN;
    if (!pageOnly) {
      parseInNode(path); // warm-up (the JIT), as a page that has read a log before
      const node = parseInNode(path);
      console.log(
        `  Node, one thread: ${s2(node.wallMs)} wall, ${s2(node.cpuMs)} CPU, ${node.requests.toLocaleString('en-US')} requests, ${(bytes / 1e6 / (node.wallMs / 1000)).toFixed(0)} MB/s; load ${load()}`,
      );
      const d1 = await duckdb(path, 1);
      const d2 = await duckdb(path, 2);
      d2WallMs = d2.wallMs;
      console.log(
        `  DuckDB 1.5.6, per address per second (${d1.groups.toLocaleString('en-US')} groups): 1 thread ${s2(d1.wallMs)} wall (${s2(d1.cpuMs)} CPU), 2 threads ${s2(d2.wallMs)} wall (${s2(d2.cpuMs)} CPU); load ${load()}`,
      );
      console.log(
        `  target one thread ≤ DuckDB one thread: ${s2(node.wallMs)} vs ${s2(d1.wallMs)} wall → ${node.wallMs <= d1.wallMs ? 'met' : 'MISSED'}; CPU ${s2(node.cpuMs)} vs ${s2(d1.cpuMs)} → ${node.cpuMs <= d1.cpuMs ? 'met' : 'MISSED'}`,
      );
    }
    const started = await startPreview(dist);
    try {
      const launched = await launchPinned();
      browser = launched.browser;
      // Cold: the file given to the input at once. Pointed: as a person does it — the pointer on
      // the chooser (the page starts its parsing workers then), a moment in the file dialog, then
      // the choice.
      for (let run = 0; run < runs; run += 1) {
        for (const pointed of [false, true]) {
          // First as a person's browser reads it: no trace and no memory sampling, which on two
          // cores take CPU from the page's workers (the tracing service alone used ~0.17 s of CPU
          // in a read). The in-page stamps give the time; the traced read below gives the longest
          // main-thread task and the renderer's peak.
          const plain = await browser.newPage({ viewport: { width: 1280, height: 800 } });
          await plain.addInitScript(stampSummary);
          await plain.goto(new URL('./?v=1&paused', started.url).href);
          await plain.getByTestId('trace-file').waitFor({ state: 'attached' });
          if (pointed) {
            await plain.getByTestId('trace-file').hover();
            await plain.waitForTimeout(DIALOG_MS);
          }
          const plainCpu0 = await chromeCpuMs(browser);
          await plain.evaluate(() => {
            const input = document.querySelector('[data-testid="trace-file"]');
            input?.addEventListener(
              'change',
              () => {
                (window as unknown as { __chosenAt: number }).__chosenAt = performance.now();
              },
              { capture: true, once: true },
            );
          });
          await plain.getByTestId('trace-file').setInputFiles(path);
          await plain.getByTestId('trace-summary').waitFor({ timeout: 600_000 });
          await plain.waitForFunction(() => '__summaryFrameAt' in window);
          const plainCpu = cpuSpent(plainCpu0, await chromeCpuMs(browser));
          const plainMs = await plain.evaluate(() => {
            const w = window as unknown as { __summaryFrameAt: number; __chosenAt: number };
            return w.__summaryFrameAt - w.__chosenAt;
          });
          await plain.close();
          console.log(
            `  Chromium ${browser.version()}, untraced, ${pointed ? 'pointed' : 'cold'}: choice → summary drawn ${s2(plainMs)}; Chromium's CPU ${plainCpu}; load ${load()}`,
          );
          if (!pageOnly)
            console.log(
              `    target ≤ 1.0 s and ≤ 1.5 × DuckDB 2 threads (${s2(1.5 * d2WallMs)}): ${plainMs <= 1000 && plainMs <= 1.5 * d2WallMs ? 'met' : 'MISSED'}`,
            );
          // A fresh page each time: the first file a page reads.
          const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
          await page.addInitScript(recordPage, TRACE_RECORD);
          await page.addInitScript(stampSummary);
          await page.goto(new URL('./?v=1&paused', started.url).href);
          await page.getByTestId('trace-file').waitFor({ state: 'attached' });
          if (pointed) {
            await page.getByTestId('trace-file').hover();
            await page.waitForTimeout(DIALOG_MS);
          }
          const cpu0 = await chromeCpuMs(browser);
          const f = await measureLoad(page, path, () =>
            page.getByTestId('trace-summary').waitFor({ timeout: 600_000 }),
          );
          const cpu = cpuSpent(cpu0, await chromeCpuMs(browser));
          const count = (await page.getByTestId('trace-count').textContent()) ?? '';
          const cores = await page.evaluate(() => navigator.hardwareConcurrency);
          // In the page: from the change of the input to the summary in the document, and to the
          // frame that draws it. `toResultMs` also holds the trace's stop and a round trip to the
          // page after Playwright saw the summary.
          const inPage = await page.evaluate(() => {
            const w = window as unknown as {
              __summaryAt: number;
              __summaryFrameAt: number;
              __doneAt: number;
              __record: { chosenAt: number };
            };
            return {
              trace: w.__doneAt - w.__record.chosenAt,
              dom: w.__summaryAt - w.__record.chosenAt,
              frame: w.__summaryFrameAt - w.__record.chosenAt,
            };
          });
          const resultMs = inPage.frame;
          console.log(
            `  Chromium ${browser.version()}, ${cores} range workers, ${pointed ? `pointed (chooser hovered ${DIALOG_MS} ms before)` : 'cold'}: choice → summary drawn ${s2(inPage.frame)} (trace on the main thread ${s2(inPage.trace)}, summary in the document ${s2(inPage.dom)}; seen from Playwright after the trace stopped ${s2(f.toResultMs)}) (${count} requests), longest main-thread task ${Math.round(f.longestTaskMs)} ms, renderer peak ${Math.round(f.peakMb)} MB; Chromium's CPU ${cpu}; load ${load()}`,
          );
          if (!pageOnly)
            console.log(
              `    traced: ${resultMs <= 1000 && resultMs <= 1.5 * d2WallMs ? 'within' : 'over'} the target with the trace's own CPU`,
            );
          await page.close();
        }
      }
    } finally {
      await browser?.close();
      started.child.kill();
    }
    // INGEST_PROFILE=1: where the page's time goes, per thread (V8's sampling profiler).
    if (process.env.INGEST_PROFILE === '1') await profileIngestInPage(path, dist);
    // INGEST_PHASES=n: n traced reads (no profiler) with the phases each thread marked.
    for (let i = 0; i < Number(process.env.INGEST_PHASES ?? 0); i += 1)
      await profileIngestInPage(path, dist, false);
    console.log(
      '  4 GB / 16M lines (statistics, dry run, sweep as streaming passes): measured by `BENCH=ingest INGEST=stream npm run bench` (tests/bench/ingestStream.ts)',
    );
    console.log(
      `  file ${path}: ${(statSync(path).size / 1e6).toFixed(0)} MB, ${kept !== undefined ? 'kept (INGEST_FILE)' : 'deleted'}`,
    );
  } finally {
    if (kept === undefined) rmSync(dir, { recursive: true, force: true });
  }
}
