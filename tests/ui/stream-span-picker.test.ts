/**
 * The streamed log's span picker's figures (src/ui/traffic/TraceStreamed.tsx): the busiest 24 h
 * it starts on, and how many requests a span holds by the overview's bins, said before the read.
 */
import { describe, expect, it } from 'vitest';
import { busiestDay, spanRequests } from '../../src/ui/traffic/TraceStreamed';
import type { StreamOverview } from '../../src/trace';

const MIN = 60_000;
const T0 = 1_767_571_200_000;
/** Ten one-minute bins of 1 … 10 requests. */
const overview: StreamOverview = {
  binMs: MIN,
  requests: Uint32Array.from([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]),
  rejected: new Uint32Array(10),
};

describe('the size of a streamed span before it is read', () => {
  it('counts the bins wholly inside as the least, every bin it touches as the most', () => {
    // Whole bins 2 … 4: exactly 3 + 4 + 5.
    expect(spanRequests(overview, T0, T0 + 2 * MIN, T0 + 5 * MIN)).toEqual({ low: 12, high: 12 });
    // Half into bin 2 to half into bin 4: bin 3 for certain, bins 2 … 4 at most.
    expect(spanRequests(overview, T0, T0 + 2.5 * MIN, T0 + 4.5 * MIN)).toEqual({
      low: 4,
      high: 12,
    });
    // Outside the log: none.
    expect(spanRequests(overview, T0, T0 - 5 * MIN, T0)).toEqual({ low: 0, high: 0 });
    expect(spanRequests(overview, T0, T0 + 10 * MIN, T0 + 20 * MIN)).toEqual({ low: 0, high: 0 });
  });

  it('starts on the whole log when it is shorter than a day, in whole bins', () => {
    expect(busiestDay(overview, T0)).toEqual([T0, T0 + 10 * MIN]);
  });
});
