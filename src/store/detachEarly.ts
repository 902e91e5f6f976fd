/**
 * Detaches one empty ArrayBuffer (transfers it to nowhere), for a thread that will transfer
 * buffers later: the page, which hands spent column buffers back to the simulation worker, and the
 * worker, which hands a lane's columns over to the page.
 *
 * Why (the 1,000,000-arrival edit): V8 compiles typed-array code on the assumption that
 * no ArrayBuffer of the thread has ever been detached (its ArrayBufferDetaching protector). The
 * first transfer of a thread breaks that assumption once and for all, and V8 throws away every
 * function compiled with it. In the worker that came with the first edit, after the warm-up had
 * compiled the lane loop, the tracker and the metrics: all of them ran unoptimised again and were
 * compiled again, TurboFan taking 80–110 ms of a helper thread per compile of the lane loop, on
 * the two cores the worker and the page share (seen with Chromium's `--trace-deopt
 * --trace-protector-invalidation --trace-opt` in tests/bench/deoptTrace.ts). Detaching first,
 * before any hot code runs, makes the assumption false from the start, so nothing compiled later
 * depends on it. Engines without such an assumption lose nothing: the buffer is empty.
 */
export function detachEarly(): void {
  if (typeof structuredClone !== 'function') return;
  const buffer = new ArrayBuffer(0);
  structuredClone(buffer, { transfer: [buffer] });
}
