/**
 * Where the page's time goes while it reads a log (`INGEST_PROFILE=1` with `BENCH=ingest`): the
 * file chosen in the built playground in the pinned Chromium under a Chrome trace with V8's
 * sampling profiler on, then, per thread (the page's main thread, the parsing worker, each range
 * worker), the CPU time the samples saw and the functions that held most of it (self time).
 * Prints figures; asserts nothing.
 */
import type { Browser } from '@playwright/test';
import { loadavg } from 'node:os';
import { launchPinned, startPreview } from './frames';
import type { TraceEvent } from './longTaskTrace';
import { originalName } from './sourceMaps';
import { writeFileSync } from 'node:fs';

/** Self time per function per thread from a Chrome trace's ProfileChunk events, ms. */
export function profileByThread(
  events: readonly TraceEvent[],
  dist = 'dist',
): Map<string, Map<string, number>> {
  const threadName = new Map<string, string>();
  for (const e of events) {
    if (e.ph === 'M' && e.name === 'thread_name')
      threadName.set(`${e.pid}:${e.tid}`, e.args?.name ?? '?');
  }
  // A profile's chunks share an id; its nodes come in pieces.
  const frames = new Map<string, Map<number, string>>();
  const out = new Map<string, Map<string, number>>();
  for (const e of events) {
    if (e.name !== 'ProfileChunk') continue;
    const key = `${e.pid}:${e.id ?? ''}`;
    const data = e.args?.data;
    let nodes = frames.get(key);
    if (nodes === undefined) frames.set(key, (nodes = new Map<number, string>()));
    for (const n of data?.cpuProfile?.nodes ?? []) {
      const f = n.callFrame;
      const file = (f.url ?? '').split('/').pop() ?? '';
      const fallback = `${f.functionName || '(anonymous)'} ${file}:${(f.lineNumber ?? -1) + 1}`;
      // The built site's minified names read back through its source maps.
      nodes.set(
        n.id,
        file.endsWith('.js') && f.lineNumber !== undefined
          ? `${originalName(dist, file, f.lineNumber, f.columnNumber ?? 0, fallback)} (${file.replace(/-[\w-]{8}\.js$/, '')})`
          : fallback,
      );
    }
    const thread = `${threadName.get(`${e.pid}:${e.tid}`) ?? 'thread'} ${e.pid}:${e.tid}`;
    let self = out.get(thread);
    if (self === undefined) out.set(thread, (self = new Map<string, number>()));
    const samples = data?.cpuProfile?.samples ?? [];
    const deltas = data?.timeDeltas ?? [];
    for (let i = 0; i < samples.length; i += 1) {
      const name = nodes.get(samples[i] as number) ?? '?';
      self.set(name, (self.get(name) ?? 0) + (deltas[i] ?? 0) / 1000);
    }
  }
  return out;
}

/** Trace events that are a thread's top-level work in Chromium 143 (tasks and microtask runs). */
const TOP_LEVEL = new Set([
  'RunTask',
  'ThreadControllerImpl::RunTask',
  'ThreadPool_RunTask',
  'V8.RunMicrotasks',
]);

/** Busy intervals [start, end] µs of every thread's top-level work, overlaps joined, by thread. */
function tasksByThread(events: readonly TraceEvent[]): Map<string, [number, number][]> {
  const all = new Map<string, [number, number][]>();
  for (const e of events) {
    if (e.ph !== 'X' || !TOP_LEVEL.has(e.name) || (e.dur ?? 0) <= 0) continue;
    const k = `${e.pid}:${e.tid}`;
    let list = all.get(k);
    if (list === undefined) all.set(k, (list = []));
    list.push([e.ts, e.ts + (e.dur ?? 0)]);
  }
  const out = new Map<string, [number, number][]>();
  for (const [k, list] of all) {
    list.sort((a, b) => a[0] - b[0]);
    const joined: [number, number][] = [];
    for (const [a, b] of list) {
      const last = joined[joined.length - 1];
      if (last !== undefined && a <= last[1]) last[1] = Math.max(last[1], b);
      else joined.push([a, b]);
    }
    out.set(k, joined);
  }
  return out;
}

/** ms, as the timeline prints them. */
const ms = (us: number): string => `${(us / 1000).toFixed(0)} ms`;

/**
 * The name of each thread of a trace (`pid:tid` → name), and the file input's `change` dispatch on
 * the main thread (the moment of the choice), if the trace holds it.
 */
function namesAndChange(events: readonly TraceEvent[]): {
  names: Map<string, string>;
  change: TraceEvent | undefined;
} {
  const names = new Map<string, string>();
  for (const e of events) {
    if (e.ph === 'M' && e.name === 'thread_name')
      names.set(`${e.pid}:${e.tid}`, e.args?.name ?? '?');
  }
  const change = events.find(
    (e) =>
      e.name === 'EventDispatch' &&
      (e.args?.data as { type?: string } | undefined)?.type === 'change',
  );
  return { names, change };
}

/**
 * When each thread worked, from the file input's change (its `change` dispatch on the main
 * thread) to the last task: per thread its first and last task, its busy time, and a row of
 * 100 ms cells, each the tenths of that cell the thread was busy (`.` idle, `9` ≥ 90 %).
 */
function printTimeline(events: readonly TraceEvent[]): void {
  const { names, change } = namesAndChange(events);
  if (change === undefined) {
    console.log('    timeline: no change event in the trace');
    return;
  }
  const t0 = change.ts;
  const CELL = 100_000;
  const rows: { name: string; first: number; last: number; busy: number; cells: string }[] = [];
  let end = t0;
  for (const [k, tasks] of tasksByThread(events)) {
    const after = tasks.filter(([, b]) => b > t0);
    const busy = after.reduce((s, [a, b]) => s + b - Math.max(a, t0), 0);
    if (busy < 10_000) continue;
    const last = Math.max(...after.map(([, b]) => b));
    end = Math.max(end, last);
    const cellBusy: number[] = [];
    for (const [a, b] of after) {
      for (let c = Math.floor((Math.max(a, t0) - t0) / CELL); c * CELL + t0 < b; c += 1) {
        const lo = Math.max(a, t0 + c * CELL);
        const hi = Math.min(b, t0 + (c + 1) * CELL);
        cellBusy[c] = (cellBusy[c] ?? 0) + Math.max(0, hi - lo);
      }
    }
    const cells = Array.from({ length: cellBusy.length }, (_, c) => {
      const f = (cellBusy[c] ?? 0) / CELL;
      return f < 0.05 ? '.' : String(Math.min(9, Math.floor(f * 10)));
    }).join('');
    rows.push({
      name: `${names.get(k) ?? 'thread'} ${k}`,
      first: Math.min(...after.map(([a]) => Math.max(a, t0))) - t0,
      last: last - t0,
      busy,
      cells,
    });
  }
  console.log(
    `    timeline from the choice (100 ms cells, busy tenths), tasks end ${ms(end - t0)} after it:`,
  );
  for (const r of rows.sort((a, b) => a.first - b.first))
    console.log(
      `      ${r.name.padEnd(34)} ${ms(r.first).padStart(8)} → ${ms(r.last).padStart(8)}, busy ${ms(r.busy).padStart(8)} |${r.cells}`,
    );
}

/**
 * The phases each thread marked (src/trace/phase.ts `markPhase`, user timing) from the choice, in
 * time order: per mark its time after the file input's change and the thread it was made on.
 */
function printPhases(events: readonly TraceEvent[]): void {
  const { names, change } = namesAndChange(events);
  const marks = events
    .filter((e) => (e.cat ?? '').includes('blink.user_timing') && /^\w+: /.test(e.name))
    .sort((a, b) => a.ts - b.ts);
  if (change === undefined || marks.length === 0) {
    console.log('    phases: no change event or no marks in the trace');
    return;
  }
  // Threads numbered in the order they first marked (range workers are alike by name).
  const threads = new Map<string, string>();
  console.log('    phases (ms after the choice, thread):');
  for (const m of marks) {
    if (m.ts < change.ts) continue;
    const k = `${m.pid}:${m.tid}`;
    if (!threads.has(k)) threads.set(k, `${names.get(k) ?? 'thread'} #${threads.size + 1}`);
    console.log(
      `      ${((m.ts - change.ts) / 1000).toFixed(1).padStart(8)}  ${m.name.padEnd(22)} ${threads.get(k) ?? ''}`,
    );
  }
}

/**
 * Reads `path` through the page's file input under a Chrome trace: with `profile`, V8's sampling
 * profiler on and where the time went per thread; without, only the threads' tasks and the
 * phases they marked (a trace light enough to time the phases by).
 */
export async function profileIngestInPage(
  path: string,
  distDir = 'dist',
  profile = true,
): Promise<void> {
  const started = await startPreview(distDir);
  let browser: Browser | null = null;
  try {
    browser = (await launchPinned()).browser;
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(new URL('./?v=1&paused', started.url).href);
    await page.getByTestId('trace-file').waitFor({ state: 'attached' });
    await browser.startTracing(page, {
      categories: profile
        ? [
            'toplevel',
            'devtools.timeline',
            'v8',
            'disabled-by-default-v8.cpu_profiler',
            'blink.user_timing',
          ]
        : ['toplevel', 'devtools.timeline', 'blink.user_timing'],
    });
    const t0 = performance.now();
    await page.getByTestId('trace-file').setInputFiles(path);
    await page.getByTestId('trace-summary').waitFor({ timeout: 600_000 });
    const wallMs = performance.now() - t0;
    const json = (await browser.stopTracing()).toString('utf8');
    const parsed = JSON.parse(json) as { traceEvents: TraceEvent[] } | TraceEvent[];
    const events = Array.isArray(parsed) ? parsed : parsed.traceEvents;
    // INGEST_TRACE_OUT=path: the Chrome trace kept there (for chrome://tracing or Perfetto).
    if (process.env.INGEST_TRACE_OUT !== undefined)
      writeFileSync(process.env.INGEST_TRACE_OUT, json);
    console.log(
      `  ${profile ? 'profile' : 'phases'}: choice → summary ${(wallMs / 1000).toFixed(2)} s wall (${profile ? 'with the profiler on' : 'traced, no profiler'}); load ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
    printTimeline(events);
    printPhases(events);
    if (!profile) return;
    for (const self of profileByThread(events, distDir).values()) {
      const rows = [...self].filter(([n]) => n !== '(idle) :0').sort((a, b) => b[1] - a[1]);
      const busy = rows.reduce((s, [, ms]) => s + ms, 0);
      if (busy < 20) continue;
      // The thread named by the script most of its samples ran in (the profiler's own thread
      // ids say nothing).
      const byScript = new Map<string, number>();
      for (const [n, ms] of rows) {
        const script = /\((\S+?)\)$/.exec(n)?.[1] ?? /\s(\S+?)(?:-[\w-]{8})?\.js:/.exec(n)?.[1];
        if (script !== undefined) byScript.set(script, (byScript.get(script) ?? 0) + ms);
      }
      const script = [...byScript].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 'page';
      const thread = /worker/.test(script) ? script : `main thread (${script})`;
      console.log(`    ${thread}: ${busy.toFixed(0)} ms sampled (idle left out)`);
      for (const [n, ms] of rows.slice(0, 12))
        console.log(
          `      ${ms.toFixed(0).padStart(6)} ms ${((100 * ms) / busy).toFixed(1).padStart(5)}% ${n}`,
        );
    }
  } finally {
    await browser?.close();
    started.child.kill();
  }
}
