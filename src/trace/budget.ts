/**
 * The page's memory budget for a trace. A log whose requests fit it is held as compact columns
 * (16 bytes a request) and everything — stage, dry run, sweep — reads those; a larger log is not
 * held: its statistics and its dry run are passes over the file that hold per-key state only
 * (src/trace/stream.ts), and its sweep decides the cells over a compact copy of its requests made
 * in one read (src/store/stream.worker.ts), so any size can be read.
 */
import { BYTES_PER_REQUEST, MAX_FILE_BYTES, MAX_TRACE_REQUESTS } from './types';

/** Requests held as columns at most (the simulator's bound as well). */
export const BUDGET_REQUESTS = MAX_TRACE_REQUESTS;
/** Bytes of columns the page holds at most: 16 bytes × BUDGET_REQUESTS (80 MB). */
export const BUDGET_COLUMN_BYTES = BUDGET_REQUESTS * BYTES_PER_REQUEST;

/**
 * Whether a file is read as a streaming pass from the start: it is over MAX_FILE_BYTES, which
 * at the ~200 bytes of a short access-log line is already more requests than the budget. A
 * smaller file that turns out to hold more requests than the budget switches to a pass when the
 * held read reaches the cap (`overBudget`).
 */
export function streamsFromStart(bytes: number): boolean {
  return bytes > MAX_FILE_BYTES;
}

/** Whether a failed held read failed only because the log holds more requests than the budget. */
export function overBudget(message: string): boolean {
  return message.startsWith('Too many requests:');
}

/** The budget in words, for the page and the README. */
export function budgetInWords(): string {
  const mb = Math.round(BUDGET_COLUMN_BYTES / 1_000_000);
  const m = BUDGET_REQUESTS / 1_000_000;
  return (
    `Up to ${m} million requests (${mb} MB of columns, 16 bytes each) are held and replayed on the stage; ` +
    'a larger log is read as a stream: its statistics and dry run are passes over the file that hold only per-key state, ' +
    'and its sweep reads the file once into a compact copy in the browser’s storage and decides the cells over that copy, ' +
    'a worker per core (where no copy can be kept, in passes over the file).'
  );
}
