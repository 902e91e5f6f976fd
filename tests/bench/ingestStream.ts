/**
 * A log too large to hold, streamed in the pinned Chromium (`BENCH=ingest INGEST=stream`): a
 * combined log made from a seed (tests/bench/ingest.ts `writeRealLikeLog`: ~240 bytes a line, a
 * few thousand addresses with a heavy tail), 16,000,000 lines (~3.9 GB) by default
 * (`STREAM_LINES` changes it), under /tmp/stream/. The built page reads it through its file input:
 * from the choice to the streaming pass's result (per-key statistics and the default limiter's
 * dry run), the renderer's peak memory and the longest main-thread task (judged by its CPU time,
 * printed beside its wall-clock time: tests/e2e/mainThread.ts); then the streamed 20 × 20
 * sweep of the default limiter (one read of the file, every cell over its compact copy), its time,
 * peak memory and longest task; then, when `STREAM_SWEEP` names systems (`STREAM_SWEEP=kong,
 * envoy-global,express-rate-limit`: ids of src/systems), each one's default limiter picked in the
 * page, its statistics pass and its streamed sweep over the same open file with the same figures
 * (`STREAM_SWEEP=0` leaves every sweep out, `STREAM_DEFAULT_SWEEP=0` the default limiter's); DuckDB (2 threads) on the same file beside it. Prints each figure beside its target with the load average; asserts
 * nothing. `STREAM_SHOTS=dir` also saves screenshots of the result (1280 px and 390 px, dark).
 * The file is deleted at the end.
 */
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  readSync,
  rmSync,
  statSync,
} from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { expect } from '@playwright/test';
import type { Browser, Page } from '@playwright/test';
import { TRACE_RECORD, measureLoad, rendererMb } from '../e2e/attacks';
import { describeMainThread, traceMainThread } from '../e2e/mainThread';
import type { MainThreadRecord } from '../e2e/mainThread';
import { recordPage } from '../e2e/pageRecorder';
import { freePort, launchPinned, startPreview } from './frames';
import { IsolateHeaps, describeIsolates } from './isolateHeaps';
import type { IsolateFigures } from './isolateHeaps';
import { duckdb, writeRealLikeLog } from './ingest';
import { defaultConfig, laneNames } from '../../src/config';
import { SYSTEM_IDS, systemById } from '../../src/systems';
import type { SystemId } from '../../src/systems';
import type { AlgorithmConfig } from '../../src/core';
import {
  BlobSink,
  StreamPass,
  TraceStream,
  belowP99OfCounts,
  nextLineStart,
  rangeHead,
  sweepPlan,
  sweepRecorded,
} from '../../src/trace';
import type { ParseOptions, StreamSource } from '../../src/trace';
import { partsFormat } from '../../src/trace/parse';

const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

/**
 * The streamed 20 × 20 sweep over the file the page holds open: from the click to the finished
 * grid, when its read of the file ended, the renderers' peak memory and the main thread's tasks
 * (a CDP trace from just before the click: their CPU and wall-clock time, tests/e2e/mainThread.ts).
 */
async function measureSweep(
  page: Page,
  browser: Browser,
): Promise<{
  ok: boolean;
  cells: number;
  ms: number;
  readMs: number;
  peakMb: number;
  mainThread: MainThreadRecord;
  shown: string;
}> {
  const sweep = page.getByTestId('trace-streamed-sweep');
  const button = sweep.getByRole('button', { name: /^Sweep \d+ settings$/ });
  const cells = Number((await button.textContent())?.match(/\d+/)?.[0] ?? 0);
  const progress = sweep.getByTestId('sweep-progress');
  let peakMb = await rendererMb(browser);
  let readMs = Number.NaN;
  let reading = false;
  let sampling = true;
  const trace = await traceMainThread(browser);
  const t0 = Date.now();
  const sampler = (async () => {
    while (sampling) {
      peakMb = Math.max(peakMb, await rendererMb(browser));
      const text = (await progress.textContent().catch(() => '')) ?? '';
      // The sweep reads the text only when no copy of the statistics pass is kept.
      if (text.startsWith('Reading')) reading = true;
      else if (reading && Number.isNaN(readMs)) readMs = Date.now() - t0;
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  await button.click();
  let ok = true;
  try {
    await expect(progress).toHaveText(/exact$|not exact|Could not|stopped/, { timeout: 1_800_000 });
  } catch {
    ok = false;
  } finally {
    sampling = false;
    await sampler;
  }
  const ms = Date.now() - t0;
  const mainThread = await trace.stop();
  const shown = (await progress.textContent()) ?? '';
  ok &&= /exact$/.test(shown);
  if (!reading) readMs = 0;
  return { ok, cells, ms, readMs, peakMb, mainThread, shown };
}

/** CPU seconds (user + system) the renderer processes have used so far (/proc/PID/stat). */
async function rendererCpuS(browser: Browser): Promise<number> {
  const cdp = await browser.newBrowserCDPSession();
  try {
    const { processInfo } = (await cdp.send('SystemInfo.getProcessInfo')) as {
      processInfo: { type: string; id: number }[];
    };
    let ticks = 0;
    for (const p of processInfo) {
      if (p.type !== 'renderer') continue;
      try {
        // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
        const stat = readFileSync(`/proc/${p.id}/stat`, 'utf8');
        const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        ticks += Number(f[11]) + Number(f[12]);
      } catch {
        // the process ended
      }
    }
    return ticks / 100;
  } finally {
    await cdp.detach();
  }
}

/**
 * The renderers' resident memory split as Linux counts it (/proc/PID/status, MB): anonymous pages
 * (malloc and PartitionAlloc, V8 heaps, ArrayBuffer stores), file pages mapped in, and shared
 * memory (Mojo data pipes and shared buffers, which carry a Blob's or a file's bytes between the
 * browser and the renderer). Their sum is what `rendererMb` reports. Also the renderers' threads
 * named "DedicatedWorker…" (/proc/PID/task/TID/comm): a worker's thread that outlives its
 * `terminate()` keeps its isolate's memory, so a count above the workers alive shows it.
 *
 * Memory an ended worker leaves with no thread: V8 (src/heap/memory-pool.cc `ReleaseOnTearDown`,
 * v8/v8 at 162d2370; the pinned Chromium 143 behaves so) moves an ended isolate's pooled heap
 * pages to a pool other isolates reuse, and frees them 8 s later in a task it posts on another
 * live isolate. Running the bench with
 * EXTRA_ARGS=--js-flags=--no-memory-pool-share-memory-on-teardown frees them at the worker's end
 * instead, which shows how much of the memory before a pass is that pool.
 */
async function rendererRss(browser: Browser): Promise<{
  totalMb: number;
  anonMb: number;
  fileMb: number;
  shmemMb: number;
  workerThreads: number;
}> {
  const cdp = await browser.newBrowserCDPSession();
  try {
    const { processInfo } = (await cdp.send('SystemInfo.getProcessInfo')) as {
      processInfo: { type: string; id: number }[];
    };
    const kb = { VmRSS: 0, RssAnon: 0, RssFile: 0, RssShmem: 0 };
    let workerThreads = 0;
    for (const p of processInfo) {
      if (p.type !== 'renderer') continue;
      try {
        const status = readFileSync(`/proc/${p.id}/status`, 'utf8');
        for (const k of Object.keys(kb) as (keyof typeof kb)[]) {
          kb[k] += Number(new RegExp(`${k}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
        }
        for (const tid of readdirSync(`/proc/${p.id}/task`)) {
          const comm = readFileSync(`/proc/${p.id}/task/${tid}/comm`, 'utf8');
          if (comm.startsWith('DedicatedWorker')) workerThreads += 1;
        }
      } catch {
        // the process ended
      }
    }
    return {
      totalMb: kb.VmRSS / 1024,
      anonMb: kb.RssAnon / 1024,
      fileMb: kb.RssFile / 1024,
      shmemMb: kb.RssShmem / 1024,
      workerThreads,
    };
  } finally {
    await cdp.detach();
  }
}

/**
 * Samples the renderer's resident memory and every isolate's heap (page, pass worker, range and
 * cell workers) until stopped: the breakdown at the renderer's peak, and each kind's own peak.
 */
function watchMemory(
  browser: Browser,
  heaps: IsolateHeaps,
): { stop: () => Promise<{ peakMb: number; atPeak: string; kindPeaks: string }> } {
  let sampling = true;
  let peakMb = 0;
  let atPeak = new Map<string, IsolateFigures>();
  let rssAtPeak = '';
  const kindPeaks = new Map<string, IsolateFigures>();
  const sampler = (async () => {
    while (sampling) {
      const [rss, m] = await Promise.all([rendererRss(browser), heaps.sample()]);
      const mb = rss.totalMb;
      if (mb > peakMb) {
        peakMb = mb;
        atPeak = m;
        rssAtPeak = `anonymous ${rss.anonMb.toFixed(0)} + file ${rss.fileMb.toFixed(0)} + shared ${rss.shmemMb.toFixed(0)}`;
      }
      for (const [kind, f] of m) {
        const was = kindPeaks.get(kind);
        if (was === undefined || f.heapMb + f.buffersMb > was.heapMb + was.buffersMb)
          kindPeaks.set(kind, f);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  })();
  return {
    stop: async () => {
      sampling = false;
      await sampler;
      return {
        peakMb,
        atPeak: `${describeIsolates(atPeak)}; resident ${rssAtPeak}`,
        kindPeaks: describeIsolates(kindPeaks),
      };
    },
  };
}

const cpuMs = (c: NodeJS.CpuUsage): number => (c.user + c.system) / 1000;

/**
 * Where the streamed pass spends its CPU, phase by phase, measured on one thread in Node over the
 * file's first `sampleBytes` (segments as the page cuts them) and scaled to the whole file: reading
 * the bytes, parsing a segment (what each range worker does), merging the parts through the reorder
 * window with the per-key statistics and the default limiter's dry run (the pass worker), writing
 * the compact copy, and one sweep cell over the copy (per request and cell).
 */
async function phasesInNode(path: string, sampleBytes: number): Promise<void> {
  const size = statSync(path).size;
  const fd = openSync(path, 'r');
  try {
    const read = (a: number, b: number): Uint8Array => {
      const u = new Uint8Array(b - a);
      readSync(fd, u, 0, b - a, a);
      return u;
    };
    const src: StreamSource = {
      name: 'bench.log',
      size,
      slice: (a = 0, b = size) => new Blob([read(a, Math.min(b, size)) as Uint8Array<ArrayBuffer>]),
      stream: () => {
        throw new Error('not streamed');
      },
    };
    const keySpec = [{ kind: 'client' as const }];
    const opts: ParseOptions = {
      name: 'bench.log',
      keySpec,
      maxRequests: Number.MAX_SAFE_INTEGER,
      maxTextBytes: Number.MAX_SAFE_INTEGER,
    };
    const head = rangeHead(read(0, 128 * 1024), opts);
    if (head === null) throw new Error('the bench log is not read in ranges');
    const limiter = defaultConfig().limiters[0]?.config as AlgorithmConfig;
    let readCpu = 0;
    let parseCpu = 0;
    const segments: Uint8Array[] = [];
    for (let cut = 0; cut < Math.min(size, sampleBytes);) {
      const end = await nextLineStart(src, cut + 32 * 1024 * 1024);
      const c0 = process.cpuUsage();
      segments.push(read(cut, end));
      readCpu += cpuMs(process.cpuUsage(c0));
      cut = end;
    }
    const bytes = segments.reduce((a, b) => a + b.length, 0);
    const parse = () => {
      let at = 0;
      return segments.map((b) => {
        const s = new TraceStream({ ...opts, detectFrom: head, rangeStart: at });
        s.push(b);
        at += b.length;
        return s.finishPart();
      });
    };
    parse(); // warm-up (the JIT), as range workers reading their second segment
    const p0 = process.cpuUsage();
    const parts = parse();
    parseCpu = cpuMs(process.cpuUsage(p0));
    const merge = (sink: BlobSink | null) => {
      const pass = new StreamPass('bench.log', keySpec, [limiter], 'recorded', sink);
      const c0 = process.cpuUsage();
      for (const part of parts) pass.merger.add(part);
      const r = pass.finish(pass.merger.finishReport(partsFormat({ ...opts, detectFrom: head })));
      return { pass, r, cpu: cpuMs(process.cpuUsage(c0)) };
    };
    merge(null); // warm-up
    const plain = merge(null);
    const sink = new BlobSink();
    const recorded = merge(sink);
    const requests = plain.r.requests;
    const v = recorded.pass.keyVolumes();
    const plan = sweepPlan(limiter, 20);
    const grid: AlgorithmConfig[] = [];
    if (plan !== null)
      for (let xi = 0; xi < plan.x.values.length; xi += 1)
        for (let yi = 0; yi < plan.y.values.length; yi += 1) grid.push(plan.configAt(xi, yi));
    const some = grid.filter((_, i) => i % Math.max(1, Math.floor(grid.length / 8)) === 0);
    const rec = { blob: sink.blob(), count: requests, keys: v.keys };
    const below = belowP99OfCounts(Array.from(v.counts));
    await sweepRecorded(rec, some.slice(0, 1), 1000, below, null); // warm-up
    const s0 = process.cpuUsage();
    await sweepRecorded(rec, some, 1000, below, null);
    const cellNs = (cpuMs(process.cpuUsage(s0)) * 1e6) / (requests * some.length);
    const scale = size / bytes;
    const s1 = (ms: number): string => `${((ms * scale) / 1000).toFixed(1)} s`;
    console.log(
      `  phases, CPU on one Node thread over the first ${(bytes / 1e6).toFixed(0)} MB (${requests.toLocaleString('en-US')} requests), scaled to the whole file; load ${load()}:`,
    );
    console.log(
      `    read the bytes ${s1(readCpu)}; parse (range workers, shared by the cores) ${s1(parseCpu)}; merge + reorder window + per-key statistics + dry run (the pass worker) ${s1(plain.cpu)}; + writing the compact copy ${s1(recorded.cpu - plain.cpu)}`,
    );
    console.log(
      `    sweep cells over the copy: ${cellNs.toFixed(1)} ns a request and cell (${some.length} cells of the ${grid.length}), so ${((cellNs * requests * scale * grid.length) / 1e9).toFixed(1)} s CPU for the whole grid, shared by the cores`,
    );
  } finally {
    closeSync(fd);
  }
}

/**
 * What `STREAM_SWEEP` asks for: no sweep ('0'), the default limiter's ('' or unset, or '1'), or the
 * default limiter's and then each named system's (ids of src/systems, comma-separated). An id the
 * page does not know is refused before the file is written, naming it and the known ones.
 */
export function streamSweeps(
  value: string | undefined,
): { sweep: false } | { sweep: true; systems: SystemId[] } {
  const text = (value ?? '').trim();
  if (text === '0') return { sweep: false };
  if (text === '' || text === '1') return { sweep: true, systems: [] };
  const systems: SystemId[] = [];
  for (const part of text.split(',')) {
    const id = part.trim();
    if (id === '') continue;
    if (!SYSTEM_IDS.includes(id)) {
      throw new Error(
        `STREAM_SWEEP: no system called "${id}"; the systems are ${SYSTEM_IDS.join(', ')} (or 0 for no sweep)`,
      );
    }
    if (!systems.includes(id)) systems.push(id);
  }
  return { sweep: true, systems };
}

/** Runs the streamed sweep of the limiter the page shows and prints its figures under `title`. */
async function reportSweep(
  page: Page,
  browser: Browser,
  heaps: IsolateHeaps,
  title: string,
): Promise<void> {
  const sweepCpu0 = await rendererCpuS(browser);
  const before = await rendererRss(browser);
  const sweepMemory = watchMemory(browser, heaps);
  // STREAM_PROFILE=s: V8's sampling profiler in each cell worker from its start for s seconds of
  // the sweep (it must stop while the workers live), then the self time by function.
  const profileS = Number(process.env.STREAM_PROFILE ?? 0);
  if (profileS > 0) heaps.profile(['streamSweepCells']);
  const profiled =
    profileS > 0
      ? new Promise((r) => setTimeout(r, profileS * 1000)).then(() => heaps.stopProfiles())
      : null;
  const sw = await measureSweep(page, browser);
  const sweepMem = await sweepMemory.stop();
  const sweepCpu = (await rendererCpuS(browser)) - sweepCpu0;
  console.log(
    `  ${title} (${sw.cells} cells): ${sw.ok ? `${(sw.ms / 1000).toFixed(1)} s` : 'did not finish'} (target ≤ 120 s): ${sw.readMs > 0 ? `one read of the file ${(sw.readMs / 1000).toFixed(1)} s, ` : 'no read of the text (the copy the statistics pass recorded), '}the cells over its compact copy ${((sw.ms - sw.readMs) / 1000).toFixed(1)} s; renderer peak memory ${Math.round(sw.peakMb)} MB (target ≤ 300 MB); ${describeMainThread(sw.mainThread, 50)}; load ${load()}`,
  );
  console.log(`    shown: ${sw.shown.slice(0, 200)}`);
  console.log(
    `    before the sweep: renderer ${Math.round(before.totalMb)} MB (anonymous ${before.anonMb.toFixed(0)} + file ${before.fileMb.toFixed(0)} + shared ${before.shmemMb.toFixed(0)}); worker threads ${before.workerThreads}`,
  );
  console.log(
    `    at the renderer's peak (${Math.round(sweepMem.peakMb)} MB as sampled with the heaps), MB: ${sweepMem.atPeak}`,
  );
  console.log(`    each kind's own peak, MB: ${sweepMem.kindPeaks}`);
  console.log(`    renderer CPU over the sweep: ${sweepCpu.toFixed(1)} s (every thread)`);
  if (profiled !== null) {
    heaps.profile([]);
    const p = await profiled;
    console.log(
      `    cell workers' profile over the sweep's first ${profileS} s (${p.isolates} isolates, ${(p.totalMs / 1000).toFixed(1)} s sampled), self time:`,
    );
    for (const [name, ms] of p.rows.slice(0, 12)) {
      console.log(
        `      ${(ms / 1000).toFixed(2)} s ${((100 * ms) / p.totalMs).toFixed(1)}% ${name}`,
      );
    }
  }
}

/**
 * Picks system `id` for the page's (only) limiter, which sets the system's default config: the
 * statistics pass runs again for it over the open file. Waits for that pass (its dry run named
 * after the lane, no pass running), prints its figures, then sweeps as for the default limiter.
 */
async function sweepSystem(
  page: Page,
  browser: Browser,
  heaps: IsolateHeaps,
  id: SystemId,
): Promise<void> {
  const system = systemById(id);
  if (system === undefined) throw new Error(`STREAM_SWEEP: no system called "${id}"`);
  const config = system.defaultConfig;
  const plan = sweepPlan(config, 20, system.params);
  const lane = laneNames([{ system: id, config }])[0] ?? id;
  console.log(`  ${id} (${system.name}), its default config ${JSON.stringify(config)}:`);
  const passCpu0 = await rendererCpuS(browser);
  // What the renderer holds before the pass (what earlier passes and sweeps left resident).
  const before = await rendererRss(browser);
  const idle = await heaps.sample();
  const passMemory = watchMemory(browser, heaps);
  const trace = await traceMainThread(browser);
  const t0 = Date.now();
  await page.getByLabel('System', { exact: true }).selectOption(id);
  const dry = page.getByTestId('trace-streamed-dry');
  let ok = true;
  try {
    // The dry run carries the lane's name only once its figures are this config's.
    await expect
      .poll(
        async () => ((await dry.textContent().catch(() => null)) ?? '').startsWith(`${lane}:`),
        {
          timeout: 1_800_000,
          intervals: [100],
        },
      )
      .toBe(true);
    await expect(page.getByTestId('trace-streamed-progress')).toHaveCount(0, {
      timeout: 1_800_000,
    });
  } catch {
    ok = false;
  }
  const ms = Date.now() - t0;
  const mainThread = await trace.stop();
  const passMem = await passMemory.stop();
  const passCpu = (await rendererCpuS(browser)) - passCpu0;
  const errors = await page.getByTestId('trace-streamed-error').allTextContents();
  console.log(
    `    statistics pass + dry run for ${lane}: ${ok ? `${(ms / 1000).toFixed(1)} s` : 'did not finish'} (target ≤ 30 s); renderer peak memory ${Math.round(passMem.peakMb)} MB (target ≤ 300 MB); ${describeMainThread(mainThread, 50)}; renderer CPU ${passCpu.toFixed(1)} s; load ${load()}`,
  );
  console.log(`    shown: ${((await dry.textContent().catch(() => '')) ?? '').slice(0, 200)}`);
  console.log(
    `    before the pass: renderer ${Math.round(before.totalMb)} MB (anonymous ${before.anonMb.toFixed(0)} + file ${before.fileMb.toFixed(0)} + shared ${before.shmemMb.toFixed(0)}); worker threads ${before.workerThreads}; isolates: ${describeIsolates(idle)}`,
  );
  console.log(
    `    at the renderer's peak (${Math.round(passMem.peakMb)} MB as sampled with the heaps), MB: ${passMem.atPeak}`,
  );
  console.log(`    each kind's own peak, MB: ${passMem.kindPeaks}`);
  if (errors.length > 0) console.log(`    error shown: ${errors.join(' ').slice(0, 200)}`);
  if (!ok) return;
  if (plan === null) {
    console.log('    no sweep: the page lays out no two parameters for this limiter');
    return;
  }
  await reportSweep(page, browser, heaps, `${lane}: 20 × 20 sweep as a streaming pass`);
}

export async function runIngestStreamBench(distDir = 'dist'): Promise<void> {
  const lines = Number(process.env.STREAM_LINES ?? 16_000_000);
  // Checked before the file is written (minutes at 16M lines).
  const sweeps = streamSweeps(process.env.STREAM_SWEEP);
  // STREAM_DIR: where the file is written (benches run side by side must not share it).
  const dir = process.env.STREAM_DIR ?? '/tmp/stream';
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `stream-bench-${lines}.log`);
  const keep = process.env.STREAM_KEEP === '1';
  let browser: Browser | null = null;
  const started = await startPreview(distDir);
  try {
    // STREAM_KEEP=1 keeps the file for the next run, which reads it again instead of writing it.
    const bytes =
      keep && existsSync(path) ? statSync(path).size : await writeRealLikeLog(path, lines);
    console.log(
      `stream: ${lines.toLocaleString('en-US')} combined lines, ${(bytes / 1e9).toFixed(2)} GB (${(bytes / lines).toFixed(0)} bytes a line), seed 44; load average ${load()} on ${cpus().length} cores (shared: wall times are inflated)`,
    );
    if (process.env.STREAM_PHASES !== '0') {
      await phasesInNode(path, 256 * 1024 * 1024).catch((e: unknown) =>
        console.log(`  phases: could not be measured: ${String(e)}`),
      );
    }
    // A DevTools port of its own: a second client asks every isolate for its heap.
    const devtools = await freePort();
    const launched = await launchPinned([`--remote-debugging-port=${devtools}`]);
    browser = launched.browser;
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.addInitScript(recordPage, TRACE_RECORD);
    await page.goto(new URL('./?v=1&paused', started.url).href);
    await page.getByTestId('trace-file').waitFor({ state: 'attached' });
    const heaps = await IsolateHeaps.attach(devtools, started.url);
    const idle = await heaps.sample();
    console.log(
      `  memory before the file: renderer ${Math.round(await rendererMb(browser))} MB; isolates: ${describeIsolates(idle)}`,
    );
    const passCpu0 = await rendererCpuS(browser);
    const passMemory = watchMemory(browser, heaps);
    const f = await measureLoad(page, path, async () => {
      await page
        .getByTestId('trace-streamed-result')
        .or(page.getByTestId('trace-summary'))
        .or(page.getByTestId('trace-error'))
        .or(page.getByTestId('trace-streamed-error'))
        .waitFor({ timeout: 1_800_000 });
    });
    const passMem = await passMemory.stop();
    const passCpu = (await rendererCpuS(browser)) - passCpu0;
    const streamed = (await page.getByTestId('trace-streamed-result').count()) > 0;
    const shown = streamed
      ? ((await page.getByTestId('trace-streamed-result').locator('p').first().textContent()) ?? '')
      : 'not streamed (held, or refused)';
    console.log(
      `  page, per-key statistics + one-limiter dry run in one pass: ${(f.toResultMs / 1000).toFixed(1)} s (target ≤ 30 s); load ${load()}`,
    );
    console.log(`    shown: ${shown.slice(0, 200)}`);
    console.log(
      `  renderer peak memory ${Math.round(f.peakMb)} MB (target ≤ 300 MB); ${describeMainThread(f.mainThread, 50)}; load ${load()}`,
    );
    console.log(
      `    at the renderer's peak (${Math.round(passMem.peakMb)} MB as sampled with the heaps), MB: ${passMem.atPeak}`,
    );
    console.log(`    each kind's own peak, MB: ${passMem.kindPeaks}`);
    console.log(`    renderer CPU over the pass: ${passCpu.toFixed(1)} s (every thread)`);
    // STREAM_SWEEP=0 leaves the sweep out (a run that only looks at the statistics pass); a list
    // of system ids sweeps each one's default limiter after the default one (streamSweeps).
    if (streamed && sweeps.sweep) {
      // STREAM_DEFAULT_SWEEP=0: only the named systems' sweeps (a shorter run that looks at them).
      if (process.env.STREAM_DEFAULT_SWEEP !== '0') {
        await reportSweep(page, browser, heaps, '20 × 20 sweep as a streaming pass');
      }
      for (const id of sweeps.systems) await sweepSystem(page, browser, heaps, id);
    }
    heaps.close();
    const shots = process.env.STREAM_SHOTS;
    if (shots !== undefined && streamed) {
      mkdirSync(shots, { recursive: true });
      const part = page.getByTestId('trace-streamed');
      await part.scrollIntoViewIfNeeded();
      await part.screenshot({ path: join(shots, 'stream-1280.png') });
      await page.emulateMedia({ colorScheme: 'dark' });
      await page.setViewportSize({ width: 390, height: 900 });
      await part.scrollIntoViewIfNeeded();
      await part.screenshot({ path: join(shots, 'stream-390-dark.png') });
    }
    await context.close();
    await browser.close();
    browser = null;
    const d = await duckdb(path, 2);
    console.log(
      `  DuckDB 1.5.6, 2 threads, requests per address per second over the same file: ${(d.wallMs / 1000).toFixed(1)} s (${d.groups.toLocaleString('en-US')} groups; CPU ${(d.cpuMs / 1000).toFixed(1)} s); load ${load()}`,
    );
    console.log(
      `  file: ${(statSync(path).size / 1e9).toFixed(2)} GB at ${path}, ${keep ? 'kept (STREAM_KEEP=1)' : 'deleted now'}`,
    );
  } finally {
    await browser?.close();
    started.child.kill();
    if (!keep) rmSync(path, { force: true });
  }
}
