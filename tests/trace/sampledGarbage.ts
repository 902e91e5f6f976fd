/**
 * Bytes a piece of code leaves for the collector, by V8's sampling heap profiler (every
 * allocation counted, those already collected included), for the garbage tests of the readers.
 */
import { Session } from 'node:inspector/promises';

/** One sampled run of `run`: the bytes the profiler's samples stand for (1 sample a KB on average). */
async function sampledBytes(run: () => void): Promise<number> {
  const session = new Session();
  session.connect();
  try {
    await session.post('HeapProfiler.enable');
    await session.post('HeapProfiler.startSampling', {
      samplingInterval: 1024,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
    run();
    const { profile } = await session.post('HeapProfiler.stopSampling');
    let total = 0;
    // Node's types leave out the samples the protocol gives (HeapProfiler.SamplingHeapProfile).
    const samples = (profile as unknown as { samples: { size: number }[] }).samples;
    for (const s of samples) total += s.size;
    return total;
  } finally {
    session.disconnect();
  }
}

/**
 * The fewest bytes per unit `run` leaves over up to `tries` sampled runs, stopping at the first
 * under `enough`. V8 compiles optimised code on a background thread: on a busy machine it can come
 * in after the warm-up runs, and a run in unoptimised code boxes numbers the optimised code keeps
 * unboxed. Code that allocates per unit fails every try.
 */
export async function leastGarbagePer(
  run: () => void,
  units: number,
  enough: number,
  tries = 5,
): Promise<number> {
  let least = Number.POSITIVE_INFINITY;
  for (let i = 0; i < tries && least >= enough; i += 1) {
    least = Math.min(least, (await sampledBytes(run)) / units);
  }
  return least;
}
