/**
 * Reads a Blob (a File or a slice of one) from start to end into one reused buffer, handing each
 * piece to `onBytes` as it comes. A stream's default reader makes a new ArrayBuffer for every
 * piece (about 0.6 MB each in Chromium 143): for a 247 MB log that is ~400 buffers to allocate,
 * zero and collect, which cost the parsing worker about 1 s of CPU on its own; a BYOB ("bring your
 * own buffer") reader fills the same 1 MB buffer each time, about 0.15 s for the same file
 * (measured in the pinned Chromium, tests/bench/ingest.ts). Where the stream has no BYOB reader,
 * the default reader is used.
 *
 * The BYOB reads stop once the Blob's `size` bytes were handed on, and never ask for more bytes
 * than are still to come: the read that would only report the stream's end is never made (the
 * stream is cancelled instead). Reading to `done` into a full-size buffer, as this did first, left
 * a held read of a 5.1M-line log in the pinned Chromium (143) unanswered near its end (4.90M of
 * 5.1M requests, the renderer idle; tests/e2e/trace-stream-span.spec.ts); read to its size, that
 * spec passed three runs in a row. Which read hung was not caught: a stand-alone page with the
 * same slices, buffers and workers did not hang in some 300 reads.
 *
 * `onBytes` must not keep the view it is given past its return (the buffer is filled again):
 * copy what must stay.
 */

/** Bytes a BYOB read asks for at a time. */
export const READ_BUFFER_BYTES = 1 << 20;

/**
 * Reads `blob` to its end, piece by piece, into a buffer of `bufferBytes` (BYOB reads); resolves
 * when every one of its `size` bytes was handed on. Rejects when the stream ends short of `size`
 * (the file changed while it was read).
 */
export async function readBytes(
  blob: Pick<Blob, 'stream' | 'size'>,
  onBytes: (bytes: Uint8Array) => void,
  bufferBytes = READ_BUFFER_BYTES,
  /**
   * A buffer kept from one read to the next (a worker reading range after range): used when it
   * is there, and given the read's buffer at the end, so each read makes no buffer of its own.
   */
  keep: { buffer: ArrayBuffer | null } | null = null,
): Promise<void> {
  const stream = blob.stream();
  let byob: ReadableStreamBYOBReader | null = null;
  try {
    byob = stream.getReader({ mode: 'byob' });
  } catch {
    // Not a byte stream here: read it the default way below.
  }
  if (byob === null) {
    const reader = stream.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        onBytes(value);
      }
    } catch (e) {
      void reader.cancel().catch(() => {});
      throw e;
    }
  }
  const reader = byob;
  const size = blob.size;
  const kept = keep?.buffer ?? null;
  let buffer =
    kept !== null && kept.byteLength > 0
      ? kept
      : new ArrayBuffer(Math.max(1, Math.min(bufferBytes, size)));
  // Lent to this read: a read that fails leaves no buffer to keep.
  if (keep !== null) keep.buffer = null;
  let got = 0;
  try {
    while (got < size) {
      // Never more than what is still to come: the read is answered by the file's bytes alone.
      const want = Math.min(buffer.byteLength, size - got);
      const { done, value } = await reader.read(new Uint8Array(buffer, 0, want));
      if (done || value === undefined) {
        throw new Error(
          `the file ended after ${got.toLocaleString('en-US')} of its ${size.toLocaleString('en-US')} bytes (was it changed while it was read?)`,
        );
      }
      got += value.byteLength;
      onBytes(value);
      // The read took the buffer over; its view gives it back for the next read.
      buffer = value.buffer;
    }
  } catch (e) {
    void reader.cancel().catch(() => {});
    throw e;
  }
  // Every byte was handed on: the stream is let go without a read waiting for its end.
  void reader.cancel().catch(() => {});
  if (keep !== null) keep.buffer = buffer;
}
