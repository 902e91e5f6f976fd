/**
 * config -> a Go snippet with golang.org/x/time/rate, which is a token bucket (continuous refill,
 * float64 tokens) with reservations. It expresses the token bucket with continuous refill (and
 * maxDelayMs through Wait with a deadline) and GCRA; the other kinds get a typed "unsupported".
 */
import type { AlgorithmConfig } from '../core';
import { assertAlgorithmConfig } from '../core';
import type { ExportOutcome, ExportUnsupported } from './types';

function unsupported(config: AlgorithmConfig, reason: string): ExportUnsupported {
  return { ok: false, target: 'go', kind: config.kind, reason };
}

/** A Go duration expression for whole ms, e.g. 1500 -> "1500 * time.Millisecond". */
function goDuration(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} * time.Hour`;
  if (ms % 60_000 === 0) return `${ms / 60_000} * time.Minute`;
  if (ms % 1000 === 0) return `${ms / 1000} * time.Second`;
  return `${ms} * time.Millisecond`;
}

interface Plan {
  summary: string;
  /** Tokens per `per`. */
  tokens: number;
  perMs: number;
  burst: number;
  maxDelayMs: number;
}

function snippet(p: Plan): string {
  const wait = p.maxDelayMs > 0;
  const every =
    p.tokens === 1
      ? `rate.Every(${goDuration(p.perMs)})`
      : `rate.Limit(${p.tokens} / (${goDuration(p.perMs)}).Seconds())`;
  return `// ${p.summary}, exported from Rate Limit Lab.
package ratelimit

import (
${wait ? '\t"context"\n' : ''}\t"sync"
\t"time"

\t"golang.org/x/time/rate"
)

var (
\tlimit = ${every}
\tburst = ${p.burst}${wait ? `\n\t// A request waits for its token when that takes at most this long.\n\tmaxDelay = ${goDuration(p.maxDelayMs)}` : ''}
)

// Limiters keeps one token bucket per key (a client, a user). It never forgets a key: evict the
// ones idle for longer than burst / limit seconds if keys are unbounded.
type Limiters struct {
\tmu    sync.Mutex
\tbyKey map[string]*rate.Limiter
}

func (l *Limiters) get(key string) *rate.Limiter {
\tl.mu.Lock()
\tdefer l.mu.Unlock()
\tif l.byKey == nil {
\t\tl.byKey = make(map[string]*rate.Limiter)
\t}
\tlim, ok := l.byKey[key]
\tif !ok {
\t\tlim = rate.NewLimiter(limit, burst) // starts full
\t\tl.byKey[key] = lim
\t}
\treturn lim
}
${
  wait
    ? `
// Wait blocks until key's request may pass, or returns an error at once (reject: 429) when its
// token would come later than maxDelay; a rejected request takes no token.
func (l *Limiters) Wait(ctx context.Context, key string) error {
\tctx, cancel := context.WithTimeout(ctx, maxDelay)
\tdefer cancel()
\treturn l.get(key).Wait(ctx)
}
`
    : `
// Allow reports whether key's request may pass now (false: reject with 429). It never waits.
func (l *Limiters) Allow(key string) bool {
\treturn l.get(key).Allow()
}
`
}`;
}

const COMMON_DIFFERENCES = [
  'x/time/rate keeps float64 tokens on a nanosecond clock: a request landing exactly on a refill boundary may go either way, where the playground is exact in whole milliseconds.',
  "Go's monotonic clock never goes backwards; the playground's wall-clock jumps do not happen here.",
  'One process, one set of buckets: several instances each limit on their own.',
];

/**
 * A Go x/time/rate snippet where the algorithm maps to it; otherwise why it does not. Throws a
 * RangeError on an invalid config, as createLimiter does.
 */
export function toGo(config: AlgorithmConfig): ExportOutcome {
  const c = assertAlgorithmConfig(config);
  switch (c.kind) {
    case 'token-bucket': {
      if (c.refill === 'interval') {
        return unsupported(
          c,
          'x/time/rate refills continuously; it has no refill timer that adds tokens_per_fill whole tokens every fill_interval. Use continuous refill to get a Go snippet.',
        );
      }
      const maxDelayMs = c.maxDelayMs ?? 0;
      const differences = [...COMMON_DIFFERENCES];
      if (maxDelayMs > 0) {
        differences.push(
          "Wait sleeps the exact time to the token; the playground rounds that wait up to a whole ms. Near the deadline Wait may refuse a token the playground would wait for, because the context's deadline starts counting just before Wait's own clock reading.",
        );
      }
      return {
        ok: true,
        target: 'go',
        language: 'go',
        text: snippet({
          summary: `Token bucket: max_tokens=${c.maxTokens}, ${c.tokensPerFill} token(s) per ${c.fillIntervalMs} ms, continuous refill${maxDelayMs > 0 ? `, waits up to ${maxDelayMs} ms` : ''}`,
          tokens: c.tokensPerFill,
          perMs: c.fillIntervalMs,
          burst: c.maxTokens,
          maxDelayMs,
        }),
        assumes: 'golang.org/x/time/rate (any release with Limiter.Wait and Allow); Go ≥ 1.18',
        differences,
        notes: [
          'burst is the bucket size (max_tokens); limit is the refill rate in tokens per second.',
        ],
      };
    }
    case 'gcra':
      return {
        ok: true,
        target: 'go',
        language: 'go',
        text: snippet({
          summary: `GCRA as a token bucket: ${c.count} request(s) per ${c.periodMs} ms, max_burst=${c.burst} (limit ${c.burst + 1})`,
          tokens: c.count,
          perMs: c.periodMs,
          burst: c.burst + 1,
          maxDelayMs: 0,
        }),
        assumes: 'golang.org/x/time/rate (any release with Limiter.Allow); Go ≥ 1.18',
        differences: [
          ...COMMON_DIFFERENCES,
          "GCRA is a token bucket of burst + 1 tokens refilled one per period / count, so decisions match up to float rounding; redis-cell's remaining and reset headers have no x/time/rate counterpart (use Limiter.Tokens).",
        ],
        notes: [],
      };
    case 'leaky-bucket':
      return unsupported(
        c,
        "nginx's limit_req is not x/time/rate's token bucket: a new key starts with excess 0, excess drains in whole milli-requests per ms, and delayed requests wait excess / rate. With nodelay, rate.NewLimiter(rate, burst+1) with Allow comes close but is not the same.",
      );
    case 'fixed-window':
    case 'sliding-log':
    case 'sliding-window-counter':
    case 'anchored-window':
    case 'calendar-windows':
      return unsupported(
        c,
        `x/time/rate only has a token bucket; it has no ${c.kind === 'sliding-log' ? 'request log' : 'windows'}. The nearest is rate.NewLimiter(rate.Limit(limit / window seconds), limit), which spreads the quota instead of counting per window.`,
      );
  }
}
