/**
 * express-rate-limit and rate-limiter-flexible as the JavaScript that configures them.
 */
import type { AlgorithmConfig } from '../core';
import { assertAlgorithmConfig } from '../core';
import type { SystemExportOutcome } from './systems-types';

/** The headers the exported express-rate-limit sends (its own options of the same names). */
export interface ExpressExportOptions {
  /**
   * `standardHeaders`: false, or the IETF draft whose RateLimit fields it sends. Default false, as
   * the page shows the system until its standard headers are added (then 'draft-6', the library's
   * `true`).
   */
  standardHeaders?: false | 'draft-6' | 'draft-7' | 'draft-8';
  /** `legacyHeaders` (X-RateLimit-Limit, -Remaining, Date, -Reset). Default true, the library's. */
  legacyHeaders?: boolean;
}

/**
 * express-rate-limit's middleware in an Express app, sending the headers the page shows for the
 * same options: run as written (routes added where its comment says), it answers as the page does.
 */
export function toExpressRateLimit(
  config: AlgorithmConfig,
  options: ExpressExportOptions = {},
): SystemExportOutcome {
  const c = assertAlgorithmConfig(config);
  if (c.kind !== 'anchored-window' || (c.blockMs ?? 0) > 0 || c.execEvenly === true) {
    return {
      ok: false,
      target: 'express-rate-limit',
      kind: c.kind,
      reason:
        "express-rate-limit's MemoryStore is a window anchored at each key's first hit, without block or delay: choose the express-rate-limit system to export it.",
    };
  }
  // dist/index.mjs (express-rate-limit 8.7.5), validations.windowMs: the MemoryStore reports
  // ERR_ERL_WINDOW_MS for a windowMs below 1 and then lets every hit through, as each starts a
  // window already over; a window that never ends has no such app.
  if (c.windowMs < 1) {
    return {
      ok: false,
      target: 'express-rate-limit',
      kind: c.kind,
      reason:
        'express-rate-limit refuses windowMs 0 (ERR_ERL_WINDOW_MS) and then limits nothing: its windows always end. Give the window a length of at least 1 ms to export it.',
    };
  }
  // Each hit counts 1 (source/memory-store.ts increment); a cost of k per request out of `limit`
  // points admits ⌊limit / k⌋ requests per window, the same decisions.
  const cost = c.cost ?? 1;
  const limit = Math.floor(c.limit / cost);
  const standardHeaders = options.standardHeaders ?? false;
  const legacyHeaders = options.legacyHeaders ?? true;
  const text = `import express from 'express';
import { rateLimit } from 'express-rate-limit';

const app = express();
app.use(
  rateLimit({
    windowMs: ${c.windowMs}, // from each client's first hit
    limit: ${limit},${cost === 1 ? '' : ` // ${c.limit} points, ${cost} per request`}
    standardHeaders: ${standardHeaders === false ? 'false' : `'${standardHeaders}'`},
    legacyHeaders: ${legacyHeaders},
  }),
);

// Your routes here.

app.listen(process.env.PORT ?? 3000);
`;
  return {
    ok: true,
    target: 'express-rate-limit',
    language: 'javascript',
    text,
    assumes:
      'express-rate-limit 8.x (proven against 8.7.5) with the default MemoryStore, Node ≥ 16',
    differences: [
      ...(c.countRejected === true
        ? []
        : [
            'express-rate-limit counts rejected hits too (remaining stays 0 until the window ends); decisions are the same.',
          ]),
      ...(cost === 1
        ? []
        : [
            `Each hit counts 1 in express-rate-limit: limit ${limit} (${c.limit} points at ${cost} per request) makes the same decisions, and its headers count requests, not points.`,
          ]),
    ],
    notes: [
      ...(standardHeaders === false
        ? [
            "standardHeaders: 'draft-8' adds the IETF RateLimit and RateLimit-Policy fields (add the standard headers to the limiter to see draft 6).",
          ]
        : []),
      'The key is the client IP (IPv6 grouped by /56) unless you pass keyGenerator; behind a proxy set app.set("trust proxy", 1).',
      'Each process has its own MemoryStore: N processes allow N times the limit. Use a shared store (rate-limit-redis) to share it.',
    ],
  };
}

export function toRateLimiterFlexible(config: AlgorithmConfig): SystemExportOutcome {
  const c = assertAlgorithmConfig(config);
  if (c.kind !== 'anchored-window') {
    return {
      ok: false,
      target: 'rate-limiter-flexible',
      kind: c.kind,
      reason:
        "RateLimiterMemory is a window anchored at each key's first consume: choose the rate-limiter-flexible system to export it.",
    };
  }
  // lib/RateLimiterAbstract.js (11.4.0): "0 = never expires"; the record's msBeforeNext is then −1.
  const never = c.windowMs === 0;
  const lines = [
    '  points: POINTS,',
    never
      ? '  duration: 0, // points never expire'
      : `  duration: ${c.windowMs / 1000}, // seconds`,
  ];
  if ((c.blockMs ?? 0) > 0) lines.push(`  blockDuration: ${(c.blockMs ?? 0) / 1000}, // seconds`);
  if (c.execEvenly === true) {
    lines.push('  execEvenly: true,');
    // Always written: the playground's delays and the deployed limiter's then cannot differ.
    const minDelay = c.execEvenlyMinDelayMs ?? Math.ceil(c.windowMs / c.limit);
    const note =
      c.execEvenlyMinDelayMs === undefined ? ' // the library default, ⌈duration / points⌉' : '';
    lines.push(`  execEvenlyMinDelayMs: ${minDelay},${note}`);
  }
  const cost = c.cost ?? 1;
  const text = `import { RateLimiterMemory } from 'rate-limiter-flexible';

const POINTS = ${c.limit};
const limiter = new RateLimiterMemory({
${lines.join('\n')}
});

// The headers rate-limiter-flexible's README suggests; Retry-After in whole seconds.${never ? '\n// duration 0: msBeforeNext is -1 (no reset time), so the headers that carry a time are left out.' : ''}
function rateLimitHeaders(res, r) {
  res.set('X-RateLimit-Limit', String(POINTS));
  res.set('X-RateLimit-Remaining', String(r.remainingPoints));
${never ? '  if (r.msBeforeNext >= 0) {\n  ' : ''}  res.set('X-RateLimit-Reset', String(Math.ceil((Date.now() + r.msBeforeNext) / 1000)));${never ? '\n  }' : ''}
}

export async function limit(req, res, next) {
  try {
    const r = await limiter.consume(req.ip${cost === 1 ? '' : `, ${cost}`});
    rateLimitHeaders(res, r);
    next();
  } catch (r) {
    if (r instanceof Error) return next(r);
${never ? '    if (r.msBeforeNext >= 0) ' : '    '}res.set('Retry-After', String(Math.ceil(r.msBeforeNext / 1000)));
    rateLimitHeaders(res, r);
    res.status(429).send('Too Many Requests');
  }
}
`;
  return {
    ok: true,
    target: 'rate-limiter-flexible',
    language: 'javascript',
    text,
    assumes: 'rate-limiter-flexible 11.x (proven against 11.4.0), RateLimiterMemory',
    differences: [
      ...(c.countRejected === true
        ? []
        : [
            'RateLimiterMemory counts rejected consumes too; decisions are the same without a block.',
          ]),
      ...((c.windowMs / 1000) * 1000 !== c.windowMs
        ? [
            `duration ${c.windowMs / 1000} s is ${(c.windowMs / 1000) * 1000} ms to the library, and its expiry timer (setTimeout) drops the record after ${Math.floor((c.windowMs / 1000) * 1000)} ms: a request in the window's last millisecond finds a new window, which the playground does not show. A duration in whole seconds avoids it.`,
          ]
        : []),
      ...((c.blockMs ?? 0) > 0 && ((c.blockMs ?? 0) / 1000) * 1000 !== c.blockMs
        ? [`blockDuration ${(c.blockMs ?? 0) / 1000} s is not exact in ms to the library.`]
        : []),
    ],
    notes: [
      'Each process has its own memory store; RateLimiterRedis shares one.',
      ...(never
        ? [
            'duration 0: points never expire. A key that has used its points is refused for as long as the process runs; only a block ends its record, and the next record never expires either.',
          ]
        : []),
      'The store also drops each record with a setTimeout of its duration; Node may run it up to a millisecond before Date.now() reaches the expiry, so a request in a window’s very last millisecond can find a new window.',
      ...(c.windowMs % 1000 !== 0
        ? ['duration is in seconds: a fraction works (the store keeps milliseconds).']
        : []),
    ],
  };
}
