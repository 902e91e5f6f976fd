/**
 * The one worker a loading store runs at a time, and the generation that tells a current reply
 * from a stale one: `start` terminates the running worker and makes the next (the newest wins).
 */
export class WorkerSlot {
  private worker: Worker | null = null;
  /** Bumped by every start and cancel: a reply of an older generation is dropped. */
  gen = 0;

  constructor(private readonly make: () => Worker) {}

  /** Stops the running worker, makes a new one and returns it with its generation. */
  start(): { worker: Worker; gen: number } {
    this.stop();
    this.gen += 1;
    this.worker = this.make();
    return { worker: this.worker, gen: this.gen };
  }

  /** Whether `gen` is still the current generation. */
  current(gen: number): boolean {
    return gen === this.gen;
  }

  /** Terminates the running worker, if any (the generation stays). */
  stop(): void {
    this.worker?.terminate();
    this.worker = null;
  }

  /** Stops the worker and makes every reply in flight stale. */
  cancel(): void {
    this.stop();
    this.gen += 1;
  }

  /** Takes the worker out of the slot without terminating it (the caller now owns it). */
  take(): Worker | null {
    const w = this.worker;
    this.worker = null;
    return w;
  }
}
