/**
 * The dry run's groups, computed a slice at a time so a worker can stream them to the page: counts
 * of each change overall, by key and by time (equal slices of the trace's span), and the first few
 * changes in time order. The change of each request is the one `dryRun` (src/trace/dryrun.ts)
 * finds; tests/trace/dryrun-groups.test.ts checks both agree.
 */
import { recordedRejection } from './dryrun';
import type { Baseline, Flip } from './dryrun';
import { DELAY, REJECT } from './replay';

export interface KeyGroup {
  keyId: number;
  toRejected: number;
  toAllowed: number;
  toDelayed: number;
}

export interface TimeGroup {
  /**
   * Slice start and end, ms since the first request ([start, end)). With `GroupInput.zeroEpochMs`
   * the slices sit on the clock (a 1 h slice from 14:00 to 15:00 UTC), so the first may start
   * before the first request.
   */
  startMs: number;
  endMs: number;
  toRejected: number;
  toAllowed: number;
  toDelayed: number;
}

export interface DryRunGroups {
  /** Requests grouped so far, of `total`. */
  done: number;
  total: number;
  toRejected: number;
  toAllowed: number;
  toDelayed: number;
  /** Keys with the most changes so far (most first, then by name or id), at most `topKeys`. */
  byKey: KeyGroup[];
  /** Keys with at least one change so far (`byKey` lists the first `topKeys` of them). */
  keysChanged: number;
  /** Every time slice (empty ones too). */
  byTime: TimeGroup[];
  /** The first changes in time order, at most `firstChanges`. */
  first: { index: number; flip: Flip; delayMs: number }[];
}

export interface GroupInput {
  timeMs: Int32Array;
  keyId: Uint32Array;
  keyCount: number;
  status: Uint16Array;
  /** Key names: ties in `byKey` then go in the names' order, as dryRun lists them (else by id). */
  keys?: readonly string[];
  /** The epoch ms a `timeMs` of 0 stands for: slices then start on round clock times (UTC). */
  zeroEpochMs?: number;
}

/** Slice lengths people read at a glance: 1, 2, 5 … ms; 1, 2, 5, 10, 15, 30 s and min; 1 – 12 h; days. */
const STEPS_MS: readonly number[] = [
  1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 15_000, 30_000, 60_000, 120_000,
  300_000, 600_000, 900_000, 1_800_000, 3_600_000, 7_200_000, 10_800_000, 21_600_000, 43_200_000,
  86_400_000,
];

/** The smallest round slice length ≥ `ms`: a step of STEPS_MS, or a whole number of days. */
export function niceSliceMs(ms: number): number {
  for (const s of STEPS_MS) if (s >= ms) return s;
  return Math.ceil(ms / 86_400_000) * 86_400_000;
}

const FLIP_REJECTED = 1;
const FLIP_ALLOWED = 2;
const FLIP_DELAYED = 3;
const FLIPS: readonly Flip[] = [
  'allowed→rejected',
  'allowed→rejected',
  'rejected→allowed',
  'allowed→delayed',
];

/** The change of one request (0 none), as `dryRun` decides it. */
export function flipOf(status: number, outcome: number, baseline: Baseline): number {
  const wasRejected = baseline === 'recorded' && recordedRejection(status);
  if (!wasRejected && outcome === REJECT) return FLIP_REJECTED;
  if (wasRejected && outcome !== REJECT) return FLIP_ALLOWED;
  if (!wasRejected && outcome === DELAY) return FLIP_DELAYED;
  return 0;
}

export class DryRunGrouper {
  private next = 0;
  private readonly perKey: Uint32Array;
  private readonly perSlice: Uint32Array;
  private readonly sliceMs: number;
  /** Where the first request sits in its slice (ms): slices start on round clock times. */
  private readonly offsetMs: number;
  private readonly sliceCount: number;
  private readonly counts = [0, 0, 0, 0];
  private readonly first: DryRunGroups['first'] = [];

  constructor(
    private readonly input: GroupInput,
    private readonly outcome: Uint8Array,
    private readonly delayMs: ArrayLike<number>,
    private readonly baseline: Baseline,
    slices = 20,
    private readonly topKeys = 10,
    private readonly firstChanges = 50,
  ) {
    this.perKey = new Uint32Array(input.keyCount * 4);
    const n = input.timeMs.length;
    const t0 = n === 0 ? 0 : (input.timeMs[0] as number);
    const span = n === 0 ? 0 : (input.timeMs[n - 1] as number) - t0;
    this.sliceMs = niceSliceMs(Math.max(1, Math.ceil((span + 1) / slices)));
    const z = input.zeroEpochMs;
    this.offsetMs = z === undefined ? 0 : (((z + t0) % this.sliceMs) + this.sliceMs) % this.sliceMs;
    this.sliceCount = Math.floor((span + this.offsetMs) / this.sliceMs) + 1;
    this.perSlice = new Uint32Array(this.sliceCount * 4);
  }

  /** Groups up to `count` more requests; true while some are left. */
  step(count: number): boolean {
    const { timeMs, keyId, status } = this.input;
    const n = timeMs.length;
    const t0 = n === 0 ? 0 : (timeMs[0] as number);
    const end = Math.min(n, this.next + count);
    for (let i = this.next; i < end; i += 1) {
      const f = flipOf(status[i] as number, this.outcome[i] as number, this.baseline);
      if (f === 0) continue;
      this.counts[f] = (this.counts[f] as number) + 1;
      const k = (keyId[i] as number) * 4 + f;
      this.perKey[k] = (this.perKey[k] as number) + 1;
      const s = Math.floor(((timeMs[i] as number) - t0 + this.offsetMs) / this.sliceMs) * 4 + f;
      this.perSlice[s] = (this.perSlice[s] as number) + 1;
      if (this.first.length < this.firstChanges) {
        this.first.push({
          index: i,
          flip: FLIPS[f] as Flip,
          // A delayed request's wait, whichever change it is (as dryRun reports it).
          delayMs: this.outcome[i] === DELAY ? (this.delayMs[i] as number) : 0,
        });
      }
    }
    this.next = end;
    return end < n;
  }

  snapshot(): DryRunGroups {
    const { keyCount, timeMs } = this.input;
    const pk = this.perKey;
    const total = (k: number) =>
      (pk[k * 4 + FLIP_REJECTED] as number) +
      (pk[k * 4 + FLIP_ALLOWED] as number) +
      (pk[k * 4 + FLIP_DELAYED] as number);
    // The top keys: one pass keeping a short sorted list.
    const names = this.input.keys;
    /** True when key a goes before key b: more changes, then the lower name (or id). */
    const before = (a: number, b: number): boolean => {
      const d = total(a) - total(b);
      if (d !== 0) return d > 0;
      return names === undefined ? a < b : (names[a] as string) < (names[b] as string);
    };
    const top: number[] = [];
    let keysChanged = 0;
    for (let k = 0; k < keyCount; k += 1) {
      const v = total(k);
      if (v === 0) continue;
      keysChanged += 1;
      if (top.length === this.topKeys && !before(k, top[top.length - 1] as number)) continue;
      let j = top.length;
      while (j > 0 && before(k, top[j - 1] as number)) j -= 1;
      top.splice(j, 0, k);
      if (top.length > this.topKeys) top.pop();
    }
    const byTime: TimeGroup[] = [];
    for (let s = 0; s < this.sliceCount; s += 1) {
      byTime.push({
        startMs: s * this.sliceMs - this.offsetMs,
        endMs: (s + 1) * this.sliceMs - this.offsetMs,
        toRejected: this.perSlice[s * 4 + FLIP_REJECTED] as number,
        toAllowed: this.perSlice[s * 4 + FLIP_ALLOWED] as number,
        toDelayed: this.perSlice[s * 4 + FLIP_DELAYED] as number,
      });
    }
    return {
      done: this.next,
      total: timeMs.length,
      toRejected: this.counts[FLIP_REJECTED] as number,
      toAllowed: this.counts[FLIP_ALLOWED] as number,
      toDelayed: this.counts[FLIP_DELAYED] as number,
      byKey: top.map((k) => ({
        keyId: k,
        toRejected: pk[k * 4 + FLIP_REJECTED] as number,
        toAllowed: pk[k * 4 + FLIP_ALLOWED] as number,
        toDelayed: pk[k * 4 + FLIP_DELAYED] as number,
      })),
      keysChanged,
      byTime,
      first: this.first.slice(),
    };
  }
}
