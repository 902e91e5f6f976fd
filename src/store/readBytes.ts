/**
 * Reads a Blob (a File or a slice of one) from start to end into one reused buffer, handing each
 * piece to `onBytes` as it comes. A stream's default reader makes a new ArrayBuffer for every
 * piece (about 0.6 MB each in Chromium 143): for a 247 MB log that is ~400 buffers to allocate,
 * zero and collect, which cost the parsing worker about 1 s of CPU on its own; a BYOB ("bring your
 * own buffer") reader fills the same 1 MB buffer each time, about 0.15 s for the same file
 * (measured in the pinned Chromium, tests/bench/ingest.ts). Where the stream has no BYOB reader,
 * the default reader is used.
 *
 * `onBytes` must not keep the view it is given past its return (the buffer is filled again):
 * copy what must stay.
 */

/** Bytes a BYOB read asks for at a time. */
export const READ_BUFFER_BYTES = 1 << 20;

/**
 * Reads `blob` to its end, piece by piece, into a buffer of `bufferBytes` (BYOB reads); resolves
 * when every byte was handed on.
 */
export async function readBytes(
  blob: Pick<Blob, 'stream'>,
  onBytes: (bytes: Uint8Array) => void,
  bufferBytes = READ_BUFFER_BYTES,
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
  let buffer = new ArrayBuffer(bufferBytes);
  try {
    for (;;) {
      const { done, value } = await reader.read(new Uint8Array(buffer));
      if (done || value === undefined) return;
      onBytes(value);
      // The read took the buffer over; its view gives it back for the next read.
      buffer = value.buffer;
    }
  } catch (e) {
    void reader.cancel().catch(() => {});
    throw e;
  }
}
