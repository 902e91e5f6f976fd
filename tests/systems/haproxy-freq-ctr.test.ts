/**
 * HAProxy's request-rate counter at its period boundaries, on a fake clock. haproxy's clock cannot
 * be hit to the millisecond over the network (tests/export/haproxy.server.test.ts times requests
 * well inside or outside a period instead), so this proof compares the core's entry-anchored
 * sliding-window counter with a reference written here from HAProxy v2.6.0's own source
 * (github.com/haproxy/haproxy tag v2.6.0), requests exactly one and two periods after the entry's
 * tick and 1 ms either side, odd and even periods:
 * - include/haproxy/freq_ctr.h update_freq_ctr_period and src/freq_ctr.c
 *   update_freq_ctr_period_slow: if (uint) (now − curr_tick) < period, curr += 1; else rotate:
 *   prev ← curr, curr ← 1, curr_tick += period, and if now − curr_tick ≥ period still,
 *   prev ← 0, curr_tick ← now; the stored tick has its low bit cleared (& ~1, the lock bit).
 * - src/freq_ctr.c freq_ctr_total (pend −1): remain = curr_tick + period − now (int); if remain < 0,
 *   remain += period, past = remain ≥ 0 ? curr : 0, curr = 0; the flapping correction (curr 0 and
 *   past ≤ 1: total = past · period); else total = past · remain + curr · period.
 *   read_freq_ctr_period = div64_32(total, period), rounded down.
 * - a new stick-table entry is zeroed (src/stick_table.c __stksess_init): curr_tick 0.
 * - `http-request track-sc0 src` counts the request, then `deny if { sc_http_req_rate(0) gt N }`.
 */
import { describe, expect, it } from 'vitest';
import { createLimiter } from '../../src/core';
import type { AlgorithmConfig } from '../../src/core';
import { int, seeded } from '../export/gen';
import { proofCount } from './proofCounts';

/** One stick-table entry's freq_ctr, as HAProxy 2.6 keeps it (32-bit ticks). */
class FreqCtr {
  tick = 0;
  curr = 0;
  prev = 0;

  constructor(private readonly period: number) {}

  /** update_freq_ctr_period(ctr, period, 1) at now (uint32 arithmetic). */
  update(now: number): void {
    const p = this.period;
    if ((now - this.tick) >>> 0 < p) {
      this.curr += 1;
      return;
    }
    this.prev = this.curr;
    this.curr = 1;
    let tick = (this.tick + p) >>> 0;
    if ((now - tick) >>> 0 >= p) {
      this.prev = 0;
      tick = now;
    }
    this.tick = (tick & ~1) >>> 0;
  }

  /** read_freq_ctr_period(ctr, period) at now. */
  read(now: number): number {
    const p = this.period;
    let past = this.prev;
    let curr = this.curr;
    let remain = (this.tick + p - now) | 0;
    if (remain < 0) {
      remain += p;
      past = remain >= 0 ? curr : 0;
      curr = 0;
    }
    if (curr === 0 && past <= 1) return Math.floor((past * p) / p);
    return Math.floor((past * remain + curr * p) / p);
  }
}

describe('HAProxy 2.6 freq_ctr (reference from the source) = model, at period boundaries', () => {
  it('requests exactly one and two periods after the tick, and 1 ms either side', () => {
    const rng = seeded(41_026);
    let compared = 0;
    let rejects = 0;
    const atEdge = [0, 0, 0];
    for (let run = 0; run < 200; run++) {
      const period = [int(rng, 2, 50), int(rng, 51, 5000), 1000, 10_000, 60_000][
        int(rng, 0, 4)
      ] as number;
      const limit = int(rng, 1, 8);
      const config: AlgorithmConfig = {
        kind: 'sliding-window-counter',
        limit,
        windowMs: period,
        anchor: 'entry',
      };
      const model = createLimiter(config);
      const ref = new FreqCtr(period);
      // Within one 32-bit wrap of HAProxy's ms clock, after the first period (a zeroed entry's
      // tick 0 is then more than a period in the past, as on a running haproxy).
      let t = int(rng, period * 3, 2 ** 31);
      for (let i = 0; i < 60; i++) {
        const r = rng();
        const off = int(rng, -1, 1);
        if (r < 0.3) {
          // a tie
        } else if (r < 0.75) {
          const edge = ref.tick + period * int(rng, 1, 2) + off;
          if (edge >= t) {
            t = edge;
            atEdge[off + 1] = (atEdge[off + 1] as number) + 1;
          }
        } else t += int(rng, 1, Math.max(1, Math.ceil(period / 3)));
        ref.update(t);
        const want = ref.read(t) > limit ? 'reject' : 'admit';
        const d = model.decide(t, 'client');
        expect({ run, period, t, outcome: d.outcome }).toEqual({ run, period, t, outcome: want });
        compared += 1;
        if (want === 'reject') rejects += 1;
      }
    }
    console.info(
      `HAProxy 2.6 freq_ctr (source) vs model at period boundaries: ${compared} decisions compared, ${atEdge[1]} exactly one or two periods after the tick, ${atEdge[0]} 1 ms before, ${atEdge[2]} 1 ms after; ${rejects} denied; 0 disagreements`,
    );
    expect(Math.min(...atEdge)).toBeGreaterThan(500);
    expect(rejects).toBeGreaterThan(1000);
    // The counts the README's proof table states.
    const row = 'HAProxy stick-table';
    expect(compared).toBe(proofCount(row, 'freqCtr'));
    expect(atEdge[1]).toBe(proofCount(row, 'atTick'));
    expect((atEdge[0] as number) + (atEdge[2] as number)).toBe(proofCount(row, 'besideTick'));
    expect(rejects).toBe(proofCount(row, 'freqCtrDenied'));
  });
});
