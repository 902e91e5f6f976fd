/**
 * The proof for the token bucket with reservations, the Go export and the Traefik model: a small Go
 * program replays traces through the real golang.org/x/time/rate (Debian's
 * golang-golang-x-time-dev, x/time 0.3.0) with explicit times — `AllowN(t, 1)` for the Go export's
 * Allow, `ReserveN(t, 1)` + `DelayFrom(t)` + `CancelAt(t)` for a maximum delay, exactly the calls
 * Traefik's in_memory_limiter.go makes — and every decision must equal the core's. The limit and
 * burst are the Go export's own lines (src/export/go.ts), pasted into the program.
 *
 * x/time/rate keeps float64 tokens, so a request landing exactly on a refill boundary could go
 * either way there; none of these traces' decisions does, and every one must agree. Every Traefik
 * 429's Retry-After and X-Retry-In must be Go's bytes: the model replays x/time/rate's float64
 * bucket over the key's requests (src/systems/respond/goRate.ts), where the exact wait alone
 * would be 1 ns long on about a third of them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLimiter } from '../../src/core';
import type { TokenBucketConfig } from '../../src/core';
import { toGo } from '../../src/export';
import { deriveConfig, systemById } from '../../src/systems';
import { goDurationNs, traefikDelayNs, traefikResponse } from '../../src/systems/respond/traefik';
import { int, seeded } from './gen';
import { goMissing, runGo } from './goRate';
import { proofCount } from '../systems/proofCounts';

const missing = goMissing('the x/time/rate proof', 'tests/export/go.server.test.ts');

/** The Go program: one line per request "ms key" on stdin, one line per decision on stdout. */
function program(limitLines: string, maxDelayNs: number): string {
  return `package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/time/rate"
)

var (
${limitLines}
	maxDelay = time.Duration(${maxDelayNs})
)

func main() {
	// t = 0 is a whole Unix second, as the playground assumes.
	base := time.Unix(1700000000, 0)
	byKey := map[string]*rate.Limiter{}
	in := bufio.NewScanner(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for in.Scan() {
		f := strings.Fields(in.Text())
		ms, _ := strconv.ParseInt(f[0], 10, 64)
		now := base.Add(time.Duration(ms) * time.Millisecond)
		lim, ok := byKey[f[1]]
		if !ok {
			lim = rate.NewLimiter(limit, burst)
			byKey[f[1]] = lim
		}
		if maxDelay == 0 {
			if lim.AllowN(now, 1) {
				fmt.Fprintln(out, "admit 0")
			} else {
				fmt.Fprintln(out, "reject 0")
			}
			continue
		}
		r := lim.ReserveN(now, 1)
		if !r.OK() {
			fmt.Fprintln(out, "reject -1")
			continue
		}
		d := r.DelayFrom(now)
		if d > maxDelay {
			r.CancelAt(now)
			fmt.Fprintf(out, "reject %d %s\\n", d.Nanoseconds(), d.String())
		} else if d > 0 {
			fmt.Fprintf(out, "delay %d\\n", d.Nanoseconds())
		} else {
			fmt.Fprintln(out, "admit 0")
		}
	}
}
`;
}

interface Trace {
  name: string;
  config: TokenBucketConfig;
  /** `var ( … )` lines for limit and burst. */
  limitLines: string;
  maxDelayNs: number;
  requests: Array<{ ms: number; key: string }>;
}

/** The `limit = …` and `burst = …` lines of the Go export, as it writes them. */
function exportedLines(config: TokenBucketConfig): string {
  const out = toGo({ ...config, maxDelayMs: 0 });
  if (!out.ok) throw new Error(out.reason);
  const lines = out.text
    .split('\n')
    .filter((l) => /^\t(limit|burst) = /.test(l))
    .join('\n');
  expect(lines.split('\n')).toHaveLength(2);
  return lines;
}

function trace(rng: () => number, n: number, maxGapMs: number): Array<{ ms: number; key: string }> {
  const keys = ['a', 'b', 'c'].slice(0, int(rng, 1, 3));
  let t = 0;
  return Array.from({ length: n }, () => {
    // Bursts at one instant, short gaps and long ones.
    const r = rng();
    t += r < 0.3 ? 0 : r < 0.8 ? int(rng, 1, Math.min(maxGapMs, 200)) : int(rng, 1, maxGapMs);
    return { ms: t, key: keys[int(rng, 0, keys.length - 1)] as string };
  });
}

function buildTraces(): Trace[] {
  const rng = seeded(2026);
  const traces: Trace[] = [];
  // The Go export: Allow (no delay) for random buckets.
  for (let i = 0; i < 12; i += 1) {
    const config: TokenBucketConfig = {
      kind: 'token-bucket',
      maxTokens: int(rng, 1, 20),
      tokensPerFill: int(rng, 1, 10),
      fillIntervalMs: [100, 250, 1000, 1500, 3000, 60_000][int(rng, 0, 5)] as number,
    };
    traces.push({
      name: `Go export Allow ${JSON.stringify(config)}`,
      config,
      limitLines: exportedLines(config),
      maxDelayNs: 0,
      requests: trace(rng, 400, 3 * config.fillIntervalMs),
    });
  }
  // Reserve with a maximum delay (the core's maxDelayMs; the Go export's Wait with a deadline).
  for (let i = 0; i < 8; i += 1) {
    const config: TokenBucketConfig = {
      kind: 'token-bucket',
      maxTokens: int(rng, 1, 10),
      tokensPerFill: int(rng, 1, 5),
      fillIntervalMs: [200, 1000, 2000][int(rng, 0, 2)] as number,
      maxDelayMs: [50, 100, 500, 1000][int(rng, 0, 3)] as number,
    };
    traces.push({
      name: `Reserve, max delay ${JSON.stringify(config)}`,
      config,
      limitLines: exportedLines(config),
      maxDelayNs: (config.maxDelayMs ?? 0) * 1_000_000,
      requests: trace(rng, 400, 2 * config.fillIntervalMs),
    });
  }
  // Traefik: average per period, burst; maxDelay and the whole model from src/systems/traefik.ts.
  const traefik = systemById('traefik');
  if (traefik === undefined) throw new Error('traefik is registered');
  const traefikCases: Array<[average: number, periodMs: number, burst: number]> = [
    [100, 1000, 50],
    [10, 1000, 1],
    [5, 1000, 10],
    [6, 60_000, 3], // rate 0.1/s: maxDelay 500 ms (traefik #8330's "6 per minute")
    [1, 1000, 5],
    [20, 2000, 4],
    [50, 1000, 100],
    [2, 1000, 1],
    // maxDelay not a whole number of ms (83.333333 ms at 6 r/s …) and rates that are not whole.
    [6, 1000, 2],
    [3, 1000, 1],
    [12, 1000, 3],
    [7, 1000, 5],
    [14, 2000, 2], // 7 r/s
    [25, 3000, 4], // 8.33 r/s: maxDelay 62.5 ms, a token every 120 ms
    [125, 7000, 6], // 17.86 r/s: maxDelay 29.411764 ms
    [40, 3000, 1], // 13.33 r/s: maxDelay 38.461538 ms
  ];
  for (const [average, periodMs, burst] of traefikCases) {
    const config = deriveConfig(traefik, {
      kind: 'token-bucket',
      maxTokens: burst,
      tokensPerFill: average,
      fillIntervalMs: periodMs,
    }) as TokenBucketConfig;
    // rate_limiter.go: rtl = average·1e9 / period; maxDelay = 500 ms below 1/s, else
    // time.Second / (time.Duration(rtl) * 2). Computed here from Traefik's formula, in ns.
    const rtl = (average * 1e9) / (periodMs * 1e6);
    const maxDelayNs = rtl < 1 ? 500_000_000 : Math.floor(1e9 / (Math.floor(rtl) * 2));
    // The model's maximum delay is Traefik's to the ns (maxDelayNs when not whole ms).
    expect(config.maxDelayNs ?? (config.maxDelayMs ?? 0) * 1e6, `${average}/${periodMs} ms`).toBe(
      maxDelayNs,
    );
    // Traefik's ttl (idleResetS) is its ttlmap's, not x/time/rate's: the library alone is compared
    // here, so the model runs without it (its rule is read from ttlmap.go, tested in tests/core).
    const { idleResetS, ...bucket } = config;
    expect(idleResetS).toBe(
      average * 1000 >= periodMs ? 2 : 1 + Math.floor(periodMs / (average * 1000)),
    );
    const limitLines = `\tlimit = rate.Limit(float64(${average}*int64(time.Second)) / float64(${periodMs}*time.Millisecond))\n\tburst = ${burst}`;
    traces.push({
      name: `Traefik average=${average} period=${periodMs}ms burst=${burst}`,
      config: bucket,
      limitLines,
      maxDelayNs,
      requests: trace(rng, 400, 2 * periodMs),
    });
    // Every ms around maxDelay: after the burst, requests 0 – 2 ms apart, so the wait to the next
    // token crosses maxDelay at every offset (rejected, then delayed, at and around the boundary).
    traces.push({
      name: `Traefik boundary average=${average} period=${periodMs}ms burst=${burst}`,
      config: bucket,
      limitLines,
      maxDelayNs,
      requests: trace(rng, 600, 2).map((r) => ({ ms: r.ms, key: 'a' })),
    });
  }
  return traces;
}

describe.skipIf(missing !== undefined)('golang.org/x/time/rate against the core', () => {
  it('decides every request of every trace as the core does (Go export, Reserve, Traefik)', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'rll-go-'));
    try {
      let compared = 0;
      let retryIn = 0;
      let fractional = 0;
      let floatBelow = 0;
      const disagreements: string[] = [];
      const perGroup = new Map<string, number>();
      for (const t of buildTraces()) {
        const out = await runGo(
          dir,
          program(t.limitLines, t.maxDelayNs),
          t.requests.map((r) => `${r.ms} ${r.key}\n`).join(''),
        );
        const lines = out.trim().split('\n');
        expect(lines, t.name).toHaveLength(t.requests.length);
        const limiter = createLimiter(t.config);
        const isTraefik = t.name.startsWith('Traefik');
        const byKey = new Map<string, number[]>();
        t.requests.forEach((r, i) => {
          const history = byKey.get(r.key) ?? [];
          history.push(r.ms);
          byKey.set(r.key, history);
          const before = limiter.inspect(r.ms, r.key);
          const d = limiter.decide(r.ms, r.key);
          const [outcome, nsText, goString] = (lines[i] as string).split(' ');
          const ns = Number(nsText);
          const where = `${t.name}, request ${i} (${r.ms} ms, ${r.key}): core ${d.outcome} ${d.delayMs || d.retryAfterMs} ms, Go ${lines[i]}`;
          let agree = outcome === d.outcome;
          if (agree && outcome === 'delay') agree = Math.ceil(ns / 1e6 - 1e-6) === d.delayMs;
          if (agree && outcome === 'reject' && isTraefik) {
            // What the 429 carries, byte for byte: Retry-After ⌈delay.Seconds()⌉ and X-Retry-In
            // delay.String() of x/time/rate's float64 delay, replayed from the key's requests.
            const sent = traefikResponse(t.config, d, { before, keyHistoryMs: history }).fields;
            const header = (name: string) => sent.find((f) => f.name === name)?.value;
            agree =
              header('Retry-After') === String(Math.ceil(ns / 1e9)) &&
              header('X-Retry-In') === goString &&
              goDurationNs(ns) === goString;
            if (agree) retryIn += 1;
            // The exact wait (the state alone, no history) is Go's or 1 ns more (float64 tokens).
            const exactNs = traefikDelayNs(t.config, d, before);
            if (exactNs !== ns) floatBelow += 1;
            if (exactNs - ns !== 0 && exactNs - ns !== 1) agree = false;
          } else if (agree && outcome === 'reject' && t.maxDelayNs > 0) {
            // Retry-After is the first ms whose wait fits maxDelay: the wait less maxDelay.
            agree = Math.ceil(ns / 1e6 - 1e-6) === d.retryAfterMs + t.maxDelayNs / 1e6;
          }
          if (agree && outcome === 'delay' && ns % 1e6 !== 0) fractional += 1;
          if (!agree) disagreements.push(where);
          compared += 1;
        });
        const group = (t.name.split(' ')[0] as string).replace(',', '');
        perGroup.set(group, (perGroup.get(group) ?? 0) + t.requests.length);
      }
      console.info(
        `x/time/rate vs core: ${compared} decisions compared (${[...perGroup].map(([g, n]) => `${g} ${n}`).join(', ')}), ${disagreements.length} disagreements; ${retryIn} Traefik 429s with Retry-After and X-Retry-In equal to Go's bytes (${floatBelow} of them where x/time/rate's float64 delay is 1 ns below the exact wait), ${fractional} delays of a fraction of a ms`,
      );
      expect(disagreements.slice(0, 20)).toEqual([]);
      // Every Traefik 429 was compared (boundary traces reject in every case).
      expect(retryIn).toBeGreaterThan(10_000);
      // The counts the README's proof table states.
      expect(perGroup.get('Traefik')).toBe(proofCount('Traefik `RateLimit`', 'decisions'));
      expect(retryIn).toBe(proofCount('Traefik `RateLimit`', 'retryIn'));
      expect(floatBelow).toBe(proofCount('Traefik `RateLimit`', 'exactWaitLong'));
      expect(perGroup.get('Go')).toBe(proofCount('Go `x/time/rate`', 'allow'));
      expect(perGroup.get('Reserve')).toBe(proofCount('Go `x/time/rate`', 'reserve'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 300_000);
});
