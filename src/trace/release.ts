/** Giving the memory of array buffers back as soon as nothing reads them. */

/**
 * Frees the memory of array buffers no longer used, now, by detaching them
 * (`ArrayBuffer.prototype.transfer(0)`, ES2024): a dropped buffer's memory lies outside the
 * JavaScript heap and is only given back at the isolate's next garbage collection, which V8 starts
 * for outside memory after about 64 MB of it (its external allocation soft limit), so every worker
 * that reads pieces of a file, or takes parts from other workers, would hold up to that much in
 * dead buffers. A buffer that cannot be detached (shared, or already detached) is left alone, and
 * where `transfer` is missing (Node 20) this does nothing. Only for buffers made in JavaScript
 * that nothing reads again — never one the browser made or handed over (a stream reader's piece,
 * a Blob's `arrayBuffer()`, a buffer received in a message): the browser keeps such a buffer's
 * memory until its own wrapper is collected, while the detached buffer is no longer counted by the
 * heap, so no collection comes for it. In the pinned Chromium (143), with the parts a pass worker
 * received detached after merging (6M lines), the isolates' buffers at the peak fell by 111 MB
 * and the renderer's anonymous memory rose by 74 MB; detaching each 512 kB chunk of the sweep's
 * copy read with `arrayBuffer()` kept the renderer 130 MB higher than one reused buffer (16M
 * requests; tests/bench/ingestStream.ts).
 */
export function releaseBuffers(...buffers: ArrayBufferLike[]): void {
  for (const b of buffers) {
    const transfer = (b as { transfer?: (length: number) => ArrayBuffer }).transfer;
    if (typeof transfer !== 'function' || b.byteLength === 0) continue;
    try {
      transfer.call(b, 0);
    } catch {
      // Not detachable: it is collected as any other.
    }
  }
}
