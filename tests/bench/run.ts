/**
 * `npm run bench`: every benchmark, one after the other, printing figures (asserts nothing). The
 * script builds the site first: the frame bench drives dist/ in Chromium.
 * package.json bundles this file with Vite first: run unbundled (tsx), every cross-module call goes
 * through an export getter and the figures say more about the loader than about the code.
 */
import { runBenchChild, runCoreBench } from './core';
import { runFrameBench } from './frames';
import { runSimBench } from './sim';
import { runTraceBench } from './trace';

if (!(await runBenchChild())) {
  await runCoreBench();
  console.log('');
  await runSimBench();
  console.log('');
  runTraceBench();
  console.log('');
  await runFrameBench();
}
