/**
 * The range workers of a stream worker (stream.worker.ts): kept for that worker's life, so every
 * read it makes parses in the same workers.
 */
import { TraceError, columnBuffers, partColumns } from '../trace';
import type { PartColumns, RangeReader, TracePart } from '../trace';
import type { RangeReply, RangeRequest } from './traceProtocol';

/**
 * Range workers kept for this worker's life: each reads one range at a time and then the next, so
 * a read of thousands of segments starts `size` workers, not one per segment, and each parses with
 * the code its last range made hot; the next read (of any file) uses the same workers. A worker
 * that failed is let go; the next range gets a new one.
 */
export class RangePool {
  private readonly idle: Worker[] = [];
  private readonly all = new Set<Worker>();
  private readonly waiting: ((w: Worker) => void)[] = [];
  /**
   * Columns of parts merged already, given back to be filled by the next ranges (at most one per
   * range in flight): the parts' arrays go round between this worker and the range workers instead
   * of each range making new ones and this worker holding the old ones until a collection.
   */
  private readonly spare: PartColumns[] = [];

  constructor(
    private readonly size: number,
    private readonly make: () => Worker = () =>
      new Worker(new URL('./traceRange.worker.ts', import.meta.url), { type: 'module' }),
  ) {}

  /** Workers the pool has made and not let go (busy or idle). */
  get workers(): number {
    return this.all.size;
  }

  private take(): Promise<Worker> {
    const w = this.idle.pop();
    if (w !== undefined) return Promise.resolve(w);
    if (this.all.size < this.size) {
      const made = this.make();
      this.all.add(made);
      return Promise.resolve(made);
    }
    return new Promise((r) => this.waiting.push(r));
  }

  private give(w: Worker): void {
    const next = this.waiting.shift();
    if (next !== undefined) next(w);
    else this.idle.push(w);
  }

  private drop(w: Worker): void {
    w.terminate();
    this.all.delete(w);
    // A range waiting for a worker gets a new one.
    const next = this.waiting.shift();
    if (next !== undefined) void this.take().then(next);
  }

  /** A reader of `file`: bytes [start, end) as one part in one of the pool's workers. */
  reader =
    (file: File): RangeReader =>
    async (start, end, options) => {
      const w = await this.take();
      return new Promise<TracePart>((resolve, reject) => {
        w.onmessage = (e: MessageEvent<RangeReply>) => {
          const msg = e.data;
          // No chunks come: this reader never asks for them (the part holds every request); nor
          // statistics, which it never asks for either.
          if (msg.type === 'progress' || msg.type === 'chunk' || msg.type === 'stats') return;
          if (msg.type === 'part') {
            this.give(w);
            resolve(msg.part);
          } else {
            this.drop(w);
            reject(new TraceError(msg.message));
          }
        };
        w.onerror = (e) => {
          this.drop(w);
          reject(new Error(e.message));
        };
        const columns = this.spare.pop() ?? null;
        const r: RangeRequest = { file, start, end, options, columns };
        w.postMessage(r, columnBuffers(columns));
      });
    };

  /** Takes a merged part's columns back for a later range (streamRead's `recycle`). */
  readonly recycle = (part: TracePart): void => {
    const columns = partColumns(part);
    if (columns !== null && this.spare.length <= this.size) this.spare.push(columns);
  };

  /**
   * Ends a read: the spare columns are let go (an idle pool holds no parts' arrays). A read that
   * stopped early (a range failed) may leave ranges running: their workers are ended, the idle
   * ones kept for the next read.
   */
  release(): void {
    this.spare.length = 0;
    this.waiting.length = 0;
    const idle = new Set(this.idle);
    for (const w of this.idle) {
      w.onmessage = null;
      w.onerror = null;
    }
    for (const w of this.all) {
      if (idle.has(w)) continue;
      w.terminate();
      this.all.delete(w);
    }
  }
}
