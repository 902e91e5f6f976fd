/**
 * Column buffers the page has finished with, kept by size for the simulation worker's next runs
 * (on the bench machine the first writes to 13 MB of fresh memory, a 1,000,000-row lane's
 * columns, cost ~45 ms of page faults per edit; the same buffers written again, under 1 ms).
 * SimRunner sends back the buffers no view on the page can read any more; the worker installs
 * `take` as the lanes' column memory (installColumnMemory). A buffer taken is zeroed first, so a
 * run's columns are what fresh memory would give. Pure TypeScript (no DOM).
 *
 * The page's views are collected only by its garbage collector, several edits after they were
 * shown: until then every edit found the pool empty. So the pool also stocks itself while the
 * worker is idle (`planStock`, `stockStep`): fresh buffers of the sizes the last run asked for,
 * written once (faulted in) in slices, so the next run of that size takes mapped memory.
 */
export class ColumnPool {
  private readonly bySize = new Map<number, ArrayBuffer[]>();
  /** Buffers known to be all zero (stocked, never handed out): `take` need not clear them. */
  private readonly clean = new WeakSet<ArrayBuffer>();
  private bytes = 0;
  /** The sizes `take` was asked for since `beginRun` (what one run of that lane needs). */
  private asked: number[] = [];
  /** Sizes still to stock, and the buffer being written (with the bytes written so far). */
  private toStock: number[] = [];
  private stocking: { buffer: ArrayBuffer; written: number } | null = null;

  /** At most `maxBytes` are kept; buffers past that (and detached ones) are dropped. */
  constructor(private readonly maxBytes: number) {}

  /** Bytes held. */
  get held(): number {
    return this.bytes;
  }

  keep(buffers: readonly ArrayBuffer[]): void {
    for (const b of buffers) this.keepOne(b);
  }

  private keepOne(b: ArrayBuffer): boolean {
    if (b.byteLength === 0 || this.bytes + b.byteLength > this.maxBytes) return false;
    let list = this.bySize.get(b.byteLength);
    if (list === undefined) {
      list = [];
      this.bySize.set(b.byteLength, list);
    }
    list.push(b);
    this.bytes += b.byteLength;
    return true;
  }

  /** A kept buffer of exactly `bytes` bytes, all zero, or null. */
  readonly take = (bytes: number): ArrayBuffer | null => {
    this.asked.push(bytes);
    const buffer = this.bySize.get(bytes)?.pop();
    if (buffer === undefined) return null;
    this.bytes -= bytes;
    if (this.clean.has(buffer)) this.clean.delete(buffer);
    else new Uint8Array(buffer).fill(0);
    return buffer;
  };

  /** A run starts: the sizes it asks for are what `planStock` stocks after it. */
  beginRun(): void {
    this.asked = [];
  }

  /**
   * After a run: stock `sets` buffers of each size it asked for, less those the pool holds
   * (sizes asked twice, twice as many), if those come to at most `maxBytes` and fit under the
   * pool's limit; else as many sets as do (maybe none). Replaces any plan not carried out yet.
   * Returns the bytes to stock.
   */
  planStock(maxBytes: number, sets: number): number {
    this.parkStocking();
    for (let k = sets; k > 0; k -= 1) {
      const have = new Map<number, number>();
      for (const [size, list] of this.bySize) have.set(size, list.length);
      const sizes: number[] = [];
      let total = 0;
      for (let i = 0; i < k; i += 1) {
        for (const size of this.asked) {
          const n = have.get(size) ?? 0;
          if (n > 0) have.set(size, n - 1);
          else {
            sizes.push(size);
            total += size;
          }
        }
      }
      if (total <= maxBytes && this.bytes + total <= this.maxBytes) {
        this.toStock = sizes;
        return total;
      }
    }
    this.toStock = [];
    return 0;
  }

  /**
   * Writes up to `sliceBytes` of the stock planned (a fresh buffer's pages are mapped on first
   * write); a buffer written whole joins the pool. True while some is left to write.
   */
  stockStep(sliceBytes: number): boolean {
    let budget = sliceBytes;
    while (budget > 0) {
      if (this.stocking === null) {
        const size = this.toStock.pop();
        if (size === undefined) return false;
        this.stocking = { buffer: new ArrayBuffer(size), written: 0 };
      }
      const s = this.stocking;
      const n = Math.min(budget, s.buffer.byteLength - s.written);
      new Uint8Array(s.buffer, s.written, n).fill(0);
      s.written += n;
      budget -= n;
      if (s.written === s.buffer.byteLength) this.parkStocking();
    }
    return this.stocking !== null || this.toStock.length > 0;
  }

  /** The buffer being stocked joins the pool as it is (fresh memory is zeros, written or not). */
  private parkStocking(): void {
    const s = this.stocking;
    this.stocking = null;
    if (s !== null && this.keepOne(s.buffer)) this.clean.add(s.buffer);
  }
}
