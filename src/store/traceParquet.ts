/**
 * A Parquet file read in the parsing worker (trace.worker.ts): the reader (src/trace/parquet.ts,
 * with hyparquet and its codecs) is loaded only when a file needs it, so neither the page nor the
 * worker's first load grows. The File is read in slices (a row group's column chunks at a time).
 */
import type { BuiltTrace, ParseOptions } from '../trace';
import type { ParquetProgress } from '../trace/parquet';

/** Reads `file` as Parquet; `onProgress` after each row group. */
export async function readParquetFile(
  file: File,
  opts: ParseOptions,
  onProgress: (p: ParquetProgress) => void,
): Promise<BuiltTrace> {
  const { readParquetTrace } = await import('../trace/parquet');
  return readParquetTrace(
    { byteLength: file.size, slice: (start, end) => file.slice(start, end).arrayBuffer() },
    opts,
    onProgress,
  );
}
