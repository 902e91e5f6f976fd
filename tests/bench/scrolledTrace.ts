/**
 * Where the compare page's scrolled frames go: opens the compare bench's page (six
 * limiters, 200 r/s, 1×), scrolls to lanes 3–4 as the frame bench does, traces TRACE_S seconds and
 * prints the renderer main thread's time by trace event (self time, per frame) and a CPU profile's
 * heaviest functions (self time). A finer breakdown for `BENCH=frames`; measures nothing new.
 * Run: `npm run build && npx vite build --ssr tests/bench/scrolledTrace.ts --outDir
 * node_modules/.cache/scrolled --emptyOutDir && node node_modules/.cache/scrolled/scrolledTrace.js
 * [distDir]` (bundled as `npm run bench` is: under tsx, node cannot take lz-string's named imports).
 * The raw trace is written to scrolled-trace.json in the system's temporary folder (with PROFILE,
 * the CPU profile to scrolled-profile.json beside it). HEAP (any value, as PROFILE) also samples
 * what the page's main thread allocates meanwhile and prints it by function; INVALIDATIONS records
 * Chromium's invalidation tracking and prints what was restyled and laid out per frame, and why
 * (it inflates the main thread's figures).
 */
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeConfig } from '../../src/config';
import { compareConfig, launchPinned, openPlaying, scrollToLanes34, startPreview } from './frames';
import { originalName } from './sourceMaps';

interface Ev {
  name: string;
  ph: string;
  pid: number;
  tid: number;
  ts: number;
  dur?: number;
  tdur?: number;
  args?: Record<string, unknown>;
}

const TRACE_MS = Number(process.env.TRACE_S ?? 4) * 1000;

interface HeapNode {
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  selfSize: number;
  children: HeapNode[];
}

/**
 * HEAP: what the page's main thread allocated while traced (V8's sampling heap profiler, one
 * sample per ~1 kB, collected objects included), by allocating function (self) and with what it
 * calls (inclusive), per second, source-mapped.
 */
function printAllocations(head: HeapNode, dist: string, ms: number): void {
  const self = new Map<string, number>();
  const incl = new Map<string, number>();
  const label = (n: HeapNode) => {
    const f = n.callFrame;
    const file = f.url.split('/').at(-1) ?? '';
    const fallback = `${f.functionName || '(anon)'} ${file}:${f.lineNumber + 1}`;
    return file === ''
      ? fallback
      : originalName(dist, file, f.lineNumber, f.columnNumber, fallback);
  };
  const walk = (n: HeapNode, above: Set<string>): number => {
    const l = label(n);
    let size = n.selfSize;
    self.set(l, (self.get(l) ?? 0) + n.selfSize);
    const path = new Set(above).add(l);
    for (const c of n.children) size += walk(c, path);
    if (!above.has(l)) incl.set(l, (incl.get(l) ?? 0) + size);
    return size;
  };
  const total = walk(head, new Set());
  const perS = (b: number) => `${(((b / ms) * 1000) / 1024).toFixed(0).padStart(6)} kB/s`;
  console.log(`allocated (sampled) ${perS(total)}; by function, self:`);
  for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 25))
    console.log(`  ${perS(v)}  ${k}`);
  console.log('inclusive:');
  for (const [k, v] of [...incl].sort((a, b) => b[1] - a[1]).slice(0, 40))
    console.log(`  ${perS(v)}  ${k}`);
}

async function main(): Promise<void> {
  const dist = process.argv[2] ?? 'dist';
  const { child, url } = await startPreview(dist);
  const { browser } = await launchPinned();
  try {
    const context = await browser.newContext({
      viewport: { width: 1280, height: 800 },
      deviceScaleFactor: 1,
      locale: 'en-US',
      timezoneId: 'UTC',
    });
    const page = await context.newPage();
    await openPlaying(page, `${url}?${encodeConfig(compareConfig())}`);
    if (process.env.TOP === undefined) {
      await scrollToLanes34(page);
    }
    await page.waitForTimeout(1000);
    const cdp = await context.newCDPSession(page);
    const events: Ev[] = [];
    cdp.on('Tracing.dataCollected', (e) => events.push(...(e.value as unknown as Ev[])));
    const complete = new Promise((resolve) => cdp.once('Tracing.tracingComplete', resolve));
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
    await cdp.send('Tracing.start', {
      traceConfig: {
        includedCategories: [
          'toplevel',
          'devtools.timeline',
          'disabled-by-default-devtools.timeline.frame',
          'blink',
          'cc',
          'v8.gc',
          ...(process.env.INVALIDATIONS === undefined
            ? []
            : ['disabled-by-default-devtools.timeline.invalidationTracking']),
        ],
      },
      transferMode: 'ReportEvents',
    });
    if (process.env.PROFILE !== undefined) await cdp.send('Profiler.start');
    if (process.env.HEAP !== undefined) {
      await cdp.send('HeapProfiler.enable');
      // Objects collected meanwhile count too: what was allocated, not what survived.
      await cdp.send('HeapProfiler.startSampling', {
        samplingInterval: 1024,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: true,
      });
    }
    await page.waitForTimeout(TRACE_MS);
    if (process.env.HEAP !== undefined) {
      const { profile: heap } = (await cdp.send('HeapProfiler.stopSampling')) as unknown as {
        profile: { head: HeapNode };
      };
      printAllocations(heap.head, dist, TRACE_MS);
    }
    const profile =
      process.env.PROFILE !== undefined
        ? (await cdp.send('Profiler.stop')).profile
        : { nodes: [], samples: [], timeDeltas: [] };
    await cdp.send('Tracing.end');
    await complete;
    const counts = await page.evaluate(() => ({
      nodes: document.getElementsByTagName('*').length,
      transformed: document.querySelectorAll('svg [transform]').length,
      requestMarks: document.querySelectorAll('.rl-request').length,
      lanes: [...document.querySelectorAll('.lane')].map(
        (l) =>
          `${l.getAttribute('aria-label')}: ${l.querySelectorAll('*').length} nodes, ` +
          `${l.querySelectorAll('svg [transform]').length} transformed, ` +
          `${l.querySelectorAll('.rl-request').length} marks (flow ${l.querySelectorAll('.rl-flow .rl-request').length}: ` +
          [...l.querySelectorAll('.rl-flow .rl-request')]
            .map((m) => m.getAttribute('data-phase'))
            .join(' ') +
          (l.querySelector('[data-testid=request-flow-painted]') === null
            ? `; moving ${l.querySelector('[data-testid=request-flow] [data-testid=moving-marks]')?.getAttribute('data-count') ?? '-'})`
            : '; painted by the worker)'),
      ),
    }));
    console.log('DOM', counts);
    const tracePath = join(tmpdir(), 'scrolled-trace.json');
    writeFileSync(tracePath, JSON.stringify(events));
    if (process.env.PROFILE !== undefined)
      writeFileSync(join(tmpdir(), 'scrolled-profile.json'), JSON.stringify(profile));
    console.log(`raw trace: ${tracePath}`);
    // Main thread: the one with the most BeginMainThreadFrame marks.
    const marks = new Map<string, number>();
    for (const e of events)
      if (e.name === 'BeginMainThreadFrame')
        marks.set(`${e.pid}/${e.tid}`, (marks.get(`${e.pid}/${e.tid}`) ?? 0) + 1);
    const [thread, frames] = [...marks].sort((a, b) => b[1] - a[1])[0] ?? ['', 1];
    const main = events
      .filter((e) => `${e.pid}/${e.tid}` === thread && e.ph === 'X' && e.dur !== undefined)
      .sort((a, b) => a.ts - b.ts || (b.dur ?? 0) - (a.dur ?? 0));
    // Self time by name (thread time where given).
    const self = new Map<string, number>();
    const stack: { end: number; name: string; t: number }[] = [];
    for (const e of main) {
      while (stack.length > 0 && (stack.at(-1) as { end: number }).end <= e.ts) stack.pop();
      const t = (e.tdur ?? e.dur ?? 0) / 1000;
      const parent = stack.at(-1);
      if (parent !== undefined) self.set(parent.name, (self.get(parent.name) ?? 0) - t);
      self.set(e.name, (self.get(e.name) ?? 0) + t);
      stack.push({ end: e.ts + (e.dur ?? 0), name: e.name, t });
    }
    const total = [...self.values()].reduce((a, b) => a + b, 0);
    console.log(
      `${frames} frames; main thread ${(total / frames).toFixed(2)} ms per frame; self thread time per frame by event:`,
    );
    for (const [name, t] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 25))
      console.log(`  ${(t / frames).toFixed(3)} ms  ${name}`);
    // The other threads a frame keeps busy: raster workers (tiles re-rastered), the renderer's
    // compositor and the display compositor. Not in the main thread's figure, but they share the
    // machine's two cores with it, and a frame waits for the last one's raster ("activation").
    const threadNames = new Map<string, string>();
    for (const e of events)
      if (e.name === 'thread_name')
        threadNames.set(`${e.pid}/${e.tid}`, String((e.args as { name?: string }).name));
    const perFrame = (keep: (e: Ev) => boolean) =>
      events
        .filter((e) => e.ph === 'X' && e.dur !== undefined && keep(e))
        .reduce((sum, e) => sum + (e.tdur ?? e.dur ?? 0) / 1000, 0) / frames;
    const tasksOn = (thread: string) => (e: Ev) =>
      e.name === 'ThreadControllerImpl::RunTask' && threadNames.get(`${e.pid}/${e.tid}`) === thread;
    const tiles = events.filter((e) => e.name === 'RasterTask' && e.ph === 'X').length;
    console.log(
      `other threads per frame: ${(tiles / frames).toFixed(1)} tiles rastered, ` +
        `${perFrame((e) => e.name === 'RasterTask').toFixed(2)} ms raster; ` +
        `compositor ${perFrame(tasksOn('Compositor')).toFixed(2)} ms; ` +
        `display compositor ${perFrame(tasksOn('VizCompositorThread')).toFixed(2)} ms`,
    );
    // INVALIDATIONS: what Chromium restyled and laid out, and why, per frame (it found a sibling
    // rule ending in `*` restyling whole SVG groups as marks came and went).
    if (process.env.INVALIDATIONS !== undefined) {
      const why = new Map<string, number>();
      for (const e of events) {
        if (!e.name.endsWith('InvalidationTracking') && e.name !== 'StyleResolver::ResolveStyle')
          continue;
        const d = (e.args?.data ?? {}) as {
          reason?: string;
          nodeName?: string;
          selectors?: Array<{ selector: string }>;
        };
        const rules =
          d.selectors === undefined ? '' : ` ${d.selectors.map((r) => r.selector).join(', ')}`;
        const key = `${e.name} | ${d.reason ?? ''} | ${d.nodeName ?? ''}${rules}`;
        why.set(key, (why.get(key) ?? 0) + 1);
      }
      console.log('invalidations per frame (event | reason | element, rules):');
      for (const [key, n] of [...why].sort((a, b) => b[1] - a[1]).slice(0, 25))
        console.log(`  ${(n / frames).toFixed(2)}  ${key}`);
    }
    // Profile self time by function.
    const bySelf = new Map<string, number>();
    const dt = profile.timeDeltas ?? [];
    const nodeOf = new Map(profile.nodes.map((n) => [n.id, n]));
    (profile.samples ?? []).forEach((id, i) => {
      const n = nodeOf.get(id);
      if (n === undefined) return;
      const f = n.callFrame;
      const key = `${f.functionName || '(anon)'} ${f.url.split('/').pop()}:${f.lineNumber}`;
      bySelf.set(key, (bySelf.get(key) ?? 0) + (dt[i + 1] ?? 0) / 1000);
    });
    console.log('profile self time per frame (ms):');
    for (const [name, t] of [...bySelf].sort((a, b) => b[1] - a[1]).slice(0, 40))
      console.log(`  ${(t / frames).toFixed(3)}  ${name}`);
  } finally {
    await browser.close();
    child.kill();
  }
}

void main();
