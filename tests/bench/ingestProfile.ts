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

/** Self time per function per thread from a Chrome trace's ProfileChunk events, ms. */
export function profileByThread(events: readonly TraceEvent[]): Map<string, Map<string, number>> {
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
      nodes.set(n.id, `${f.functionName || '(anonymous)'} ${file}:${(f.lineNumber ?? -1) + 1}`);
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

/** Reads `path` through the page's file input under the profiler; prints where the time went. */
export async function profileIngestInPage(path: string, distDir = 'dist'): Promise<void> {
  const started = await startPreview(distDir);
  let browser: Browser | null = null;
  try {
    browser = (await launchPinned()).browser;
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(new URL('./?v=1&paused', started.url).href);
    await page.getByTestId('trace-file').waitFor({ state: 'attached' });
    await browser.startTracing(page, {
      categories: ['devtools.timeline', 'v8', 'disabled-by-default-v8.cpu_profiler'],
    });
    const t0 = performance.now();
    await page.getByTestId('trace-file').setInputFiles(path);
    await page.getByTestId('trace-summary').waitFor({ timeout: 600_000 });
    const wallMs = performance.now() - t0;
    const json = (await browser.stopTracing()).toString('utf8');
    const parsed = JSON.parse(json) as { traceEvents: TraceEvent[] } | TraceEvent[];
    const events = Array.isArray(parsed) ? parsed : parsed.traceEvents;
    console.log(
      `  profile: choice → summary ${(wallMs / 1000).toFixed(2)} s wall (with the profiler on); load ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
    for (const self of profileByThread(events).values()) {
      const rows = [...self].filter(([n]) => n !== '(idle) :0').sort((a, b) => b[1] - a[1]);
      const busy = rows.reduce((s, [, ms]) => s + ms, 0);
      if (busy < 20) continue;
      // The thread named by the script most of its samples ran in (the profiler's own thread
      // ids say nothing).
      const byScript = new Map<string, number>();
      for (const [n, ms] of rows) {
        const script = /\s(\S+?)(?:-[\w-]{8})?\.js:/.exec(n)?.[1];
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
