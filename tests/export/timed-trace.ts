/**
 * Timed traces for the real-nginx test: groups of simultaneous requests per key, planned with the
 * core, and a check that small timing errors (a busy machine, a late timer) cannot change any
 * group's outcome counts.
 */
import type { AlgorithmConfig, Outcome } from '../../src/core';
import { performance } from 'node:perf_hooks';
import { createLimiter } from '../../src/core';
import { seeded } from './gen';

/** `count` requests for `key`, sent together at `atMs` after the start. */
export interface Group {
  atMs: number;
  key: string;
  count: number;
}

export interface GroupPlan {
  admit: number;
  delay: number;
  reject: number;
  /** delayMs of each request in the group, ascending (0 for admitted and rejected ones). */
  delaysMs: number[];
}

interface Arrival {
  group: number;
  atMs: number;
  key: string;
}

function decideAll(
  config: AlgorithmConfig,
  groups: readonly Group[],
  arrivals: Arrival[],
): GroupPlan[] {
  const limiter = createLimiter(config);
  const plans: GroupPlan[] = groups.map(() => ({ admit: 0, delay: 0, reject: 0, delaysMs: [] }));
  const ordered = arrivals
    .map((a, i) => ({ a, i }))
    .sort((x, y) => x.a.atMs - y.a.atMs || x.i - y.i);
  for (const { a } of ordered) {
    const d = limiter.decide(a.atMs, a.key);
    const p = plans[a.group] as GroupPlan;
    p[d.outcome satisfies Outcome] += 1;
    if (d.outcome !== 'reject') p.delaysMs.push(d.delayMs);
  }
  for (const p of plans) p.delaysMs.sort((x, y) => x - y);
  return plans;
}

/**
 * The core's decisions when each group's requests may each have reached the server at any time
 * within that group's window [fromMs, toMs]: `runs` seeded draws plus the two extremes (all at
 * fromMs, all at toMs). Returns the plan when every draw gives each group the same admit / delay /
 * reject counts (with each group's smallest and largest delays over the draws), or the groups
 * whose counts changed.
 */
export function planWithin(
  config: AlgorithmConfig,
  groups: readonly Group[],
  windows: ReadonlyArray<{ fromMs: number; toMs: number }>,
  runs = 200,
): { plans: WindowPlan[]; unstable: number[] } {
  const rng = seeded(11);
  let first: GroupPlan[] | null = null;
  const lo: number[][] = [];
  const hi: number[][] = [];
  const unstable = new Set<number>();
  for (let run = 0; run < runs + 2; run += 1) {
    const arrivals: Arrival[] = [];
    groups.forEach((g, group) => {
      const w = windows[group] ?? { fromMs: g.atMs, toMs: g.atMs };
      for (let i = 0; i < g.count; i += 1) {
        const at =
          run === 0 ? w.fromMs : run === 1 ? w.toMs : w.fromMs + rng() * (w.toMs - w.fromMs);
        arrivals.push({ group, atMs: Math.round(at), key: g.key });
      }
    });
    const got = decideAll(config, groups, arrivals);
    if (first === null) {
      first = got;
      got.forEach((p, i) => {
        lo[i] = p.delaysMs.slice();
        hi[i] = p.delaysMs.slice();
      });
      continue;
    }
    got.forEach((p, i) => {
      const want = (first as GroupPlan[])[i] as GroupPlan;
      if (p.admit !== want.admit || p.delay !== want.delay || p.reject !== want.reject) {
        unstable.add(i);
        return;
      }
      p.delaysMs.forEach((d, j) => {
        (lo[i] as number[])[j] = Math.min((lo[i] as number[])[j] as number, d);
        (hi[i] as number[])[j] = Math.max((hi[i] as number[])[j] as number, d);
      });
    });
  }
  const plans = (first as GroupPlan[]).map((p, i) => ({
    ...p,
    minDelaysMs: lo[i] as number[],
    maxDelaysMs: hi[i] as number[],
  }));
  return { plans, unstable: [...unstable].sort((a, b) => a - b) };
}

/** A group's plan over a window of arrival times: the counts, and each delay's range. */
export interface WindowPlan extends GroupPlan {
  /** The smallest delay of each rank (ascending) over the draws. */
  minDelaysMs: number[];
  /** The largest. */
  maxDelaysMs: number[];
}

/** The core's decisions with every request exactly on time. */
export function plan(config: AlgorithmConfig, groups: readonly Group[]): GroupPlan[] {
  const arrivals: Arrival[] = [];
  groups.forEach((g, group) => {
    for (let i = 0; i < g.count; i += 1) arrivals.push({ group, atMs: g.atMs, key: g.key });
  });
  return decideAll(config, groups, arrivals);
}

/**
 * Problems that timing errors could cause: for `runs` seeded perturbations (each group shifted by
 * up to ±jitterMs, each request within it by up to +spreadMs), any group whose admit/delay/reject
 * counts differ from the plan; and any planned delay too short to tell from no delay.
 */
export function fragility(
  config: AlgorithmConfig,
  groups: readonly Group[],
  jitterMs: number,
  spreadMs: number,
  minDelayMs: number,
  runs = 400,
): string[] {
  const planned = plan(config, groups);
  const problems: string[] = [];
  planned.forEach((p, i) => {
    for (const d of p.delaysMs) {
      if (d > 0 && d < minDelayMs)
        problems.push(`group ${i}: planned delay ${d} ms < ${minDelayMs} ms`);
    }
  });
  const rng = seeded(7);
  for (let run = 0; run < runs && problems.length === 0; run += 1) {
    const arrivals: Arrival[] = [];
    groups.forEach((g, group) => {
      const shift = Math.round((rng() * 2 - 1) * jitterMs);
      for (let i = 0; i < g.count; i += 1) {
        arrivals.push({ group, atMs: g.atMs + shift + Math.round(rng() * spreadMs), key: g.key });
      }
    });
    const got = decideAll(config, groups, arrivals);
    got.forEach((p, i) => {
      const want = planned[i] as GroupPlan;
      if (p.admit !== want.admit || p.delay !== want.delay || p.reject !== want.reject) {
        problems.push(
          `group ${i} (${JSON.stringify(groups[i])}): planned ${want.admit}/${want.delay}/${want.reject} admit/delay/reject, perturbed ${p.admit}/${p.delay}/${p.reject}`,
        );
      }
    });
  }
  return problems;
}

/** A reply with how late its request left (against its group's planned time) and how long it took. */
export type Timed<R> = R & { lateMs: number; latencyMs: number };

/**
 * Replays every case's groups against a real server: each group's requests leave together at
 * `leadMs + atMs` from now, one `send(caseIndex, group)` each. Waits for every reply and returns
 * them by case and group, each with how late it was sent (a busy machine shows up here) and how
 * long its answer took.
 */
export async function replayTimed<R extends object>(
  cases: ReadonlyArray<{ groups: readonly Group[] }>,
  leadMs: number,
  send: (caseIndex: number, group: Group) => Promise<R>,
): Promise<Array<Array<Array<Timed<R>>>>> {
  const results = cases.map((c) => c.groups.map((): Array<Timed<R>> => []));
  const pending: Array<Promise<void>> = [];
  const timers: Array<ReturnType<typeof setTimeout>> = [];
  const t0 = performance.now() + leadMs;
  cases.forEach((c, ci) => {
    c.groups.forEach((g, gi) => {
      const fire = (): void => {
        for (let i = 0; i < g.count; i += 1) {
          const sentAt = performance.now();
          pending.push(
            send(ci, g).then((r) => {
              results[ci]?.[gi]?.push({
                ...r,
                lateMs: sentAt - t0 - g.atMs,
                latencyMs: performance.now() - sentAt,
              });
            }),
          );
        }
      };
      timers.push(setTimeout(fire, t0 + g.atMs - performance.now()));
    });
  });
  const lastMs = Math.max(...cases.flatMap((c) => c.groups.map((g) => g.atMs)));
  try {
    await new Promise((r) => setTimeout(r, t0 + lastMs - performance.now() + 50));
    await Promise.all(pending);
  } finally {
    timers.forEach(clearTimeout);
  }
  return results;
}
