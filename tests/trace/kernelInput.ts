/**
 * A KernelInput (src/trace/kernels.ts) over one chunk of requests for the kernel tests: the
 * chunk's times and key ids, scratch of its length, no key below the p99 unless `more` says, and
 * whatever else `more` sets (state, outcome, origin, the keys' requests).
 */
import type { KernelInput } from '../../src/trace/kernels';

export function chunkInput(
  timeMs: Int32Array,
  keyId: Uint32Array,
  keyCount: number,
  more: Partial<KernelInput> = {},
): KernelInput {
  return {
    timeMs,
    keyId,
    keyCount,
    below: new Uint8Array(keyCount),
    nextSameKey: new Int32Array(0),
    adm: new Float64Array(timeMs.length),
    del: new Float64Array(1),
    rel: new Float64Array(1),
    flag: new Uint8Array(0),
    ...more,
  };
}
