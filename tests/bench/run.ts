/**
 * `npm run bench`: every benchmark, one after the other, printing figures (asserts nothing). The
 * script builds the site first: the frame bench drives dist/ in Chromium.
 * package.json bundles this file with Vite first: run unbundled (tsx), every cross-module call goes
 * through an export getter and the figures say more about the loader than about the code.
 * `BENCH=frames npm run bench` (or core, sim, keyhistory, fleet, probe, trace, tracebrowser, ingest,
 * sql, memory, decode, import, search; comma-separated; trace includes tracebrowser; search runs only when named) runs only those
 * parts. `DECODE=saved` leaves the links out of the decode part (only the saved records); `DECODE_RUNS=3`
 * opens each link or record in 3 fresh Chromium contexts and reports the best.
 */
import { runBenchChild, runCoreBench } from './core';
import { runFrameBench } from './frames';
import { runBrowserOpenBench, runColdDecodeBench, runDecodeChild } from './cold-open';
import { runHostileBench } from './hostile';
import { runSearchBench } from './search';
import { runMemoryBench, runMemoryChild } from './memory';
import { runProbeBench } from './probe';
import { runFleetBench, runSimBench } from './sim';
import { runTraceBench } from './trace';
import { runTraceBrowserBench } from './traceBrowser';
import { runSqlBench } from './sql';
import { runIngestAttackBench } from './ingestAttacks';
import { runIngestBench } from './ingest';
import { runIngestStreamBench } from './ingestStream';
import { runKeyHistoryBench } from './keyHistory';

const only = process.env.BENCH?.split(',').map((s) => s.trim());
const wanted = (part: string) => only === undefined || only.includes(part);

if (!runMemoryChild() && !runDecodeChild() && !(await runBenchChild())) {
  if (wanted('core')) {
    await runCoreBench();
    console.log('');
  }
  if (wanted('sim')) {
    await runSimBench();
    console.log('');
  }
  if (wanted('keyhistory')) {
    runKeyHistoryBench();
    console.log('');
  }
  if (wanted('fleet')) {
    await runFleetBench();
    console.log('');
  }
  if (wanted('probe')) {
    await runProbeBench();
    console.log('');
  }
  if (wanted('trace')) {
    runTraceBench();
    console.log('');
  }
  if (wanted('trace') || wanted('tracebrowser')) {
    await runTraceBrowserBench();
    console.log('');
  }
  if (wanted('sql')) {
    await runSqlBench();
    console.log('');
  }
  // Hostile access logs (minutes: the files are gigabytes of text once inflated).
  // INGEST=speed or INGEST=attacks runs only that half; ATTACK=bomb, only the attacks so named.
  // INGEST=stream: a 16M-line (~3.9 GB) log streamed from disk; only when asked.
  if (wanted('ingest') && process.env.INGEST === 'stream') {
    await runIngestStreamBench();
    console.log('');
  } else if (wanted('ingest')) {
    if (process.env.INGEST !== 'attacks') await runIngestBench();
    console.log('');
    if (process.env.INGEST !== 'speed') await runIngestAttackBench();
    console.log('');
  }
  if (wanted('decode')) {
    await runColdDecodeBench();
    await runBrowserOpenBench();
  }
  if (wanted('decode') || wanted('import')) {
    runHostileBench({ decode: wanted('decode'), imports: wanted('import') });
    console.log('');
  }
  // Not part of the whole bench (minutes): `BENCH=search` asks for it.
  if (only?.includes('search') === true) {
    await runSearchBench();
    console.log('');
  }
  if (wanted('memory')) {
    await runMemoryBench();
    console.log('');
  }
  // BENCH_DIST: another built site than dist/ (a paired A/B of two builds).
  if (wanted('frames')) await runFrameBench(process.env.BENCH_DIST ?? 'dist');
}
