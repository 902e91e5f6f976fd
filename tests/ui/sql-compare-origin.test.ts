/**
 * The query's output is set beside the page's dry run on the clock (src/store/sqlCompare.ts): the
 * loaded log's time 0 stands for its first request's epoch ms, so a fixed window of a second is the
 * clock's second, as the query places it (src/export/sql/generate.ts). A log whose first request is
 * 1 ms before a second: its two requests 2 ms apart fall in two clock seconds, both admitted.
 */
import { describe, expect, it } from 'vitest';
import { sqlCompare } from '../../src/store/sqlCompare';

const BASE = Date.UTC(2026, 11, 7, 12, 0, 0) - 1;

const trace = {
  keys: ['a'],
  keyId: Uint32Array.of(0, 0, 0),
  times: Int32Array.of(0, 2, 500),
  baseMs: BASE,
  status: Uint16Array.of(200, 200, 200),
};

const HEAD = 'key,requests,admitted,delayed,rejected,to_rejected,to_allowed,to_delayed';

describe('the query’s output beside the page’s dry run, windows on the clock', () => {
  it('the clock’s seconds: the second request has a window of its own', () => {
    const config = { kind: 'fixed-window' as const, limit: 1, windowMs: 1000 };
    const clock = sqlCompare({
      text: `${HEAD}\na,3,2,0,1,1,0,0\n`,
      config,
      baseline: 'recorded',
      trace,
    });
    expect(clock.comparison).toMatchObject({ ok: true, agree: 1, differ: 0 });
    // Seconds counted from the first request (one window for the first two) do not agree.
    const fromFirst = sqlCompare({
      text: `${HEAD}\na,3,1,0,2,2,0,0\n`,
      config,
      baseline: 'recorded',
      trace,
    });
    expect(fromFirst.comparison).toMatchObject({ ok: true, agree: 0, differ: 1 });
  });
});
