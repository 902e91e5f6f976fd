/**
 * What every export and import returns. The Export panel shows `text` with its `language`, the
 * version it `assumes`, and every way the real system departs from the playground (`differences`).
 */
import type { AlgorithmConfig } from '../core';

/** The systems a limiter can be exported to. */
export type ExportTarget = 'nginx' | 'envoy' | 'redis' | 'go' | 'haproxy';

/** The syntax of `text`, for highlighting. */
export type ExportLanguage = 'nginx' | 'yaml' | 'lua' | 'go' | 'haproxy';

/** A successful export. */
export interface ExportResult {
  ok: true;
  target: ExportTarget;
  language: ExportLanguage;
  /** The config or code to paste. */
  text: string;
  /** The target version this text assumes, e.g. "nginx ≥ 1.15.7 (delay=); checked with nginx 1.22.1". */
  assumes: string;
  /** Ways the real system decides differently from the playground with this config (may be empty). */
  differences: string[];
  /** Faithful but surprising behaviour worth knowing (the playground shows it too). */
  notes: string[];
}

/** The target cannot express this limiter at all; `reason` says why and what comes closest. */
export interface ExportUnsupported {
  ok: false;
  target: ExportTarget;
  kind: AlgorithmConfig['kind'];
  reason: string;
}

export type ExportOutcome = ExportResult | ExportUnsupported;

/** One problem in pasted text. Lines and columns are 1-based. */
export interface ImportError {
  line: number;
  column: number;
  /** What was wrong and what was expected, e.g. `expected rate=<n>r/s or r/m, got "10r/h"`. */
  message: string;
}

/** A successful import: the limiter, plus whatever else the snippet said that the export can take back. */
export interface ImportSuccess<Extras> {
  ok: true;
  config: AlgorithmConfig;
  /** Settings outside the limiter config (zone key, names), to export the same snippet back. */
  extras: Extras;
  /** Things that parsed but will not behave as the playground shows (e.g. the filter left in shadow mode). */
  warnings: ImportError[];
  /**
   * Every limiter the snippet holds, in text order, when it holds more than one (several nginx
   * `limit_req` lines): the first is `config` / `extras`. Absent for one limiter.
   */
  lanes?: ReadonlyArray<{ config: AlgorithmConfig; extras: Extras }>;
}

export interface ImportFailure {
  ok: false;
  /** At least one error, in text order. */
  errors: ImportError[];
}

export type ImportResult<Extras> = ImportSuccess<Extras> | ImportFailure;

/** "2:31 expected …", as compilers print positions. */
export function formatImportError(error: ImportError): string {
  return `${error.line}:${error.column} ${error.message}`;
}
