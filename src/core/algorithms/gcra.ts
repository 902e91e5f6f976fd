import { ceilDiv, floorDiv } from '../int';
import type { GcraInspection } from '../inspect';
import { KeyedLimiter, fixedSize } from '../keyed';
import type { Decision, GcraConfig, StateSize } from '../types';

/** Every state of this algorithm takes the same size (see fixedSize). */
const SIZE = fixedSize(1, 16);

/**
 * The theoretical arrival time, tat = ms + frac / count (0 ≤ frac < count): times are kept in units
 * of 1/count ms so that T = period / count is a whole number of units, without ever multiplying an
 * absolute time by count (which could leave 2^53).
 */
interface State {
  ms: number;
  frac: number;
}

/**
 * GCRA as redis-cell (`CL.THROTTLE key max_burst count period`, brandur/redis-cell src/cell/mod.rs):
 * T = period / count, τ = T·(burst + 1); new = max(tat, now) + T; admit iff now ≥ new − τ, then
 * tat = new. limit = burst + 1; remaining = ⌊(τ − (tat − now)) / T⌋.
 */
export class GcraLimiter extends KeyedLimiter<GcraConfig, State> {
  override readonly keySizeMax = SIZE;
  /** T in units of 1/count ms. */
  private readonly tUnits = this.config.periodMs;
  /** τ in units of 1/count ms. */
  private readonly tauUnits = this.config.periodMs * (this.config.burst + 1);
  /** T = tWhole + tFrac / count. */
  private readonly tWhole = Math.floor(this.config.periodMs / this.config.count);
  private readonly tFrac = this.config.periodMs % this.config.count;
  /** ⌈τ⌉ in ms: a tat further ahead than this can never admit. */
  private readonly tauCeilMs = ceilDiv(this.tauUnits, this.config.count);

  /** (tat − now) in units, exact when 0 ≤ tat.ms − now ≤ tauCeilMs + 2. */
  private aheadUnits(ms: number, frac: number, nowMs: number): number {
    return (ms - nowMs) * this.config.count + frac;
  }

  protected decideAt(nowMs: number, key: string, k: number): Decision {
    const { count, burst } = this.config;
    const limit = burst + 1;
    const s = this.find(key, k);
    // base = max(tat, now)
    let ms = nowMs;
    let frac = 0;
    if (s !== undefined && (s.ms > nowMs || (s.ms === nowMs && s.frac > 0))) {
      ms = s.ms;
      frac = s.frac;
    }
    // new = base + T
    frac += this.tFrac;
    ms += this.tWhole;
    if (frac >= count) {
      frac -= count;
      ms += 1;
    }
    if (ms - nowMs <= this.tauCeilMs + 1) {
      const ahead = this.aheadUnits(ms, frac, nowMs);
      if (ahead <= this.tauUnits) {
        if (s === undefined) this.put(key, k, { ms, frac });
        else {
          s.ms = ms;
          s.frac = frac;
        }
        const remaining = floorDiv(this.tauUnits - ahead, this.tUnits);
        return this.result('admit', 0, 0, remaining, limit, ceilDiv(ahead, count));
      }
    }
    // Rejected: retry when now' ≥ new − τ, i.e. after ⌈(new − now) − τ⌉ ms, computed without
    // multiplying the (possibly huge) whole-ms gap by count.
    const retryAfterMs = ms - nowMs + ceilDiv(frac - this.tauUnits, count);
    const tat = s as State; // a fresh key always admits (T ≤ τ)
    const resetMs = tat.ms - nowMs + ceilDiv(tat.frac, count);
    return this.result('reject', 0, retryAfterMs, 0, limit, resetMs);
  }

  protected inspectAt(nowMs: number, key: string, s: State | undefined): GcraInspection {
    const { count, periodMs, burst } = this.config;
    const tat = s === undefined ? nowMs : s.ms + s.frac / count;
    const T = periodMs / count;
    const tau = T * (burst + 1);
    return {
      kind: 'gcra',
      key,
      nowMs,
      effectiveNowMs: nowMs,
      seen: s !== undefined,
      limit: burst + 1,
      tatMs: tat,
      emissionIntervalMs: T,
      toleranceMs: tau,
      allowAtMs: this.allowAtMs(s, nowMs),
    };
  }

  /**
   * max(tat, now) + T − τ = base − T·burst, rounded once: the whole ms of the base plus
   * (frac − period·burst) / count. Summing the float T and τ instead could land a hair after an
   * exact whole-ms answer (1000.0000000000002 for count 3, period 1000, burst 3), telling a drawing
   * the request at 1000 is refused when it is admitted.
   */
  private allowAtMs(s: State | undefined, nowMs: number): number {
    const ahead = s !== undefined && (s.ms > nowMs || (s.ms === nowMs && s.frac > 0));
    const baseMs = ahead ? s.ms : nowMs;
    const baseFrac = ahead ? s.frac : 0;
    return baseMs + (baseFrac - this.config.periodMs * this.config.burst) / this.config.count;
  }

  protected copyState(s: State): State {
    return { ms: s.ms, frac: s.frac };
  }

  protected isIdle(s: State, nowMs: number): boolean {
    return s.ms < nowMs || (s.ms === nowMs && s.frac === 0);
  }

  protected sizeOf(): StateSize {
    return SIZE;
  }

  protected empty(): GcraLimiter {
    return new GcraLimiter(this.config, this.originMs);
  }
}
