/**
 * Types of the decompressors taken one file at a time from hyparquet-compressors 1.1.2 (its index
 * would also pull in a WebAssembly snappy the page does not need: hyparquet reads snappy itself).
 * Each takes a compressed page and its decompressed length (bytes) and returns the page.
 */
declare module 'hyparquet-compressors/src/brotli.js' {
  export function decompressBrotli(input: Uint8Array, outputLength: number): Uint8Array;
}
declare module 'hyparquet-compressors/src/lz4.js' {
  export function decompressLz4(input: Uint8Array, outputLength: number): Uint8Array;
  export function decompressLz4Raw(input: Uint8Array, outputLength: number): Uint8Array;
}
