/**
 * Messages between the page and the simulation worker (sim.worker.ts). Every request carries a
 * generation number; the worker answers with it, and the page keeps only the newest generation's
 * answer (CONVENTIONS.md, "Work off the main thread by message").
 */
import type {
  PortableCheckpoints,
  Scenario,
  ScenarioIssue,
  SimLimiter,
  SimResult,
  SimTrace,
} from '../sim';

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
}

export type SimAnswer =
  | { type: 'progress'; gen: number; fraction: number }
  | {
      type: 'result';
      gen: number;
      outcome:
        | { ok: true; result: SimResult; checkpoints: PortableCheckpoints }
        | { ok: false; issues: readonly ScenarioIssue[] };
      /** Worker time spent simulating, ms (for the bench and the hint). */
      tookMs: number;
    };
