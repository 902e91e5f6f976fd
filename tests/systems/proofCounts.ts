/**
 * The numbers of the README's systems table ("Proven, and how"), row by row. `counts` are what the
 * row's proofs run; a proof asserts its own where it computes them (`proofCount`), so a proof that
 * runs a different number fails there. `words` are the row's other numbers (versions, statuses,
 * times, worked examples). The table test (proof-table.test.ts) checks that each row's words carry
 * exactly these numbers, so a typo in the README fails there.
 *
 * Rows are named by the start of their first cell.
 */
export const PROOF_TABLE = {
  'nginx `limit_req`': {
    counts: {
      timedRequests: 189,
      responses: 413,
      rejections: 205,
      emptyKeyRequests: 16,
      emptyKeyUnaccounted: 8,
      replayKeyDecisions: 120,
      replayKeyRepeatedLines: 3,
      replayKeyEmptyKey: 3,
    },
    words: ['0', '400', '599', '408', '444', '499', '0', '0', '6', '0'],
  },
  'Envoy `local_ratelimit`': { counts: {}, words: ['1.31', '1.31'] },
  'Traefik `RateLimit`': {
    counts: {
      decisions: 16_000,
      retryIn: 10_589,
      exactWaitLong: 3_671,
      fleetDecisions: 11_565,
      fleetRetryIn: 7_731,
      redisDecisions: 9_600,
      redisFleetDecisions: 23_642,
      redisFleetRetryIn: 10_624,
    },
    words: [
      '0.3.0',
      '0',
      '2',
      '0',
      '429',
      '64',
      '1',
      '0',
      '429',
      '3.7.9',
      '1',
      '1',
      '0',
      '0',
      '429',
    ],
  },
  'ingress-nginx annotations': { counts: {}, words: [] },
  'Go `x/time/rate`': {
    counts: { allow: 4_800, reserve: 3_200, vectors: 240 },
    words: ['0'],
  },
  'redis-cell `CL.THROTTLE`': { counts: { lua: 15_000 }, words: [] },
  'Redis INCR + EXPIRE': {
    counts: { each: 15_000, edges: 24_000, onBoundary: 2_257 },
    words: ['0', '1', '0'],
  },
  'HAProxy stick-table': {
    counts: {
      timedRequests: 168,
      addresses: 14,
      denied: 66,
      denyReplies: 19,
      freqCtr: 12_000,
      atTick: 1_722,
      besideTick: 3_581,
      freqCtrDenied: 2_827,
      replayKeyDecisions: 100,
      replayKeyRepeatedLines: 3,
      replayKeyEmptyKey: 3,
    },
    words: ['0', '2.6.0', '1', '0', '5', '0'],
  },
  'Redis two-window counter': { counts: { lua: 15_000, edges: 24_000 }, words: ['0'] },
  'Cloudflare rate limiting rule': {
    counts: {},
    words: ['2017', '42', '45', '60', '18', '49.5', '50.5', '1'],
  },
  'express-rate-limit (memory store)': {
    counts: {
      decisions: 2_400,
      rejected: 387,
      atWindowEnd: 132,
      exportResponses: 2_400,
      exportRejected: 302,
      exportAtWindowEnd: 147,
    },
    words: ['0', '2026', '1970', '5.3.0', '0'],
  },
  'rate-limiter-flexible `RateLimiterMemory`': {
    counts: {
      decisions: 11_520,
      combinations: 36,
      atWindowEnd: 327,
      admitted: 4_014,
      delayed: 1_246,
      rejected: 6_260,
      durationZero: 3_840,
      atBlockEnd: 218,
      exportResponses: 1_800,
    },
    words: ['0', '0'],
  },
  'Envoy global rate limit service': {
    counts: {
      decisions: 2_400,
      rejected: 658,
      shadowPassed: 515,
      edges: 2_400,
      onBoundary: 297,
      before: 291,
      after: 254,
    },
    words: ['0', '1', '1', '0', '1.31'],
  },
  'Kong `rate-limiting`': {
    counts: {
      lua: 15_000,
      edges: 4_800,
      atPeriodStart: 535,
      besidePeriodStart: 1_132,
      atTtlEnd: 54,
      besideTtlEnd: 131,
      rejected: 2_117,
      resetStage: 80,
      resetAtTimes: 30,
    },
    words: ['1', '1', '0', '0'],
  },
  'Caddy `rate_limit`': {
    counts: { decisions: 12_000, refused: 2_533, passedUnrecorded: 1_005 },
    words: ['0'],
  },
  'Spring Cloud Gateway `RedisRateLimiter`': { counts: {}, words: [] },
} as const satisfies Record<string, { counts: Record<string, number>; words: readonly string[] }>;

export type ProofRow = keyof typeof PROOF_TABLE;

/** The count `name` the README's row `row` states (for the proof that runs it to assert). */
export function proofCount<R extends ProofRow>(
  row: R,
  name: keyof (typeof PROOF_TABLE)[R]['counts'],
): number {
  return (PROOF_TABLE[row].counts as Record<string, number>)[name as string] as number;
}
