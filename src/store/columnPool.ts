/**
 * Column buffers the page has finished with, kept by size for the simulation worker's next runs
 * (issue 11: on the bench machine the first writes to 13 MB of fresh memory, a 1,000,000-row lane's
 * columns, cost ~45 ms of page faults per edit; the same buffers written again, under 1 ms).
 * SimRunner sends back the buffers no view on the page can read any more; the worker installs
 * `take` as the lanes' column memory (installColumnMemory). A buffer taken is zeroed first, so a
 * run's columns are what fresh memory would give. Pure TypeScript (no DOM).
 */
export class ColumnPool {
  private readonly bySize = new Map<number, ArrayBuffer[]>();
  private bytes = 0;

  /** At most `maxBytes` are kept; buffers past that (and detached ones) are dropped. */
  constructor(private readonly maxBytes: number) {}

  /** Bytes held. */
  get held(): number {
    return this.bytes;
  }

  keep(buffers: readonly ArrayBuffer[]): void {
    for (const b of buffers) {
      if (b.byteLength === 0 || this.bytes + b.byteLength > this.maxBytes) continue;
      let list = this.bySize.get(b.byteLength);
      if (list === undefined) {
        list = [];
        this.bySize.set(b.byteLength, list);
      }
      list.push(b);
      this.bytes += b.byteLength;
    }
  }

  /** A kept buffer of exactly `bytes` bytes, all zero, or null. */
  readonly take = (bytes: number): ArrayBuffer | null => {
    const buffer = this.bySize.get(bytes)?.pop();
    if (buffer === undefined) return null;
    this.bytes -= bytes;
    new Uint8Array(buffer).fill(0);
    return buffer;
  };
}
