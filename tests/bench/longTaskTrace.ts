/**
 * What a long task is made of, from a Chrome trace (Playwright's `browser.startTracing`, which is
 * CDP `Tracing`): every main-thread task longer than 50 ms, with the trace events that ran inside
 * it (their own time) and, from the V8 sampling profiler's chunks, the JS functions sampled in it.
 * Used by the trace benches when `BENCH_TRACE=1` (tests/bench/traceBrowser.ts, the hostile access
 * logs of tests/bench/ingestAttacks.ts). Prints; asserts nothing.
 */
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { originalName } from './sourceMaps';

/** `BENCH_TRACE=1`: record a Chrome trace around the measured work; print what long tasks hold. */
export const TRACING = process.env.BENCH_TRACE === '1';
const TRACE_CATEGORIES = [
  'devtools.timeline',
  'disabled-by-default-devtools.timeline',
  'v8',
  'v8.execute',
  'disabled-by-default-v8.cpu_profiler',
  'disabled-by-default-v8.gc',
  'blink.user_timing',
];

/** Starts a Chrome trace of `page`'s browser (only with `BENCH_TRACE=1`). */
export async function startTrace(page: Page): Promise<void> {
  if (TRACING) await page.context().browser()?.startTracing(page, { categories: TRACE_CATEGORIES });
}

/**
 * Stops the trace `startTrace` began, writes it to the temporary folder and prints each main-thread
 * task over 50 ms in it (only with `BENCH_TRACE=1`).
 */
export async function stopTrace(page: Page, label: string): Promise<void> {
  const browser = page.context().browser();
  if (!TRACING || browser === null) return;
  const json = (await browser.stopTracing()).toString('utf8');
  const out = join(tmpdir(), `rate-limit-lab-trace-${label.replace(/\W+/g, '-')}.json`);
  writeFileSync(out, json);
  console.log(`    Chrome trace (${label}) written to ${out}`);
  describeLongTasks(json, label);
}

/** A Chrome trace event, as far as these benches read it. */
export interface TraceEvent {
  name: string;
  /** The event's categories, comma-separated. */
  cat?: string;
  ph: string;
  ts: number;
  dur?: number;
  pid: number;
  tid: number;
  id?: string;
  args?: {
    name?: string;
    data?: {
      cpuProfile?: {
        nodes?: {
          id: number;
          parent?: number;
          callFrame: {
            functionName?: string;
            url?: string;
            lineNumber?: number;
            columnNumber?: number;
          };
        }[];
        samples?: number[];
      };
      timeDeltas?: number[];
      startTime?: number;
    };
  };
}

/** The renderer main thread that ran the most time in tasks. */
function mainThread(events: TraceEvent[]): { pid: number; tid: number } | null {
  const names = new Map<string, string>();
  for (const e of events) {
    if (e.ph === 'M' && e.name === 'thread_name')
      names.set(`${e.pid}:${e.tid}`, e.args?.name ?? '');
  }
  const busy = new Map<string, number>();
  for (const e of events) {
    if (e.ph !== 'X' || e.name !== 'RunTask') continue;
    const k = `${e.pid}:${e.tid}`;
    if (names.get(k) !== 'CrRendererMain') continue;
    busy.set(k, (busy.get(k) ?? 0) + (e.dur ?? 0));
  }
  let best: string | null = null;
  for (const [k, v] of busy) if (best === null || v > (busy.get(best) ?? 0)) best = k;
  if (best === null) return null;
  const [pid, tid] = best.split(':').map(Number) as [number, number];
  return { pid, tid };
}

/**
 * JS samples of one thread from its profile chunks: [time µs, "function url:line", the page's own
 * source functions on the sample's stack (innermost first, as `originalName` names them)].
 */
function samples(events: TraceEvent[], pid: number, tid: number): [number, string, string[]][] {
  const byId = new Map<
    string,
    { t: number; nodes: Map<number, string>; parent: Map<number, number> }
  >();
  const out: [number, string, string[]][] = [];
  const sorted = events
    .filter((e) => e.pid === pid && (e.name === 'Profile' || e.name === 'ProfileChunk'))
    .sort((a, b) => a.ts - b.ts);
  for (const e of sorted) {
    const id = e.id ?? '';
    if (e.name === 'Profile') {
      // The Profile event is on the profiled thread; its chunks come from another one.
      if (e.tid !== tid) continue;
      byId.set(id, { t: e.args?.data?.startTime ?? e.ts, nodes: new Map(), parent: new Map() });
      continue;
    }
    const p = byId.get(id);
    if (p === undefined) continue;
    const prof = e.args?.data?.cpuProfile;
    for (const n of prof?.nodes ?? []) {
      if (n.parent !== undefined) p.parent.set(n.id, n.parent);
      const cf = n.callFrame;
      const url = cf.url ?? '';
      const file = url.slice(url.lastIndexOf('/') + 1);
      const plain = `${cf.functionName || '(anonymous)'}${file === '' ? '' : ` ${file}:${(cf.lineNumber ?? 0) + 1}`}`;
      // The built site's own scripts by their source names (dist/assets/*.map), when built here.
      p.nodes.set(
        n.id,
        url.includes('/assets/')
          ? originalName('dist', file, cf.lineNumber ?? 0, cf.columnNumber ?? 0, plain)
          : plain,
      );
    }
    const deltas = e.args?.data?.timeDeltas ?? [];
    (prof?.samples ?? []).forEach((s, i) => {
      p.t += deltas[i] ?? 0;
      const own: string[] = [];
      for (let n: number | undefined = s; n !== undefined; n = p.parent.get(n)) {
        const name = p.nodes.get(n) ?? '';
        if (/ (ui|viz|store|trace|sim|core|config|systems)\//.test(name) && !own.includes(name))
          own.push(name);
      }
      out.push([p.t, p.nodes.get(s) ?? `node ${s}`, own]);
    });
  }
  return out;
}

/** Prints each main-thread task over `minMs` in the trace: its events and its sampled functions. */
export function describeLongTasks(json: string, label: string, minMs = 50): void {
  const parsed = JSON.parse(json) as { traceEvents?: TraceEvent[] } | TraceEvent[];
  const events = Array.isArray(parsed) ? parsed : (parsed.traceEvents ?? []);
  const main = mainThread(events);
  if (main === null) {
    console.log(`    trace (${label}): no renderer main thread found`);
    return;
  }
  const onMain = events.filter(
    (e) => e.pid === main.pid && e.tid === main.tid && e.ph === 'X' && e.dur !== undefined,
  );
  const tasks = onMain.filter((e) => e.name === 'RunTask' && (e.dur ?? 0) > minMs * 1000);
  const js = samples(events, main.pid, main.tid);
  console.log(`    trace (${label}): ${tasks.length} main-thread task(s) over ${minMs} ms`);
  for (const task of tasks) {
    const end = task.ts + (task.dur ?? 0);
    const inside = onMain.filter((e) => e !== task && e.ts >= task.ts && e.ts < end);
    // Self time per event name: its duration less its direct children's (events nest by time).
    const self = new Map<string, number>();
    const stack: TraceEvent[] = [];
    for (const e of inside.sort((a, b) => a.ts - b.ts || (b.dur ?? 0) - (a.dur ?? 0))) {
      while (stack.length > 0) {
        const top = stack[stack.length - 1] as TraceEvent;
        if (e.ts >= top.ts + (top.dur ?? 0)) stack.pop();
        else break;
      }
      const parent = stack[stack.length - 1];
      self.set(e.name, (self.get(e.name) ?? 0) + (e.dur ?? 0));
      if (parent !== undefined) self.set(parent.name, (self.get(parent.name) ?? 0) - (e.dur ?? 0));
      stack.push(e);
    }
    const events2 = [...self]
      .filter(([, us]) => us >= 1000)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 8)
      .map(([name, us]) => `${name} ${(us / 1000).toFixed(0)}`)
      .join(', ');
    const fns = new Map<string, number>();
    // The page's own functions by inclusive samples: which component or step the time was under.
    const under = new Map<string, number>();
    let sampled = 0;
    for (const [t, f, own] of js) {
      if (t < task.ts || t >= end) continue;
      sampled += 1;
      fns.set(f, (fns.get(f) ?? 0) + 1);
      for (const o of own) under.set(o, (under.get(o) ?? 0) + 1);
    }
    const inclusive = [...under]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 10)
      .map(([f, c]) => `${f} ${((100 * c) / Math.max(1, sampled)).toFixed(0)}%`)
      .join('; ');
    const top = [...fns]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 8)
      .map(([f, c]) => `${f} ${((100 * c) / Math.max(1, sampled)).toFixed(0)}%`)
      .join('; ');
    console.log(
      `      task of ${((task.dur ?? 0) / 1000).toFixed(0)} ms — events (self ms): ${events2 || 'none'}`,
    );
    console.log(`        JS samples (${sampled}): ${top || 'none'}`);
    if (inclusive !== '') console.log(`        under (the page's own code): ${inclusive}`);
  }
}
