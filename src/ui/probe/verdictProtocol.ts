/** Messages between the page and the verdict worker (verdict.worker.ts). */
import type { Plan, ProbeResult, Verdict } from '../../probe';

/** A result file's text to read and judge. */
export interface VerdictRequest {
  id: number;
  text: string;
  /** The file's name, for messages. */
  name: string;
}

export type VerdictReply =
  | { id: number; ok: true; plan: Plan; result: ProbeResult; verdict: Verdict; ms: number }
  | { id: number; ok: false; message: string };
