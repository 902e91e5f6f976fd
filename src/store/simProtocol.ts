/**
 * Messages between the page and the simulation worker (sim.worker.ts). Every request carries a
 * generation number; the worker answers with it, and the page keeps only the newest generation's
 * answer (CONVENTIONS.md, "Work off the main thread by message").
 */
import type { Scenario, ScenarioIssue, SimLimiter, SimTrace } from '../sim';
import type { HeldKeys, WirePiece, WireResult } from './simWire';

export interface SimRequest {
  gen: number;
  limiters: SimLimiter[];
  scenario: Scenario;
  untilMs: number;
  /**
   * The replayable traces, sent only when they differ from the last ones sent (the worker keeps
   * them): a million-request trace is copied once, not on every edit.
   */
  traces?: readonly SimTrace[];
  /** Only fill the worker's cache (arrivals, lane runs) for edits to come: no answer is sent. */
  warm?: boolean;
  /** The content keys of the pieces the page holds: those are not sent again (simWire.ts). */
  held?: HeldKeys;
  /**
   * Column buffers of results the page no longer holds (transferred): the worker makes new
   * columns in them (SimRunner's recycling, sim.worker.ts).
   */
  spent?: ArrayBuffer[];
}

export type SimAnswer =
  | { type: 'progress'; gen: number; fraction: number }
  /** A piece of the result to come (its typed arrays transferred), each in a message of its own. */
  | { type: 'piece'; gen: number; piece: WirePiece }
  | {
      type: 'result';
      gen: number;
      /** When ok, the result's shell and the keys of its pieces (sent before it, or held). */
      outcome: ({ ok: true } & WireResult) | { ok: false; issues: readonly ScenarioIssue[] };
      /** Worker time spent simulating, ms (for the bench and the hint). */
      tookMs: number;
    };
