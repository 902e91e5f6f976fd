/**
 * Marks a phase of reading a log (`performance.mark`, user timing) so a Chrome trace of the page
 * shows when each thread reached it (tests/bench/ingestProfile.ts prints them). The mark is
 * cleared at once: the trace has it, and a worker that reads hundreds of ranges keeps no list of
 * them. Reads no clock the code uses; nothing depends on it.
 */
export function markPhase(name: string): void {
  if (typeof performance === 'undefined' || typeof performance.mark !== 'function') return;
  performance.mark(name);
  performance.clearMarks(name);
}
