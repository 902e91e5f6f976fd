/**
 * The span of a trace the stage replays, as the person edits it: from `fromMs` after the trace's
 * first request, `lengthMs` long (the run's length, 1 s – 24 h), within the trace. Times for people
 * are clock times in UTC, to the second.
 */
import { MAX_UNTIL_MS } from '../../sim';
import { busiestStart } from '../../trace';

/** A replayed span: ms after the trace's first request, and its length (the run's untilMs). */
export interface Span {
  fromMs: number;
  lengthMs: number;
}

/** The shortest span a person can pick. */
export const MIN_SPAN_MS = 1000;

/** The end of a trace for its spans: a second after its last request (as a replay of it runs). */
export function traceEndMs(lastMs: number): number {
  return lastMs + 1000;
}

/**
 * The span a replay starts with: the whole trace when it fits in a run, else the busiest
 * MAX_UNTIL_MS of it (the most requests; the earliest of equals). `fromMs` null: the whole
 * trace, from its first request.
 */
export function defaultSpan(timeMs: Int32Array): { fromMs: number | null; lengthMs: number } {
  const end = traceEndMs(timeMs[timeMs.length - 1] ?? 0);
  if (end <= MAX_UNTIL_MS) return { fromMs: null, lengthMs: end };
  // Moving a window that ends past the trace earlier only takes in more requests.
  const fromMs = Math.min(busiestStart(timeMs, MAX_UNTIL_MS), end - MAX_UNTIL_MS);
  return { fromMs, lengthMs: MAX_UNTIL_MS };
}

/** How a span is edited: a new start (the end stays), a new end (the start stays), or moved. */
export type SpanEdit = { start: number } | { end: number } | { shift: number };

const clamp = (v: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, v));

/**
 * `span` after `edit`, kept within [0, endMs) and 1 s – `maxMs` long (default 24 h, a run's
 * longest): an edge moved too close to the other pushes it, one moved more than `maxMs` away
 * pulls it. Whole ms.
 */
export function editSpan(
  span: Span,
  edit: SpanEdit,
  endMs: number,
  maxMs: number = MAX_UNTIL_MS,
): Span {
  const min = Math.min(MIN_SPAN_MS, endMs);
  const max = maxMs;
  const from = span.fromMs;
  const to = span.fromMs + span.lengthMs;
  if ('shift' in edit) {
    const length = Math.min(span.lengthMs, endMs);
    return { fromMs: clamp(Math.round(from + edit.shift), 0, endMs - length), lengthMs: length };
  }
  if ('start' in edit) {
    const start = clamp(Math.round(edit.start), 0, endMs - min);
    const end = clamp(to, start + min, Math.min(endMs, start + max));
    return { fromMs: start, lengthMs: end - start };
  }
  const end = clamp(Math.round(edit.end), min, endMs);
  const start = clamp(from, Math.max(0, end - max), end - min);
  return { fromMs: start, lengthMs: end - start };
}

const p2 = (n: number): string => String(n).padStart(2, '0');

/** `2026-05-17T10:05:03`: an epoch time in UTC as a `datetime-local` input's value. */
export function clockValue(epochMs: number): string {
  const d = new Date(Math.floor(epochMs / 1000) * 1000);
  return (
    `${d.getUTCFullYear()}-${p2(d.getUTCMonth() + 1)}-${p2(d.getUTCDate())}` +
    `T${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())}`
  );
}

/** `2026-05-17 10:05:03 UTC`: an epoch time for people. */
export function clockText(epochMs: number): string {
  return `${clockValue(epochMs).replace('T', ' ')} UTC`;
}

/**
 * The epoch ms of a `datetime-local` value read as UTC (`2026-05-17T10:05` or with seconds);
 * null when it is not one.
 */
export function parseClockValue(text: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,3})?)?$/.exec(text);
  if (m === null) return null;
  const [y = 0, mo = 1, d, h, mi, s] = m.slice(1).map((x) => Number(x ?? 0));
  const ms = Date.UTC(y, mo - 1, d, h, mi, s);
  // Date.UTC rolls over (31 February is 3 March): only a real date reads back the same.
  return Number.isFinite(ms) && clockValue(ms).startsWith(text.slice(0, 16)) ? ms : null;
}
