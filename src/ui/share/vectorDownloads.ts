/**
 * Test vectors, a chunk of its own fetched on first use: the zip writer
 * (fflate) and the generated test files stay out of the other downloads.
 */
import { strToU8, zipSync } from 'fflate';
import { testVectorFiles, testVectors, testVectorsJson } from '../../export/test-vectors';
import type { SimResult } from '../../sim';
import type { PlaygroundState } from '../../store';
import { plural } from '../../core';
import { systemOf } from '../../systems';
import { formatCount } from '../common/format';
import { downloadBlob } from './download';
import type { Saved } from './downloads';

/**
 * The edited limiter's decisions as test vectors (JSON), or the vectors with the Vitest, Jest and
 * Go files that replay them against the user's limiter (zip).
 */
export function saveTestVectors(zip: boolean, state: PlaygroundState, result: SimResult): Saved {
  const lane = Math.min(state.activeLane, result.lanes.length - 1);
  const entry = state.limiters[lane];
  if (entry === undefined) throw new Error('No limiter to take test vectors from.');
  const file = testVectors(result, lane, systemOf(entry).id);
  const base = `rate-limit-lab-${systemOf(entry).id}-vectors`;
  const count = plural(file.vectors.length, 'decision', 'decisions', formatCount);
  if (!zip) {
    const filename = `${base}.json`;
    downloadBlob(new Blob([testVectorsJson(file)], { type: 'application/json' }), filename);
    return { filename, summary: `Saved ${filename}: ${count}.` };
  }
  const files = Object.fromEntries(
    Object.entries(testVectorFiles(file)).map(([name, text]) => [`${base}/${name}`, strToU8(text)]),
  );
  const filename = `${base}.zip`;
  downloadBlob(new Blob([zipSync(files)], { type: 'application/zip' }), filename);
  return { filename, summary: `Saved ${filename}: ${count}, with Vitest, Jest and Go tests.` };
}
