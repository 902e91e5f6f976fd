/**
 * Node check for the chunked sliding log: the streamed 20 × 20 sweep of Redis's sliding log (and
 * its logRejected variant, and Caddy's ring with its last-millisecond pass) over a real-shaped log
 * (tests/bench/ingest.ts writeRealLikeLog), recorded as the statistics pass records it, decided by
 * sweepRecorded. Prints each cell's numbers as JSON to the file given and the CPU time of the
 * sweep. Run in two trees, the JSON files compare the cells. SLOG_BASES (a JSON array of base
 * configs) sweeps other grids instead. Usage: npx tsx tests/bench/slogCompare.ts <log> <lines>
 * <out.json>
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import type { AlgorithmConfig } from '../../src/core';
import {
  BlobSink,
  StreamPass,
  TraceStream,
  belowP99OfCounts,
  rangeHead,
  sweepPlan,
  sweepRecorded,
} from '../../src/trace';
import { partsFormat } from '../../src/trace/parse';
import { writeRealLikeLog } from './ingest';

async function main(): Promise<void> {
  const [path, linesText, out] = process.argv.slice(2) as [string, string, string];
  if (!existsSync(path)) await writeRealLikeLog(path, Number(linesText));
  const bytes = new Uint8Array(readFileSync(path));
  const keySpec = [{ kind: 'client' as const }];
  const opts = {
    name: 'cmp.log',
    keySpec,
    maxRequests: Number.MAX_SAFE_INTEGER,
    maxTextBytes: Number.MAX_SAFE_INTEGER,
  };
  const head = rangeHead(bytes.subarray(0, 128 * 1024), opts);
  if (head === null) throw new Error('the log is not read in ranges');
  const s = new TraceStream({ ...opts, detectFrom: head, rangeStart: 0 });
  s.push(bytes);
  const part = s.finishPart();
  const sink = new BlobSink();
  const pass = new StreamPass('cmp.log', keySpec, [], 'recorded', sink);
  pass.merger.add(part);
  const r = pass.finish(pass.merger.finishReport(partsFormat({ ...opts, detectFrom: head })));
  const v = pass.keyVolumes();
  const below = belowP99OfCounts(Array.from(v.counts));
  const rec = {
    blob: sink.blob(),
    count: r.requests,
    keys: v.keys,
    counts: v.counts,
    originMs: (pass.recorded() as { originMs: number }).originMs,
  };
  const result: Record<string, unknown> = { requests: r.requests, keys: v.keys.length };
  // SLOG_BASES: a JSON array of other base configs to sweep instead (e.g. another system's).
  const bases = process.env.SLOG_BASES
    ? (JSON.parse(process.env.SLOG_BASES) as AlgorithmConfig[])
    : ([
        { kind: 'sliding-log', limit: 5, windowMs: 1000 },
        { kind: 'sliding-log', limit: 5, windowMs: 1000, logRejected: true },
        { kind: 'sliding-log', limit: 5, windowMs: 1001, lastMsPasses: true },
      ] as AlgorithmConfig[]);
  for (const base of bases) {
    const plan = sweepPlan(base, 20);
    if (plan === null) throw new Error('no plan');
    const grid: AlgorithmConfig[] = [];
    for (let x = 0; x < plan.x.values.length; x += 1)
      for (let y = 0; y < plan.y.values.length; y += 1) grid.push(plan.configAt(x, y));
    const c0 = process.cpuUsage();
    const cells = await sweepRecorded(rec, grid, 1000, below, null);
    const cpu = process.cpuUsage(c0);
    const name = JSON.stringify(base);
    result[name] = cells;
    console.log(
      `${name}: ${grid.length} cells, CPU ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s (user ${(cpu.user / 1e6).toFixed(1)}), heap used ${(process.memoryUsage().heapUsed / 1e6).toFixed(0)} MB; load ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
  }
  writeFileSync(out, JSON.stringify(result));
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
