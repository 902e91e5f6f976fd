/**
 * Requests-per-W per key for a W the person picks, off the main thread: a pass
 * over every request, too long for the page with a million of them. Gets copies of the trace's
 * times and key ids (transferred), answers with the worst keys by id; the page names them.
 */
import { windowStatsById } from '../trace';
import type { WindowStatsById, WindowStatsInput } from '../trace';

export interface StatsRequest extends WindowStatsInput {
  windowMs: number;
  top: number;
}

export type StatsReply = { ok: true; stats: WindowStatsById } | { ok: false; message: string };

self.onmessage = (e: MessageEvent<StatsRequest>) => {
  const { windowMs, top, ...input } = e.data;
  let reply: StatsReply;
  try {
    reply = { ok: true, stats: windowStatsById(input, windowMs, top) };
  } catch (err) {
    reply = { ok: false, message: (err as Error).message };
  }
  (self as unknown as Worker).postMessage(reply);
};
