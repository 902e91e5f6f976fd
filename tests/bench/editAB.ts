/**
 * Paired A/B of the frame bench's "a parameter edited while compare mode plays": each
 * round opens the compare page (six limiters, 200 r/s, 1×) from every dist folder given, in turn
 * (the order alternating per round), times EDITS edits of lane 1's max_tokens as the bench does
 * (tracedEdits, timeEdits) and prints per folder: input → end of the frame that draws it, the input
 * task from the listener (wall and CPU) and the drawing frame's CPU, pooled over the rounds, with
 * each round's p95. The other load here makes one run noise; interleaved rounds share it.
 * PROFILE=1 also takes a CPU profile and a detailed trace per run and prints, over all edits of
 * each folder, the input tasks' and the drawing frames' time by trace event (self) and the input
 * tasks' heaviest functions (inclusive and self samples).
 * Run: `npx vite build --ssr tests/bench/editAB.ts --outDir node_modules/.cache/editab --emptyOutDir`
 * then `node node_modules/.cache/editab/editAB.js distA distB [...]` (env ROUNDS, default 4; EDITS,
 * default 15; TOPN, the inclusive profile rows printed, default 45; RATE, the CPU throttling as
 * the bench's 4× figures, default 1). Bundled as `npm run bench` is: under tsx, node cannot take
 * lz-string's named imports.
 */
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import type { CDPSession, Page } from '@playwright/test';
import { encodeConfig } from '../../src/config';
import {
  compareConfig,
  launchPinned,
  openPlaying,
  quantile,
  startPreview,
  throttle,
  timeEdits,
  tracedEdits,
} from './frames';
import type { ChangeRecord, EditPhases, TraceEvent } from './frames';
import { originalName } from './sourceMaps';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  parent?: number;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

const ROUNDS = Number(process.env.ROUNDS ?? 4);
const EDITS = Number(process.env.EDITS ?? 15);
const PROFILE = process.env.PROFILE !== undefined;
/** CPU throttling rate (CDP), as the bench's 4× figures; default 1. */
const RATE = Number(process.env.RATE ?? 1);
/** Inclusive profile rows printed (PROFILE). */
const TOPN = Number.isFinite(Number(process.env.TOPN)) ? Number(process.env.TOPN) : 45;

interface RunFigures {
  toFrame: number[];
  toDom: number[];
  inputMs: number[];
  inputCpuMs: number[];
  frameCpuMs: number[];
  cpuMs: number[];
}

const f1 = (x: number) => x.toFixed(1);
function spread(values: readonly number[]): string {
  const s = [...values].sort((a, b) => a - b);
  return `median ${f1(quantile(s, 0.5))}, p95 ${f1(quantile(s, 0.95))} (n ${s.length})`;
}

/** Self time (ms) by trace event name on one thread inside the windows given. */
function selfByName(
  events: TraceEvent[],
  thread: string,
  windows: [number, number][],
): Map<string, number> {
  const own = events
    .filter((e) => `${e.pid}/${e.tid}` === thread && e.ph === 'X' && e.dur !== undefined)
    .sort((a, b) => a.ts - b.ts || (b.dur ?? 0) - (a.dur ?? 0));
  const out = new Map<string, number>();
  for (const [a, b] of windows) {
    const inside = own.filter((e) => e.ts >= a && e.ts + (e.dur ?? 0) <= b);
    const stack: { e: TraceEvent; child: number }[] = [];
    const close = (upTo: number) => {
      while (stack.length > 0) {
        const top = stack[stack.length - 1] as { e: TraceEvent; child: number };
        if (top.e.ts + (top.e.dur ?? 0) > upTo) break;
        stack.pop();
        const self = (top.e.dur ?? 0) - top.child;
        out.set(top.e.name, (out.get(top.e.name) ?? 0) + self / 1000);
        const parent = stack[stack.length - 1];
        if (parent !== undefined) parent.child += top.e.dur ?? 0;
      }
    };
    for (const e of inside) {
      close(e.ts);
      stack.push({ e, child: 0 });
    }
    close(Infinity);
  }
  return out;
}

/** Profile samples inside the windows: inclusive and self ms per function. */
function profileIn(profile: Profile, windows: [number, number][], dist: string) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const label = (n: ProfileNode) => {
    const file = n.callFrame.url.split('/').at(-1) ?? '';
    const fallback = `${n.callFrame.functionName || '(anon)'} ${file}:${n.callFrame.lineNumber + 1}`;
    if (file === '') return fallback;
    return originalName(dist, file, n.callFrame.lineNumber, n.callFrame.columnNumber, fallback);
  };
  const incl = new Map<string, number>();
  const self = new Map<string, number>();
  let t = profile.startTime;
  let total = 0;
  for (let i = 0; i < profile.samples.length; i += 1) {
    t += profile.timeDeltas[i] ?? 0;
    const dt = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    if (!windows.some(([a, b]) => t >= a && t <= b)) continue;
    total += dt;
    let id: number | undefined = profile.samples[i];
    const seen = new Set<string>();
    const leaf = byId.get(id as number);
    if (leaf !== undefined) self.set(label(leaf), (self.get(label(leaf)) ?? 0) + dt);
    while (id !== undefined) {
      const n = byId.get(id);
      if (n === undefined) break;
      const l = label(n);
      if (!seen.has(l)) {
        seen.add(l);
        incl.set(l, (incl.get(l) ?? 0) + dt);
      }
      id = parent.get(id);
    }
  }
  return { incl, self, total };
}

function add(into: Map<string, number>, from: Map<string, number>) {
  for (const [k, v] of from) into.set(k, (into.get(k) ?? 0) + v);
}

function top(m: Map<string, number>, n: number, per: number): string {
  return [...m]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, v]) => `    ${(v / per).toFixed(2).padStart(6)} ms  ${k}`)
    .join('\n');
}

interface Details {
  edits: number;
  inputEvents: Map<string, number>;
  frameEvents: Map<string, number>;
  incl: Map<string, number>;
  self: Map<string, number>;
}

async function oneRun(
  page: Page,
  url: string,
  details: Details,
  dist: string,
): Promise<RunFigures> {
  await throttle(page, RATE);
  await openPlaying(page, `${url}?${encodeConfig(compareConfig())}`);
  let cdp: CDPSession | null = null;
  if (PROFILE) {
    cdp = await page.context().newCDPSession(page);
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
    await cdp.send('Profiler.start');
  }
  const traced = await tracedEdits(
    page,
    async () => {
      const records = await timeEdits(page, EDITS, 101);
      return records;
    },
    PROFILE
      ? ['blink', 'cc', 'v8.gc', 'disabled-by-default-devtools.timeline.invalidationTracking']
      : [],
  );
  const records: ChangeRecord[] = traced.value;
  const phases: EditPhases[] = traced.phases.slice(-records.length);
  if (cdp !== null && traced.events !== undefined) {
    const { profile } = (await cdp.send('Profiler.stop')) as { profile: Profile };
    await cdp.detach();
    const events = traced.events;
    if (process.env.DUMP !== undefined) {
      writeFileSync(
        `${process.env.DUMP}-${dist.replace(/\W/g, '_')}.json`,
        JSON.stringify({ events, profile }),
      );
    }
    const marks = events
      .filter((e) => e.name === 'TimeStamp')
      .filter((e) => /bench-edit-(start|end)/.test(e.args?.data?.message ?? ''))
      .sort((a, b) => a.ts - b.ts);
    const thread = marks[0] === undefined ? '' : `${marks[0].pid}/${marks[0].tid}`;
    const tasks = events
      .filter(
        (e) =>
          `${e.pid}/${e.tid}` === thread &&
          e.ph === 'X' &&
          e.name === 'ThreadControllerImpl::RunTask',
      )
      .sort((a, b) => a.ts - b.ts);
    const frames = events
      .filter((e) => `${e.pid}/${e.tid}` === thread && e.name === 'BeginMainThreadFrame')
      .map((e) => e.ts)
      .sort((a, b) => a - b);
    const inputW: [number, number][] = [];
    const frameW: [number, number][] = [];
    // Skip the untimed first edit.
    const starts = marks.filter((m) => m.args?.data?.message === 'bench-edit-start').slice(1);
    for (const s of starts) {
      const end = marks.find((m) => m.ts > s.ts && m.args?.data?.message === 'bench-edit-end');
      if (end === undefined) continue;
      const input = tasks.find((t) => t.ts <= s.ts && t.ts + (t.dur ?? 0) >= s.ts);
      const fs = frames.filter((t) => t <= end.ts).at(-1);
      const frame =
        fs === undefined ? undefined : tasks.find((t) => t.ts <= fs && t.ts + (t.dur ?? 0) >= fs);
      if (input !== undefined && frame !== undefined && frame !== input) {
        inputW.push([input.ts, input.ts + (input.dur ?? 0)]);
        frameW.push([frame.ts, frame.ts + (frame.dur ?? 0)]);
      }
    }
    details.edits += inputW.length;
    add(details.inputEvents, selfByName(events, thread, inputW));
    add(details.frameEvents, selfByName(events, thread, frameW));
    const p = profileIn(profile, inputW, dist);
    add(details.incl, p.incl);
    add(details.self, p.self);
  }
  return {
    toFrame: records.map((r) => r.end - r.t0),
    toDom: records.map((r) => r.commit - r.t0),
    inputMs: phases.map((p) => p.inputMs),
    inputCpuMs: phases.map((p) => p.inputCpuMs),
    frameCpuMs: phases.map((p) => p.frameCpuMs),
    cpuMs: traced.cpuMs.slice(-records.length),
  };
}

async function main(): Promise<void> {
  const dirs = process.argv.slice(2);
  if (dirs.length === 0) throw new Error('usage: editAB.ts distA [distB ...]');
  const previews = await Promise.all(dirs.map((d) => startPreview(d)));
  const { browser } = await launchPinned();
  const pooled = dirs.map(() => ({
    toFrame: [] as number[],
    toDom: [] as number[],
    inputMs: [] as number[],
    inputCpuMs: [] as number[],
    frameCpuMs: [] as number[],
    cpuMs: [] as number[],
    p95s: [] as number[],
    inputP95s: [] as number[],
  }));
  const details: Details[] = dirs.map(() => ({
    edits: 0,
    inputEvents: new Map(),
    frameEvents: new Map(),
    incl: new Map(),
    self: new Map(),
  }));
  console.log(
    `load ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}; ${ROUNDS} rounds × ${EDITS} edits`,
  );
  try {
    const context = await browser.newContext({
      viewport: { width: 1280, height: 800 },
      deviceScaleFactor: 1,
      locale: 'en-US',
      timezoneId: 'UTC',
    });
    for (let round = 0; round < ROUNDS; round += 1) {
      const order = dirs.map((_, i) => i);
      if (round % 2 === 1) order.reverse();
      for (const i of order) {
        const page = await context.newPage();
        const r = await oneRun(
          page,
          (previews[i] as { url: string }).url,
          details[i] as Details,
          dirs[i] as string,
        );
        await page.close();
        const p = pooled[i] as (typeof pooled)[number];
        p.toFrame.push(...r.toFrame);
        p.toDom.push(...r.toDom);
        p.inputMs.push(...r.inputMs);
        p.inputCpuMs.push(...r.inputCpuMs);
        p.frameCpuMs.push(...r.frameCpuMs);
        p.cpuMs.push(...r.cpuMs);
        const s = [...r.toFrame].sort((a, b) => a - b);
        p.p95s.push(quantile(s, 0.95));
        p.inputP95s.push(
          quantile(
            [...r.inputMs].sort((a, b) => a - b),
            0.95,
          ),
        );
        const third = Math.floor(r.inputCpuMs.length / 3);
        if (process.env.THIRDS !== undefined)
          console.log(
            `  input task CPU by thirds: ${[0, 1, 2].map((k) => spread(r.inputCpuMs.slice(k * third, (k + 1) * third))).join(' | ')}`,
          );
        console.log(
          `round ${round + 1} ${dirs[i]}: input → frame ${spread(r.toFrame)}; input task ${spread(r.inputMs)}; load ${loadavg()[0]?.toFixed(1)}`,
        );
      }
    }
    for (const [i, d] of dirs.entries()) {
      const p = pooled[i] as (typeof pooled)[number];
      console.log(`\n${d} (pooled over ${ROUNDS} rounds):`);
      console.log(
        `  input → end of the frame that draws it: ${spread(p.toFrame)}; per-round p95 ${p.p95s.map(f1).join(', ')}`,
      );
      console.log(`  input → new result in the DOM: ${spread(p.toDom)}`);
      console.log(
        `  input task from the listener (wall): ${spread(p.inputMs)}; per-round p95 ${p.inputP95s.map(f1).join(', ')}`,
      );
      console.log(`  input task CPU: ${spread(p.inputCpuMs)}`);
      console.log(`  drawing frame task CPU: ${spread(p.frameCpuMs)}`);
      console.log(`  main-thread CPU input → frame end: ${spread(p.cpuMs)}`);
      const det = details[i] as Details;
      if (det.edits > 0) {
        console.log(`  input task, self time by trace event (ms per edit, ${det.edits} edits):`);
        console.log(top(det.inputEvents, 14, det.edits));
        console.log(`  drawing frame task, self time by trace event (ms per edit):`);
        console.log(top(det.frameEvents, 14, det.edits));
        console.log(`  input task, profile inclusive (ms per edit):`);
        console.log(top(det.incl, TOPN, det.edits));
        console.log(`  input task, profile self (ms per edit):`);
        console.log(top(det.self, 30, det.edits));
      }
    }
    console.log(
      `load now ${loadavg()
        .map((x) => x.toFixed(1))
        .join(' ')}`,
    );
  } finally {
    await browser.close();
    for (const p of previews) p.child.kill();
  }
}

await main();
