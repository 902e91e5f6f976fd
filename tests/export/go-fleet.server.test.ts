/**
 * The Traefik proof extended to fleets: every Traefik replica keeps its own in-memory buckets
 * (in_memory_limiter.go, traefik v3.7.9: one rate.Limiter per source in the middleware's own
 * ttlmap), so a Go program holds one real golang.org/x/time/rate Limiter per replica per key
 * (Debian's golang-golang-x-time-dev, x/time 0.3.0), fed the rows that the lab's balancer sent to
 * that replica, and drops a replica's limiters when the fleet scales in below it (the pod and its
 * memory are gone). Every decision must equal the lab's, and every 429's Retry-After and
 * X-Retry-In, built as the inspector builds them (the seeker's history of the store the row met),
 * must be Go's bytes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TokenBucketConfig } from '../../src/core';
import { Seeker, decisionAt, simulate } from '../../src/sim';
import type { Deployment, SimResult } from '../../src/sim';
import { deriveConfig, systemById } from '../../src/systems';
import { traefikResponse } from '../../src/systems/respond/traefik';
import { scenario } from '../sim/helpers';
import { goMissing, runGo } from './goRate';
import { proofCount } from '../systems/proofCounts';

const missing = goMissing('the x/time/rate fleet proof', 'tests/export/go-fleet.server.test.ts');

/**
 * Input: "scale N" (replicas N and up lose their limiters) or "ms replica key"; output per request
 * as tests/export/go.server.test.ts's program: admit, delay ns, or reject ns delay.String().
 */
function program(average: number, periodMs: number, burst: number, maxDelayNs: number): string {
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
	limit    = rate.Limit(float64(${average}*int64(time.Second)) / float64(${periodMs}*time.Millisecond))
	burst    = ${burst}
	maxDelay = time.Duration(${maxDelayNs})
)

func main() {
	base := time.Unix(1700000000, 0)
	replicas := map[int64]map[string]*rate.Limiter{}
	in := bufio.NewScanner(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for in.Scan() {
		f := strings.Fields(in.Text())
		if f[0] == "scale" {
			n, _ := strconv.ParseInt(f[1], 10, 64)
			for r := range replicas {
				if r >= n {
					delete(replicas, r)
				}
			}
			continue
		}
		ms, _ := strconv.ParseInt(f[0], 10, 64)
		replica, _ := strconv.ParseInt(f[1], 10, 64)
		now := base.Add(time.Duration(ms) * time.Millisecond)
		byKey, ok := replicas[replica]
		if !ok {
			byKey = map[string]*rate.Limiter{}
			replicas[replica] = byKey
		}
		lim, ok := byKey[f[2]]
		if !ok {
			lim = rate.NewLimiter(limit, burst)
			byKey[f[2]] = lim
		}
		r := lim.ReserveN(now, 1)
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

/** The key of row `row` of the first lane. */
function keyOf(result: SimResult, row: number): string {
  const origin = result.lanes[0]?.columns.origin[row] as number;
  return result.keyNames[
    result.clientKey[result.arrivals.client[origin] as number] as number
  ] as string;
}

/** The Go program's input: every row at the replica the lab routed it to, scale events first. */
function goInput(result: SimResult, scale: ReadonlyArray<{ atMs: number; instances: number }>) {
  const lane = result.lanes[0];
  if (lane === undefined) throw new Error('one lane');
  const cols = lane.columns;
  const lines: string[] = [];
  let next = 0;
  for (let r = 0; r < cols.rows; r += 1) {
    const t = cols.arrivalMs[r] as number;
    // The fleet processes scale events due at a row's time before deciding it.
    while (next < scale.length && (scale[next]?.atMs as number) <= t) {
      lines.push(`scale ${scale[next]?.instances}`);
      next += 1;
    }
    lines.push(`${t} ${cols.instance[r] ?? 0} ${keyOf(result, r)}`);
  }
  return `${lines.join('\n')}\n`;
}

const traefik = systemById('traefik');
if (traefik === undefined) throw new Error('traefik is registered');

describe.skipIf(missing !== undefined)(
  'golang.org/x/time/rate per replica (Traefik fleets)',
  () => {
    it('decides every row and writes every 429 as one real Limiter per replica per key', async () => {
      const dir = mkdtempSync(path.join(tmpdir(), 'rll-go-fleet-'));
      try {
        const cases: Array<{
          average: number;
          periodMs: number;
          burst: number;
          deployment: Deployment;
        }> = [];
        const scale = [
          { atMs: 1500, instances: 1 },
          { atMs: 2500, instances: 4 },
          { atMs: 4000, instances: 2 },
        ];
        for (const [average, periodMs, burst] of [
          [6, 1000, 2],
          [12, 1000, 3],
          [25, 3000, 4],
          [40, 3000, 1],
          // 0.1 r/s: a replica's bucket takes 30 s to fill, so one scaled in and out again
          // starts fuller than the old one would have been.
          [6, 60_000, 3],
        ] as const) {
          for (const balancer of ['least-outstanding', 'weighted', 'hash'] as const) {
            cases.push({
              average,
              periodMs,
              burst,
              deployment: {
                instances: 3,
                balancer,
                state: 'local',
                roundTripMs: 5,
                fleet: { scale, weights: [1, 2, 3, 1] },
              },
            });
          }
        }
        let compared = 0;
        let headers = 0;
        const disagreements: string[] = [];
        for (const c of cases) {
          const config = deriveConfig(traefik, {
            kind: 'token-bucket',
            maxTokens: c.burst,
            tokensPerFill: c.average,
            fillIntervalMs: c.periodMs,
          }) as TokenBucketConfig;
          // Traefik's ttl is its ttlmap's, not x/time/rate's: the library alone is compared.
          const { idleResetS, ...bucket } = config;
          expect(idleResetS).toBeGreaterThan(0);
          const rtl = (c.average * 1e9) / (c.periodMs * 1e6);
          const maxDelayNs = rtl < 1 ? 500_000_000 : Math.floor(1e9 / (Math.floor(rtl) * 2));
          expect(bucket.maxDelayNs ?? (bucket.maxDelayMs ?? 0) * 1e6).toBe(maxDelayNs);
          const result = simulate(
            [bucket],
            scenario({
              seed: 41,
              sources: [{ kind: 'poisson', ratePerSec: 120, startMs: 0, endMs: 6000 }],
              clients: { count: 3, keying: 'per-client', assign: 'round-robin' },
              deployment: c.deployment,
            }),
            6000,
          );
          const out = await runGo(
            dir,
            program(c.average, c.periodMs, c.burst, maxDelayNs),
            goInput(result, scale),
          );
          const lines = out.trim().split('\n');
          const rows = result.lanes[0]?.columns.rows ?? 0;
          expect(lines).toHaveLength(rows);
          const seeker = new Seeker(result);
          const name = `${c.average}/${c.periodMs} ms burst ${c.burst}, ${c.deployment.balancer}`;
          for (let row = 0; row < rows; row += 1) {
            const [outcome, nsText, goString] = (lines[row] as string).split(' ');
            const d = decisionAt(result, 0, row);
            let agree = outcome === d.outcome;
            if (agree && outcome === 'reject') {
              // As the inspector asks for it: the state the row met, and its key's history there.
              const { stores, store, wallMs } = seeker.storesBefore(0, row);
              const before = stores[store]?.inspect(wallMs, keyOf(result, row));
              const history = seeker.keyTimesUpTo(0, row);
              const sent = traefikResponse(bucket, d, {
                ...(before === undefined ? {} : { before }),
                ...(history === undefined ? {} : { keyHistoryMs: history }),
              }).fields;
              const header = (n: string) => sent.find((f) => f.name === n)?.value;
              agree =
                header('Retry-After') === String(Math.ceil(Number(nsText) / 1e9)) &&
                header('X-Retry-In') === goString;
              if (agree) headers += 1;
            }
            if (!agree)
              disagreements.push(
                `${name}, row ${row}: lab ${d.outcome} ${d.retryAfterMs} ms, Go ${lines[row]}`,
              );
            compared += 1;
          }
        }
        console.info(
          `x/time/rate per replica vs the lab's Traefik fleets: ${compared} decisions compared, ${disagreements.length} disagreements; ${headers} 429s with Retry-After and X-Retry-In equal to Go's bytes`,
        );
        expect(disagreements.slice(0, 20)).toEqual([]);
        expect(headers).toBeGreaterThan(1000);
        // The counts the README's proof table states.
        expect(compared).toBe(proofCount('Traefik `RateLimit`', 'fleetDecisions'));
        expect(headers).toBe(proofCount('Traefik `RateLimit`', 'fleetRetryIn'));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }, 300_000);
  },
);
