/**
 * What a long task is made of, from a Chrome trace (Playwright's `browser.startTracing`, which is
 * CDP `Tracing`): every main-thread task longer than 50 ms, with the trace events that ran inside
 * it (their own time) and, from the V8 sampling profiler's chunks, the JS functions sampled in it.
 * Used by the trace bench when `BENCH_TRACE=1` (tests/bench/traceBrowser.ts). Prints; asserts
 * nothing.
 */

/** A Chrome trace event, as far as these benches read it. */
export interface TraceEvent {
  name: string;
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
          callFrame: { functionName?: string; url?: string; lineNumber?: number };
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

/** JS samples of one thread: [time µs, "function url:line"] from its profile chunks. */
function samples(events: TraceEvent[], pid: number, tid: number): [number, string][] {
  const byId = new Map<string, { t: number; nodes: Map<number, string> }>();
  const out: [number, string][] = [];
  const sorted = events
    .filter((e) => e.pid === pid && (e.name === 'Profile' || e.name === 'ProfileChunk'))
    .sort((a, b) => a.ts - b.ts);
  for (const e of sorted) {
    const id = e.id ?? '';
    if (e.name === 'Profile') {
      // The Profile event is on the profiled thread; its chunks come from another one.
      if (e.tid !== tid) continue;
      byId.set(id, { t: e.args?.data?.startTime ?? e.ts, nodes: new Map() });
      continue;
    }
    const p = byId.get(id);
    if (p === undefined) continue;
    const prof = e.args?.data?.cpuProfile;
    for (const n of prof?.nodes ?? []) {
      const cf = n.callFrame;
      const url = cf.url ?? '';
      const file = url.slice(url.lastIndexOf('/') + 1);
      p.nodes.set(
        n.id,
        `${cf.functionName || '(anonymous)'}${file === '' ? '' : ` ${file}:${(cf.lineNumber ?? 0) + 1}`}`,
      );
    }
    const deltas = e.args?.data?.timeDeltas ?? [];
    (prof?.samples ?? []).forEach((s, i) => {
      p.t += deltas[i] ?? 0;
      out.push([p.t, p.nodes.get(s) ?? `node ${s}`]);
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
    let sampled = 0;
    for (const [t, f] of js) {
      if (t < task.ts || t >= end) continue;
      sampled += 1;
      fns.set(f, (fns.get(f) ?? 0) + 1);
    }
    const top = [...fns]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 8)
      .map(([f, c]) => `${f} ${((100 * c) / Math.max(1, sampled)).toFixed(0)}%`)
      .join('; ');
    console.log(
      `      task of ${((task.dur ?? 0) / 1000).toFixed(0)} ms — events (self ms): ${events2 || 'none'}`,
    );
    console.log(`        JS samples (${sampled}): ${top || 'none'}`);
  }
}
