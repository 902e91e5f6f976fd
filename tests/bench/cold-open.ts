/**
 * Cold opening (`BENCH=decode`): each hostile link and saved record opened once in a
 * fresh Node process, and in a fresh context of the pinned Chromium reading the page's own measure.
 * A user opening a shared link is this cold case: nothing compiled yet. Figures only.
 */
import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import type { Browser } from '@playwright/test';
import { defaultConfig } from '../../src/config';
import { MAX_MANUAL_TIMES, MAX_SOURCES } from '../../src/sim';
import { OPEN_MEASURE, STORAGE_KEY, startFrom } from '../../src/ui/share/session';
import { openLink } from '../../src/ui/share/openLink';
import { openSaved } from '../../src/ui/share/openSaved';
import { launchPinned, startPreview } from './frames';
import { hostileLinks } from './hostile';
import { hostileSavedRecords } from '../config/saved-records';
import { savedRecordOver } from '../../src/config/saved';

/** What one fresh process measured: the first decode of one link (or saved record) in it. */
interface ColdFigures {
  cpuMs: number;
  wallMs: number;
}

/**
 * Saved settings (the localStorage record, as JSON text) a corrupted or planted store could hold:
 * the earlier ones, then the largest the page writes and records at the edge of each limit of
 * src/config/saved.ts (tests/config/saved-records.ts).
 */
function hostileSaved(): Record<string, string> {
  return { ...earlierSaved(), ...hostileSavedRecords() };
}

/** The records of the first search (c15): corrupted shapes of what the page writes. */
function earlierSaved(): Record<string, string> {
  const record = (config: unknown): string => JSON.stringify({ config, experiment: null });
  const base = defaultConfig();
  const withSources = (sources: unknown[]): string =>
    record({ ...base, scenario: { ...base.scenario, sources } });
  const list = (f: (i: number) => unknown, n = MAX_MANUAL_TIMES): unknown[] =>
    Array.from({ length: n }, (_, i) => f(i));
  const manual = (f: (i: number) => unknown, n?: number) => ({
    kind: 'manual',
    timesMs: list(f, n),
  });
  return {
    '32 sources × 10,000 valid times': withSources(list(() => manual((i) => i), MAX_SOURCES)),
    '32 sources × 10,000 distinct negative times': withSources(
      list(() => manual((i) => -1 - i), MAX_SOURCES),
    ),
    '32 sources × 10,000 distinct strings': withSources(
      list(() => manual((i) => `t${i}`), MAX_SOURCES),
    ),
    '32 sources × 10,000 distinct fractions': withSources(
      list(() => manual((i) => i + 0.5), MAX_SOURCES),
    ),
    '32 sources × 10,000 objects': withSources(list(() => manual((i) => ({ t: i })), MAX_SOURCES)),
    '300 sources × 1,000 valid times': withSources(list(() => manual((i) => i, 1000), 300)),
    '10,001 limiters of an unknown kind': record({
      ...base,
      limiters: list((i) => ({ config: { kind: `k${i}` } }), 10_001),
    }),
    '10,001 clock jumps': record({
      ...base,
      scenario: {
        ...base.scenario,
        clock: { mode: 'wall', jumps: list((i) => ({ atMs: i, byMs: 0 }), 10_001) },
      },
    }),
    'lists nested 6 deep, 10 wide': record(
      JSON.parse(
        Array.from({ length: 6 }).reduce<string>(
          (inner) => `[${Array<string>(10).fill(inner).join(',')}]`,
          '1',
        ),
      ),
    ),
  };
}

/** The hostile links, or none with `DECODE=saved` (only the saved records). */
function links(): Record<string, string> {
  return process.env.DECODE === 'saved' ? {} : hostileLinks();
}

/**
 * The child side of the cold decode: opens the page's start (src/ui/share/session.ts `startFrom`)
 * from one hostile link or saved record, once, in this fresh process (nothing decoded before it, so
 * first-call compilation counts, as in a tab opened with a shared link), and sends the CPU and
 * wall time of that call. Returns false when not such a child.
 */
export function runDecodeChild(): boolean {
  const link = process.env.BENCH_DECODE_LINK;
  const saved = process.env.BENCH_DECODE_SAVED;
  if ((link === undefined && saved === undefined) || process.send === undefined) return false;
  // Made before the clock starts: in a tab the record is there before the page reads it.
  const record = saved === undefined ? '' : (hostileSaved()[saved] ?? '');
  const storage = { getItem: () => record } as unknown as Storage;
  const w0 = performance.now();
  const c0 = process.cpuUsage();
  if (saved === undefined) startFrom(`?${link}`, null, null, openLink);
  else startFrom('', storage, openSaved, null);
  const c = process.cpuUsage(c0);
  const figures: ColdFigures = {
    cpuMs: (c.user + c.system) / 1000,
    wallMs: performance.now() - w0,
  };
  process.send(figures);
  return true;
}

/** A link's text, or the name of a saved record (made in the child: megabytes). */
type ColdJob = { BENCH_DECODE_LINK: string } | { BENCH_DECODE_SAVED: string };

export function coldDecode(job: ColdJob): Promise<ColdFigures> {
  return new Promise((resolve, reject) => {
    const prof = process.env.BENCH_CPU_PROF;
    const child = fork(process.argv[1] as string, [], {
      env: { ...process.env, ...job },
      execArgv: prof === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', prof],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    child.once('message', (m) => resolve(m as ColdFigures));
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) reject(new Error(`decode bench child exited with ${code}`));
    });
  });
}

/**
 * Cold opening: each hostile link and saved record opened once in a fresh Node process. CPU is the
 * whole process's (the compiler and GC threads count too), so it is the higher of the two figures
 * on a quiet machine; wall is inflated by other load.
 */
export async function runColdDecodeBench(): Promise<void> {
  let worst = 0;
  const show = async (name: string, job: ColdJob): Promise<void> => {
    const f = await coldDecode(job);
    worst = Math.max(worst, f.cpuMs);
    console.log(
      `  ${name.padEnd(64)} ${f.cpuMs.toFixed(1).padStart(6)} ms CPU ${f.wallMs.toFixed(1).padStart(6)} ms wall`,
    );
  };
  console.log(
    'Cold open from a link: each decoded once in a fresh Node process (startFrom; budget 50 ms):',
  );
  for (const [name, link] of Object.entries(links())) await show(name, { BENCH_DECODE_LINK: link });
  console.log('Cold open from saved settings (JSON.parse and repair of the stored record):');
  for (const [name, text] of Object.entries(hostileSaved())) {
    const over = savedRecordOver(text);
    const size = `${(text.length / 1e6).toFixed(1)} MB${over === null ? '' : `, not opened: ${over}`}`;
    await show(`${name} (${size})`, { BENCH_DECODE_SAVED: name });
  }
  console.log(`  worst cold open ${worst.toFixed(1)} ms CPU (budget 50 ms)`);
}

/**
 * Opening in the pinned Chromium: each hostile link (and saved record, put in localStorage before
 * the page loads) in a fresh browser context (no cache, no compiled code), reading the measure the
 * page records around decode and repair (OPEN_MEASURE, main.tsx).
 */
export async function runBrowserOpenBench(distDir = 'dist'): Promise<void> {
  if (!existsSync(join(distDir, 'index.html'))) {
    throw new Error(`No ${distDir}/index.html: build the site first (npm run bench does).`);
  }
  let preview: ChildProcess | null = null;
  let browser: Browser | null = null;
  try {
    const started = await startPreview(distDir);
    preview = started.child;
    browser = (await launchPinned()).browser;
    console.log(
      `Cold open in headless Chromium ${browser.version()}: a fresh context per link, the page's "${OPEN_MEASURE}" measure (budget 50 ms)${Number(process.env.DECODE_RUNS ?? 1) > 1 ? `, best of ${process.env.DECODE_RUNS} fresh contexts` : ''}:`,
    );
    let worst = 0;
    // DECODE_RUNS=n opens each n times, each in a fresh context, and reports the best: on a loaded
    // machine one run can be held up by other processes for 100 ms and more.
    const runs = Math.max(1, Number(process.env.DECODE_RUNS ?? 1));
    const openOnce = async (query: string, saved: string | null): Promise<number> => {
      const context = await (browser as Browser).newContext({
        viewport: { width: 1280, height: 800 },
      });
      if (saved !== null) {
        await context.addInitScript(
          ([key, value]) => {
            if (window.localStorage.getItem(key) === null) window.localStorage.setItem(key, value);
          },
          [STORAGE_KEY, saved] as const,
        );
      }
      const page = await context.newPage();
      await page.goto(`${started.url}${query}`);
      const handle = await page.waitForFunction(
        (measure) => performance.getEntriesByName(measure)[0]?.duration,
        OPEN_MEASURE,
      );
      const ms = (await handle.jsonValue()) as number;
      await context.close();
      return ms;
    };
    const open = async (name: string, query: string, saved: string | null): Promise<void> => {
      let ms = Number.POSITIVE_INFINITY;
      for (let r = 0; r < runs; r += 1) ms = Math.min(ms, await openOnce(query, saved));
      worst = Math.max(worst, ms);
      console.log(`  ${name.padEnd(64)} ${ms.toFixed(1).padStart(6)} ms`);
    };
    for (const [name, link] of Object.entries(links())) await open(name, `?${link}`, null);
    for (const [name, text] of Object.entries(hostileSaved())) {
      const over = savedRecordOver(text);
      await open(`saved: ${name}${over === null ? '' : ` (not opened: ${over})`}`, '', text);
    }
    console.log(
      `  worst ${worst.toFixed(1)} ms (budget 50 ms); load average ${loadavg()[0]?.toFixed(1)}`,
    );
  } finally {
    await browser?.close();
    preview?.kill();
  }
}
