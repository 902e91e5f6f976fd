/**
 * Whether a file is to be read as Parquet: its first bytes are Parquet's magic `PAR1`, or its
 * name ends in `.parquet` (so a file so named that is not Parquet is told so, not read as text).
 * Kept apart from the reader (parquet.ts), which is loaded only when a file needs it.
 */

/** `PAR1`, which a Parquet file starts and ends with (parquet-format README, "File format"). */
export const PARQUET_MAGIC = [0x50, 0x41, 0x52, 0x31] as const;

/** Whether `head` (a file's first bytes) starts with `PAR1`. */
export function startsWithParquetMagic(head: Uint8Array): boolean {
  return PARQUET_MAGIC.every((b, i) => head[i] === b);
}

/** Whether a file named `name` starting with `head` goes to the Parquet reader. */
export function isParquetFile(name: string, head: Uint8Array): boolean {
  return startsWithParquetMagic(head) || /\.parquet$/i.test(name.trim());
}
