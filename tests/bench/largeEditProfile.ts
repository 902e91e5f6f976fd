/**
 * Where one 1M-arrival edit's time goes, edit by edit: the page of
 * `FRAMES=large`'s first part, max_tokens edited N times (PROFILE_EDITS, 12), each traced with
 * the V8 sampler on. For each edit: input → drawn (wall), and a timeline of the main thread's and
 * the simulation worker's tasks in that span (offset from the input, wall, thread time, GC inside
 * and the hottest JS functions). Prints; asserts nothing. Run, after `npm run build`: `npx vite build
 * --ssr tests/bench/largeEditProfile.ts --outDir node_modules/.cache/large --emptyOutDir && node
 * node_modules/.cache/large/largeEditProfile.js [distDir]` (bundled as `npm run bench` is: under
 * tsx, node cannot take lz-string's named imports).
 */
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { largestTotals, launchPinned, oneMillionLink, startPreview } from './frames';
import { originalName } from './sourceMaps';

let distDir = 'dist';

interface Ev {
  name: string;
  cat?: string;
  ph: string;
  ts: number;
  dur?: number;
  tdur?: number;
  pid: number;
  tid: number;
  id?: string;
  args?: Record<string, unknown> & { name?: string; data?: Record<string, unknown> };
}

/**
 * Linux only: minor page faults and CPU ticks (user + system, 10 ms each) of each thread of the
 * renderers this process started (descendants of it with --type=renderer), by thread id, with
 * the thread's name ("DedicatedWorker" for the simulation worker). For PROFILE_NOTRACE: how many
 * faults an edit took in the worker is load-proof where its wall time is not.
 */
function rendererThreads(): Map<string, { comm: string; faults: number; ticks: number }> {
  const out = new Map<string, { comm: string; faults: number; ticks: number }>();
  if (!existsSync('/proc/self/stat')) return out;
  const parent = (pid: string): string | null => {
    try {
      return /PPid:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? null;
    } catch {
      return null;
    }
  };
  const mine = (pid: string): boolean => {
    for (let p: string | null = pid, i = 0; p !== null && p !== '0' && i < 20; i += 1) {
      if (p === String(process.pid)) return true;
      p = parent(p);
    }
    return false;
  };
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    let cmd: string;
    try {
      cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    // PROFILE_ALL: every process this one started (browser, GPU, preview server), not the renderer
    // only; their threads are named with the process's --type (or its program).
    const all = process.env.PROFILE_ALL !== undefined;
    if ((!all && !cmd.includes('--type=renderer')) || !mine(pid)) continue;
    const kind = /--type=([\w-]+)/.exec(cmd)?.[1] ?? cmd.split('\0')[0]?.split('/').pop() ?? '?';
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
        const close = stat.lastIndexOf(')');
        const comm = stat.slice(stat.indexOf('(') + 1, close);
        const f = stat.slice(close + 2).split(' ');
        // Fields after the name: state is 3rd overall, minflt 10th, utime 14th, stime 15th.
        out.set(`${pid}/${tid}`, {
          comm: all && kind !== 'renderer' ? `${kind}:${comm}` : comm,
          faults: Number(f[7]),
          ticks: Number(f[11]) + Number(f[12]),
        });
      } catch {
        continue;
      }
    }
  }
  return out;
}

/** JS samples per thread: [ts µs, "fn url:line"]. */
function samplesOf(events: Ev[]): Map<string, [number, string][]> {
  const out = new Map<string, [number, string][]>();
  const profiles = new Map<string, { t: number; nodes: Map<number, string>; thread: string }>();
  const sorted = events
    .filter((e) => e.name === 'Profile' || e.name === 'ProfileChunk')
    .sort((a, b) => a.ts - b.ts);
  for (const e of sorted) {
    const key = `${e.pid}:${e.id}`;
    const data = (e.args?.data ?? {}) as {
      startTime?: number;
      cpuProfile?: {
        nodes?: {
          id: number;
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
    };
    if (e.name === 'Profile') {
      profiles.set(key, {
        t: data.startTime ?? e.ts,
        nodes: new Map(),
        thread: `${e.pid}/${e.tid}`,
      });
      continue;
    }
    const p = profiles.get(key);
    if (p === undefined) continue;
    for (const n of data.cpuProfile?.nodes ?? []) {
      const f = n.callFrame;
      const file = (f.url ?? '').split('/').pop();
      const plain = `${f.functionName || '(anon)'} ${file}:${f.lineNumber ?? ''}`;
      p.nodes.set(
        n.id,
        file !== undefined && file.endsWith('.js') && f.lineNumber !== undefined
          ? originalName(distDir, file, f.lineNumber, f.columnNumber ?? 0, plain)
          : plain,
      );
    }
    const list = out.get(p.thread) ?? [];
    out.set(p.thread, list);
    const s = data.cpuProfile?.samples ?? [];
    const d = data.timeDeltas ?? [];
    for (let i = 0; i < s.length; i += 1) {
      p.t += d[i] ?? 0;
      list.push([p.t, p.nodes.get(s[i] as number) ?? '?']);
    }
  }
  return out;
}

const GC = /GC|Scavenge|MarkCompact|MinorMS/;

function top(samples: [number, string][], from: number, to: number, n = 6): string {
  const counts = new Map<string, number>();
  let total = 0;
  for (const [t, f] of samples) {
    if (t < from || t > to) continue;
    counts.set(f, (counts.get(f) ?? 0) + 1);
    total += 1;
  }
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([f, c]) => `${f} ${((100 * c) / Math.max(1, total)).toFixed(0)}%`)
    .join('; ');
}

async function main(): Promise<void> {
  const dist = process.argv[2] ?? 'dist';
  distDir = dist;
  const edits = Number(process.env.PROFILE_EDITS ?? 12);
  const { browser } = await launchPinned();
  const { child, url } = await startPreview(dist);
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    // The simulation worker's own figure for each run (its `tookMs`: simulate alone).
    await page.addInitScript(() => {
      const took: number[] = [];
      (window as unknown as { __took: number[] }).__took = took;
      const Base = window.Worker;
      window.Worker = class extends Base {
        constructor(u: string | URL, o?: WorkerOptions) {
          super(u, o);
          this.addEventListener(
            'message',
            (e: MessageEvent<{ type?: string; tookMs?: number }>) => {
              if (e.data?.type === 'result' && typeof e.data.tookMs === 'number')
                took.push(e.data.tookMs);
            },
          );
        }
      };
    });
    if (process.env.PROFILE_CONSOLE !== undefined)
      page.on('console', (m) => {
        if (m.text().startsWith('DBG')) console.log(m.text());
      });
    await page.goto(`${url}?${oneMillionLink()}`);
    await page.evaluate(() => document.fonts.ready);
    const input = page.getByLabel('max_tokens').first();
    await input.waitFor();
    await page.waitForTimeout(5000);
    const cdp = await page.context().newCDPSession(page);
    const events: Ev[] = [];
    cdp.on('Tracing.dataCollected', (e) => events.push(...(e.value as unknown as Ev[])));
    const complete = new Promise((resolve) => cdp.once('Tracing.tracingComplete', resolve));
    const tracing = process.env.PROFILE_NOTRACE === undefined;
    if (tracing)
      await cdp.send('Tracing.start', {
        traceConfig: {
          includedCategories: [
            'toplevel',
            'devtools.timeline',
            'v8',
            'v8.execute',
            ...(process.env.PROFILE_NOSAMPLER === undefined
              ? ['disabled-by-default-v8.cpu_profiler']
              : []),
            // PROFILE_POOL: what V8's helper threads (ThreadPool*) do in each edit.
            ...(process.env.PROFILE_POOL === undefined
              ? []
              : ['disabled-by-default-v8.gc', 'disabled-by-default-v8.compile', 'v8.compile']),
            'disabled-by-default-devtools.timeline.frame',
          ],
        },
        transferMode: 'ReportEvents',
      });
    const walls: number[] = [];
    /** Per timed edit: the worker threads' faults and CPU ticks, and the others' (renderer). */
    const faults: string[] = [];
    for (let i = -1; i < edits; i += 1) {
      const before = rendererThreads();
      const value = 102 + i;
      const armed = page.evaluate((expected) => {
        return new Promise<number>((resolve) => {
          const shows = () =>
            document
              .querySelector('[data-testid="limiter-view"]')
              ?.textContent?.includes(expected) === true;
          const onInput = () => {
            window.removeEventListener('input', onInput, true);
            console.timeStamp('p-start');
            const t0 = performance.now();
            const frame = () => {
              if (!shows()) {
                requestAnimationFrame(frame);
                return;
              }
              const ch = new MessageChannel();
              ch.port1.onmessage = () => {
                console.timeStamp('p-end');
                resolve(performance.now() - t0);
              };
              ch.port2.postMessage(null);
            };
            requestAnimationFrame(frame);
          };
          window.addEventListener('input', onInput, true);
        });
      }, `/ ${value} tokens`);
      await input.fill(String(value));
      const ms = await armed;
      if (i >= 0) walls.push(ms);
      const after = rendererThreads();
      let wf = 0;
      let wt = 0;
      let of = 0;
      /** The other threads' CPU ticks by thread name (PROFILE_THREADS). */
      const byName = new Map<string, number>();
      let ot = 0;
      for (const [tid, a] of after) {
        const b = before.get(tid) ?? { faults: 0, ticks: 0 };
        if (a.comm.startsWith('DedicatedWorker')) {
          wf += a.faults - b.faults;
          wt += a.ticks - b.ticks;
        } else {
          of += a.faults - b.faults;
          ot += a.ticks - b.ticks;
          const name = a.comm.replace(/\d+$/, '');
          byName.set(name, (byName.get(name) ?? 0) + a.ticks - b.ticks);
        }
      }
      faults.push(`${wf}f/${wt * 10}ms|${of}f/${ot * 10}ms`);
      if (process.env.PROFILE_THREADS !== undefined)
        console.log(
          `edit ${i}: other threads' CPU ${[...byName]
            .filter(([, t]) => t > 0)
            .map(([n, t]) => `${n} ${t * 10} ms`)
            .join(', ')}`,
        );
      await page.waitForTimeout(Number(process.env.PROFILE_GAP ?? 50));
    }
    const took = await page.evaluate(() => (window as unknown as { __took: number[] }).__took);
    console.log(`worker simulate() per run (tookMs): ${took.map((t) => t.toFixed(1)).join(' ')}`);
    if (!tracing) {
      console.log(`walls: ${walls.map((w) => w.toFixed(0)).join(' ')}`);
      console.log(
        `page faults / CPU, input → drawn, worker threads | other renderer threads (first untimed): ${faults.join(' ')}`,
      );
      return;
    }
    await cdp.send('Tracing.end');
    await complete;
    const names = new Map<string, string>();
    for (const e of events)
      if (e.ph === 'M' && e.name === 'thread_name')
        names.set(`${e.pid}/${e.tid}`, String(e.args?.name));
    const marks = events
      .filter((e) => e.name === 'TimeStamp')
      .map((e) => ({ e, m: (e.args?.data as { message?: string } | undefined)?.message }))
      .filter((x) => x.m === 'p-start' || x.m === 'p-end')
      .sort((a, b) => a.e.ts - b.e.ts);
    const main = marks[0] ? `${marks[0].e.pid}/${marks[0].e.tid}` : '';
    const workers = new Set(
      [...names]
        .filter(
          ([k, v]) => v === 'DedicatedWorker thread' && k.startsWith(main.split('/')[0] + '/'),
        )
        .map(([k]) => k),
    );
    const samples = samplesOf(events);
    const tasksOf = (thread: string) =>
      events
        .filter(
          (e) =>
            `${e.pid}/${e.tid}` === thread &&
            e.ph === 'X' &&
            e.name === 'ThreadControllerImpl::RunTask',
        )
        .sort((a, b) => a.ts - b.ts);
    const inside = (thread: string, from: number, to: number, re: RegExp) => {
      let t = 0;
      for (const e of events) {
        if (`${e.pid}/${e.tid}` !== thread || e.ph !== 'X' || !re.test(e.name)) continue;
        if (e.ts >= from && e.ts + (e.dur ?? 0) <= to) t += e.dur ?? 0;
      }
      return t / 1000;
    };
    const childNames = (thread: string, from: number, to: number) => {
      const c = new Map<string, number>();
      for (const e of events) {
        if (`${e.pid}/${e.tid}` !== thread || e.ph !== 'X' || e.dur === undefined) continue;
        if (e.ts < from || e.ts + e.dur > to || e.name === 'ThreadControllerImpl::RunTask')
          continue;
        if (
          !/GC|Layout|Paint|UpdateLayoutTree|PrePaint|Layerize|Commit|FunctionCall|EvaluateScript|RunMicrotasks|EventDispatch|FireAnimationFrame|V8.Deserialize|V8.Serialize|Decode|HitTest|TimerFire|ParseHTML|Scavenge|MarkCompact/.test(
            e.name,
          )
        )
          continue;
        c.set(e.name, (c.get(e.name) ?? 0) + e.dur / 1000);
      }
      return largestTotals(c, 8);
    };
    const mainTasks = tasksOf(main);
    let k = 0;
    for (let i = 0; i + 1 < marks.length; i += 1) {
      const s = marks[i]!;
      const e = marks[i + 1]!;
      if (s.m !== 'p-start' || e.m !== 'p-end') continue;
      const wall = (e.e.ts - s.e.ts) / 1000;
      console.log(
        `\nedit ${k - 1}: ${wall.toFixed(1)} ms input → drawn${k === 0 ? ' (untimed)' : ''}`,
      );
      k += 1;
      const show = (label: string, thread: string, tasks: Ev[]) => {
        for (const t of tasks) {
          const end = t.ts + (t.dur ?? 0);
          if (end < s.e.ts || t.ts > e.e.ts) continue;
          const d = (t.dur ?? 0) / 1000;
          if (d < 1) continue;
          const gc = inside(thread, t.ts, end, GC);
          console.log(
            `  ${label} +${((t.ts - s.e.ts) / 1000).toFixed(1)} ${d.toFixed(1)} ms (cpu ${((t.tdur ?? 0) / 1000).toFixed(1)}, gc ${gc.toFixed(1)}) [${childNames(thread, t.ts, end)}]`,
          );
          if (d >= 4) console.log(`      js: ${top(samples.get(thread) ?? [], t.ts, end)}`);
        }
      };
      show('main', main, mainTasks);
      for (const w of workers) show('worker', w, tasksOf(w));
      if (process.env.PROFILE_POOL !== undefined) {
        // Per thread, the events one level inside each task (what the task was), by name.
        const pool = new Map<string, number>();
        for (const [thread, name] of names) {
          if (!name.startsWith('ThreadPool') || !thread.startsWith(main.split('/')[0] + '/'))
            continue;
          let task = 0;
          let inner = 0;
          for (const ev of events
            .filter((x) => `${x.pid}/${x.tid}` === thread && x.ph === 'X' && x.dur !== undefined)
            .sort((x, y) => x.ts - y.ts)) {
            if (ev.ts < s.e.ts || ev.ts > e.e.ts) continue;
            if (ev.name === 'ThreadPool_RunTask') {
              task = ev.ts + (ev.dur ?? 0);
              inner = 0;
              continue;
            }
            if (ev.ts >= task || ev.ts < inner) continue;
            inner = ev.ts + (ev.dur ?? 0);
            pool.set(ev.name, (pool.get(ev.name) ?? 0) + (ev.tdur ?? ev.dur ?? 0) / 1000);
          }
        }
        console.log(`  helper threads (cpu): ${largestTotals(pool, 8)}`);
      }
    }
    // Aggregated over the timed edits: each thread's sampled functions (self), top 25.
    const agg = (thread: string) => {
      const counts = new Map<string, number>();
      let total = 0;
      const list = samples.get(thread) ?? [];
      for (let i = 2; i + 1 < marks.length; i += 1) {
        const s = marks[i]!;
        const e = marks[i + 1]!;
        if (s.m !== 'p-start' || e.m !== 'p-end') continue;
        for (const [t, f] of list) {
          if (t < s.e.ts || t > e.e.ts || f.startsWith('(idle)') || f.startsWith('(program)'))
            continue;
          counts.set(f, (counts.get(f) ?? 0) + 1);
          total += 1;
        }
      }
      console.log(`\n${names.get(thread)} ${thread}: ${total} samples (no idle/program)`);
      for (const [f, c] of [...counts].sort((a, b) => b[1] - a[1]).slice(0, 30))
        console.log(`  ${((100 * c) / total).toFixed(1)}% ${f}`);
    };
    agg(main);
    for (const w of workers) agg(w);
    const sorted = [...walls].sort((a, b) => a - b);
    console.log(
      `\nwalls: ${walls.map((w) => w.toFixed(0)).join(' ')}; median ${sorted[Math.floor(sorted.length / 2)]?.toFixed(1)}, max ${sorted.at(-1)?.toFixed(1)}`,
    );
  } finally {
    child.kill();
    await browser.close();
  }
}

await main();
