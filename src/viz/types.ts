/**
 * Props of the algorithm views. Every view is a pure function of its props: the same props draw the
 * same SVG (no clocks, no randomness, no store). Times are absolute virtual milliseconds.
 */
import type {
  AlgorithmConfig,
  AlgorithmKind,
  ConfigOf,
  Inspection,
  Outcome,
  StateSize,
} from '../core';

/** One request as the views draw it (what the simulation decided for it). */
export interface VizRequest {
  /** Unique and stable across frames; marks carry it as `data-testid="request-<id>"`. */
  id: number;
  /** When the request reached the limiter and was decided (virtual ms). */
  arrivalMs: number;
  /** The limiter key (client, user or address) it was counted against. */
  key: string;
  outcome: Outcome;
  /** > 0 exactly when outcome is 'delay'. */
  delayMs: number;
  /** When it was passed on to the backend: arrivalMs + delayMs (arrivalMs for 'reject' too). */
  releaseMs: number;
  /** > 0 exactly when outcome is 'reject'; the client sees `Retry-After: ⌈retryAfterMs / 1000⌉`. */
  retryAfterMs: number;
  /** HTTP status the client received: 200, 429, or nginx's `limit_req_status` (default 503). */
  status: number;
  /** 1 for a first try, 2 for the first retry, … */
  attempt: number;
  /**
   * The request's number as every part of the page shows it (inspector, compare table, decision
   * log, CSV): its first attempt's place in arrival order, from 1. Default `id + 1`.
   */
  number?: number;
}

/**
 * What the request-flow strip counts at its `nowMs`, for its `travelMs` and `lingerMs`: requests
 * passed to the backend and rejected in the last travel + linger ms, waiting in the limiter, and on
 * their way in (arriving within `travelMs`). Exact, from the whole run, when the strip is handed only
 * some of the requests (a fast stream).
 */
export interface FlowCounts {
  passed: number;
  waiting: number;
  rejected: number;
  incoming: number;
  /** Ms until the next waiting request leaves the limiter; null when none waits. */
  nextOutInMs: number | null;
}

/** Requests by outcome. */
export interface OutcomeTally {
  admitted: number;
  delayed: number;
  rejected: number;
}

/**
 * Exact counts of the requests of `key` that arrived in [fromMs, toMs) (the views' time), from the
 * whole run; null when they cannot be had cheaply (then a view counts `requests`, and marks what it
 * counted as a lower bound where `requestsFromMs` says the list was cut).
 */
export type RequestCounter = (key: string, fromMs: number, toMs: number) => OutcomeTally | null;

/** Props every view takes. */
export interface CommonViewProps {
  /** The virtual time being drawn (ms). */
  nowMs: number;
  /**
   * Requests near `nowMs`, any order. Pass at least those that arrived in the last two windows (or
   * periods) and, for the request-flow strip, those arriving within `travelMs` after `nowMs` (they are
   * drawn on their way in). Views that show one key draw only the requests of `inspection.key`.
   * A fast stream may be cut to its newest requests: `requestsFromMs` says from when the list is
   * complete, `countRequests` (and the strip's `flowCounts`) give exact counts.
   */
  requests: readonly VizRequest[];
  /** No travel animation: requests are drawn where they are, the same information in static lanes. */
  reducedMotion: boolean;
  /** Drawing width in px (the SVG scales down with its container). Default 480. */
  width?: number;
  /**
   * Virtual ms a request takes to travel one leg (client → limiter → backend, or back when rejected).
   * Views draw requests that moved within about this long. Default 400.
   */
  travelMs?: number;
  /**
   * `requests` holds every request from this time on (older ones may be missing: the list was cut).
   * Views that count past windows from `requests` show a window that starts earlier as a lower
   * bound (≥). Default: complete.
   */
  requestsFromMs?: number;
  /** Exact counts where `requests` was cut (see `RequestCounter`). Default: none. */
  countRequests?: RequestCounter;
  /** Called with a request's id when its mark is clicked or activated with Enter / Space. */
  onSelectRequest?: (id: number) => void;
}

/** Props of the view for one algorithm kind. */
export interface AlgorithmViewProps<K extends AlgorithmKind> extends CommonViewProps {
  config: ConfigOf<K>;
  /** `limiter.inspect(nowMs, key)` of a limiter made from `config`. */
  inspection: Extract<Inspection, { kind: K }>;
  /** `limiter.stateSize(nowMs, key)`, shown as memory where the view has room (sliding log). */
  stateSize?: StateSize;
}

/** Props of `<LimiterView>`, which picks the view for `config.kind`. */
export interface LimiterViewProps extends CommonViewProps {
  config: AlgorithmConfig;
  /** Must be of the same kind as `config`; a mismatch draws a notice instead of a view. */
  inspection: Inspection;
  stateSize?: StateSize;
  /** Draw the request-flow strip under the algorithm view. Default true. */
  showFlow?: boolean;
  /** The clock is playing: the request-flow strip draws its moving marks as a few paths. Default false. */
  animating?: boolean;
  /**
   * The request-flow strip's counts, when `requests` may not hold every request it counts (see
   * `FlowCounts`). Default: counted from `requests`.
   */
  flowCounts?: FlowCounts;
}
