// Long file on purpose: one check per scenario field, each with its range and message; split by
// field it would scatter the ranges the schema mirrors.
/**
 * Input checks. Every issue names the field's path and the accepted range, so the UI and the URL
 * loader can show exactly what was wrong; `simulate` refuses input with any issue.
 */
import { checkAlgorithmConfig, describeValue, plural } from '../core';
import type { AlgorithmConfig } from '../core';
import {
  MAX_ATTEMPTS,
  MAX_BINS,
  MAX_BURST,
  MAX_CLIENTS,
  MAX_CLOCK_JUMPS,
  MAX_INSTANCES,
  MAX_LANES,
  MAX_MANUAL_TIMES,
  MAX_TRACE_SOURCE_REQUESTS,
  MAX_RATE_PER_SEC,
  MAX_SOURCES,
  MAX_UNTIL_MS,
  MAX_WAIT_MS,
  MIN_RATE_PER_SEC,
  MAX_WEIGHT,
  MAX_SCALE_EVENTS,
  MAX_OUTAGES,
} from './types';
import { isFleet, scaleConfig } from './fleet';
import type { Scenario, ScenarioIssue, SimLimiter } from './types';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Collects issues; each check returns whether the value passed, for cross-field checks. */
class Checker {
  readonly issues: ScenarioIssue[] = [];

  add(path: string, message: string): void {
    this.issues.push({ path, message: `${path} ${message}` });
  }

  int(path: string, value: unknown, min: number, max: number, optional = false): boolean {
    if (value === undefined && optional) return true;
    if (typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max)
      return true;
    this.add(path, `must be a whole number from ${min} to ${max}, got ${describeValue(value)}`);
    return false;
  }

  num(path: string, value: unknown, min: number, max: number): boolean {
    if (typeof value === 'number' && Number.isFinite(value) && value >= min && value <= max)
      return true;
    this.add(path, `must be a number from ${min} to ${max}, got ${describeValue(value)}`);
    return false;
  }

  oneOf(path: string, value: unknown, options: readonly string[], optional = false): boolean {
    if (value === undefined && optional) return true;
    if (typeof value === 'string' && options.includes(value)) return true;
    this.add(
      path,
      `must be one of ${options.map((o) => `'${o}'`).join(', ')}, got ${describeValue(value)}`,
    );
    return false;
  }

  record(path: string, value: unknown): value is Record<string, unknown> {
    if (isRecord(value)) return true;
    this.add(path, `must be an object, got ${describeValue(value)}`);
    return false;
  }

  list(path: string, value: unknown, max: number, what: string): value is unknown[] {
    if (Array.isArray(value) && value.length <= max) return true;
    this.add(path, `must be a list of at most ${max} ${what}, got ${describeValue(value)}`);
    return false;
  }
}

const SOURCE_KINDS = [
  'manual',
  'burst',
  'constant',
  'poisson',
  'on-off',
  'boundary-burst',
  'trace',
];

function checkSource(c: Checker, path: string, s: unknown, clientCount: number | null): void {
  if (!c.record(path, s)) return;
  if (!c.oneOf(`${path}.kind`, s.kind, SOURCE_KINDS)) return;
  // A pinned client must exist: the range follows clients.count.
  c.int(`${path}.client`, s.client, 0, (clientCount ?? MAX_CLIENTS) - 1, true);
  const range = (): void => {
    const okStart = c.int(`${path}.startMs`, s.startMs, 0, MAX_UNTIL_MS);
    const okEnd = c.int(`${path}.endMs`, s.endMs, 1, MAX_UNTIL_MS);
    if (okStart && okEnd && (s.endMs as number) <= (s.startMs as number)) {
      c.add(
        `${path}.endMs`,
        `must be greater than startMs (${String(s.startMs)}), got ${String(s.endMs)}`,
      );
    }
  };
  switch (s.kind) {
    case 'trace':
      if (typeof s.name !== 'string' || s.name.length < 1 || s.name.length > 200) {
        c.add(
          `${path}.name`,
          `must be a file name of 1 to 200 characters, got ${describeValue(s.name)}`,
        );
      }
      c.int(`${path}.bytes`, s.bytes, 0, 2 ** 40);
      c.int(`${path}.requests`, s.requests, 1, MAX_TRACE_SOURCE_REQUESTS);
      // Int32 virtual times (src/trace's MAX_REPLAY_SPAN_MS).
      c.int(`${path}.fromMs`, s.fromMs, 0, 2 ** 31 - 1, true);
      if (typeof s.hash !== 'string' || !/^[0-9a-f]{16}$/.test(s.hash)) {
        c.add(
          `${path}.hash`,
          `must be 16 lowercase hexadecimal digits, got ${describeValue(s.hash)}`,
        );
      }
      break;
    case 'manual': {
      if (c.list(`${path}.timesMs`, s.timesMs, MAX_MANUAL_TIMES, 'times')) {
        const bad = s.timesMs.findIndex(
          (t) => typeof t !== 'number' || !Number.isInteger(t) || t < 0 || t > MAX_UNTIL_MS,
        );
        if (bad >= 0) c.int(`${path}.timesMs[${bad}]`, s.timesMs[bad], 0, MAX_UNTIL_MS);
      }
      break;
    }
    case 'burst':
      c.int(`${path}.atMs`, s.atMs, 0, MAX_UNTIL_MS);
      c.int(`${path}.count`, s.count, 1, MAX_BURST);
      c.int(`${path}.spreadMs`, s.spreadMs, 0, MAX_WAIT_MS, true);
      break;
    case 'constant':
    case 'poisson':
      c.num(`${path}.ratePerSec`, s.ratePerSec, MIN_RATE_PER_SEC, MAX_RATE_PER_SEC);
      range();
      break;
    case 'on-off':
      c.num(`${path}.ratePerSec`, s.ratePerSec, MIN_RATE_PER_SEC, MAX_RATE_PER_SEC);
      c.int(`${path}.onMs`, s.onMs, 1, MAX_WAIT_MS);
      c.int(`${path}.offMs`, s.offMs, 0, MAX_WAIT_MS);
      range();
      break;
    case 'boundary-burst': {
      const okB = c.int(`${path}.boundaryMs`, s.boundaryMs, 1, MAX_UNTIL_MS);
      c.int(`${path}.count`, s.count, 1, MAX_BURST);
      const okS = c.int(`${path}.spreadMs`, s.spreadMs, 0, MAX_WAIT_MS, true);
      const spread = (s.spreadMs as number | undefined) ?? 0;
      if (okB && okS && (s.boundaryMs as number) < spread + 1) {
        c.add(
          `${path}.boundaryMs`,
          `must be at least spreadMs + 1 (${spread + 1}) so the early half starts at 0 or later, got ${String(s.boundaryMs)}`,
        );
      }
      break;
    }
  }
}

/** Every problem with `scenario`, or [] when it can be simulated. Never throws. */
export function validateScenario(scenario: unknown): ScenarioIssue[] {
  const c = new Checker();
  if (!isRecord(scenario)) {
    c.add('scenario', `must be an object, got ${describeValue(scenario)}`);
    return c.issues;
  }
  c.int('seed', scenario.seed, 0, 4294967295);

  let clientCount: number | null = null;
  const clients = scenario.clients;
  if (c.record('clients', clients)) {
    if (c.int('clients.count', clients.count, 1, MAX_CLIENTS))
      clientCount = clients.count as number;
    c.oneOf('clients.keying', clients.keying, ['per-client', 'shared']);
    c.oneOf('clients.assign', clients.assign, ['round-robin', 'random']);
  }

  if (c.list('sources', scenario.sources, MAX_SOURCES, 'traffic sources')) {
    scenario.sources.forEach((s, i) => checkSource(c, `sources[${i}]`, s, clientCount));
    const traces = scenario.sources.filter((s) => isRecord(s) && s.kind === 'trace').length;
    if (traces > 1) {
      c.add('sources', `must replay at most one access log, got ${traces} trace sources`);
    }
  }

  const retry = scenario.retry;
  if (c.record('retry', retry)) {
    c.oneOf('retry.onReject', retry.onReject, ['give-up', 'immediate', 'retry-after', 'backoff']);
    c.int('retry.maxAttempts', retry.maxAttempts, 1, MAX_ATTEMPTS);
    const okBase = c.int('retry.backoffBaseMs', retry.backoffBaseMs, 1, MAX_WAIT_MS);
    const okCap = c.int('retry.backoffCapMs', retry.backoffCapMs, 1, MAX_WAIT_MS);
    if (okBase && okCap && (retry.backoffCapMs as number) < (retry.backoffBaseMs as number)) {
      c.add(
        'retry.backoffCapMs',
        `must be at least backoffBaseMs (${String(retry.backoffBaseMs)}), got ${String(retry.backoffCapMs)}`,
      );
    }
    c.int('retry.turnaroundMs', retry.turnaroundMs, 0, MAX_WAIT_MS);
  }

  const dep = scenario.deployment;
  if (c.record('deployment', dep)) {
    c.int('deployment.instances', dep.instances, 1, MAX_INSTANCES);
    c.oneOf('deployment.balancer', dep.balancer, BALANCERS);
    c.oneOf('deployment.state', dep.state, STATES);
    c.int('deployment.roundTripMs', dep.roundTripMs, 0, MAX_WAIT_MS);
    if (dep.fleet !== undefined) checkFleet(c, dep.fleet, dep.instances);
    const racy = racyFleetProblem(dep);
    if (racy !== null) c.add('deployment.state', racy);
  }

  const clock = scenario.clock;
  if (c.record('clock', clock)) {
    c.oneOf('clock.mode', clock.mode, ['monotonic', 'wall']);
    if (c.list('clock.jumps', clock.jumps, MAX_CLOCK_JUMPS, 'jumps')) {
      clock.jumps.forEach((j, i) => {
        const path = `clock.jumps[${i}]`;
        if (!c.record(path, j)) return;
        c.int(`${path}.atMs`, j.atMs, 0, MAX_UNTIL_MS);
        if (j.byMs === 0) c.add(`${path}.byMs`, 'must not be 0 (a jump moves the clock)');
        else c.int(`${path}.byMs`, j.byMs, -MAX_UNTIL_MS, MAX_UNTIL_MS);
      });
    }
  }

  if (scenario.metrics !== undefined && c.record('metrics', scenario.metrics)) {
    c.int('metrics.windowMs', scenario.metrics.windowMs, 1, MAX_UNTIL_MS, true);
    c.int('metrics.binMs', scenario.metrics.binMs, 1, MAX_UNTIL_MS, true);
  }
  return c.issues;
}

const BALANCERS = ['round-robin', 'random', 'least-outstanding', 'hash', 'weighted'];
const STATES = ['local', 'shared-atomic', 'shared-racy', 'local-divided', 'layered'];

/** Fleet settings: each message names the field and the accepted range. */
function checkFleet(c: Checker, fleet: unknown, instances: unknown): void {
  if (!c.record('deployment.fleet', fleet)) return;
  const n0 = typeof instances === 'number' ? instances : 1;
  if (
    fleet.weights !== undefined &&
    c.list('deployment.fleet.weights', fleet.weights, MAX_INSTANCES, 'weights')
  ) {
    const ok = fleet.weights.every((w, i) =>
      c.int(`deployment.fleet.weights[${i}]`, w, 0, MAX_WEIGHT),
    );
    if (ok) {
      const counts = [
        n0,
        ...(Array.isArray(fleet.scale)
          ? fleet.scale.map((e) => (isRecord(e) ? e.instances : n0))
          : []),
      ];
      for (const n of counts) {
        if (typeof n !== 'number') continue;
        let sum = 0;
        for (let i = 0; i < n; i += 1) sum += (fleet.weights[i] as number | undefined) ?? 1;
        if (sum === 0) {
          c.add(
            'deployment.fleet.weights',
            `must give the ${plural(n, 'replica')} in use a total weight of at least 1 (each 0 – ${MAX_WEIGHT}), got a sum of 0`,
          );
          break;
        }
      }
    }
  }
  if (fleet.service !== undefined && c.record('deployment.fleet.service', fleet.service)) {
    c.oneOf('deployment.fleet.service.kind', fleet.service.kind, [
      'fixed',
      'uniform',
      'exponential',
    ]);
    c.int('deployment.fleet.service.meanMs', fleet.service.meanMs, 0, MAX_WAIT_MS);
  }
  if (
    fleet.scale !== undefined &&
    c.list('deployment.fleet.scale', fleet.scale, MAX_SCALE_EVENTS, 'scale events')
  ) {
    fleet.scale.forEach((e, i) => {
      const path = `deployment.fleet.scale[${i}]`;
      if (!c.record(path, e)) return;
      c.int(`${path}.atMs`, e.atMs, 0, MAX_UNTIL_MS);
      if (typeof e.instances === 'number' && Number.isInteger(e.instances) && e.instances < 1) {
        c.add(
          `${path}.instances`,
          `must be a whole number from 1 to ${MAX_INSTANCES} (a fleet cannot scale in below one replica), got ${e.instances}`,
        );
      } else c.int(`${path}.instances`, e.instances, 1, MAX_INSTANCES);
    });
  }
  const a = fleet.autoscale;
  if (a !== undefined && c.record('deployment.fleet.autoscale', a)) {
    c.num(
      'deployment.fleet.autoscale.perReplicaRps',
      a.perReplicaRps,
      MIN_RATE_PER_SEC,
      MAX_RATE_PER_SEC,
    );
    c.int('deployment.fleet.autoscale.everyMs', a.everyMs, 1, MAX_WAIT_MS);
    const okMin = c.int('deployment.fleet.autoscale.min', a.min, 1, MAX_INSTANCES);
    if (okMin) c.int('deployment.fleet.autoscale.max', a.max, a.min as number, MAX_INSTANCES);
    c.oneOf('deployment.fleet.autoscale.on', a.on, ['passed', 'offered'], true);
  }
  const st = fleet.store;
  if (st !== undefined && c.record('deployment.fleet.store', st)) {
    const p = 'deployment.fleet.store';
    c.int(`${p}.rttMs`, st.rttMs, 0, MAX_WAIT_MS);
    c.int(`${p}.jitterMs`, st.jitterMs, 0, MAX_WAIT_MS);
    c.int(`${p}.timeoutMs`, st.timeoutMs, 1, MAX_WAIT_MS, true);
    c.int(`${p}.syncMs`, st.syncMs, 1, MAX_WAIT_MS, true);
    c.oneOf(`${p}.onDown`, st.onDown, ['open', 'closed', 'local']);
    c.oneOf(`${p}.kong`, st.kong, ['cluster', 'redis'], true);
    if (st.kong !== undefined && st.syncMs !== undefined) {
      c.add(`${p}.syncMs`, "cannot be used with a Kong policy (Kong's sync_rate is not modelled)");
    }
    if (st.downStatus !== undefined && st.downStatus !== 429 && st.downStatus !== 500) {
      c.add(`${p}.downStatus`, `must be 429 or 500, got ${describeValue(st.downStatus)}`);
    }
    if (st.cacheOverLimit !== undefined && typeof st.cacheOverLimit !== 'boolean') {
      c.add(
        `${p}.cacheOverLimit`,
        `must be true or false, got ${describeValue(st.cacheOverLimit)}`,
      );
    }
    if (c.list(`${p}.outages`, st.outages, MAX_OUTAGES, 'outage windows')) {
      st.outages.forEach((o, i) => {
        const path = `${p}.outages[${i}]`;
        if (!c.record(path, o)) return;
        if (c.int(`${path}.fromMs`, o.fromMs, 0, MAX_UNTIL_MS - 1))
          c.int(`${path}.toMs`, o.toMs, (o.fromMs as number) + 1, MAX_UNTIL_MS);
      });
    }
  }
}

/** Every problem with the limiters of a comparison. */
export function validateLimiters(limiters: unknown): ScenarioIssue[] {
  const c = new Checker();
  if (!Array.isArray(limiters) || limiters.length === 0 || limiters.length > MAX_LANES) {
    c.add(
      'limiters',
      `must be a list of 1 to ${MAX_LANES} limiters, got ${describeValue(limiters)}`,
    );
    return c.issues;
  }
  limiters.forEach((l, i) => {
    const path = `limiters[${i}]`;
    let config: unknown = l;
    if (isRecord(l) && !('kind' in l)) {
      if (typeof l.name !== 'string' || l.name.length === 0 || l.name.length > 60) {
        c.add(`${path}.name`, `must be a text of 1 to 60 characters, got ${describeValue(l.name)}`);
      }
      config = l.config;
      for (const issue of checkAlgorithmConfig(config)) {
        c.issues.push({
          path: `${path}.config.${issue.field}`,
          message: `${path}.config: ${issue.message}`,
        });
      }
      return;
    }
    for (const issue of checkAlgorithmConfig(config)) {
      c.issues.push({ path: `${path}.${issue.field}`, message: `${path}: ${issue.message}` });
    }
  });
  return c.issues;
}

/**
 * Every problem with a whole run: the limiters, the scenario, `untilMs`, and what depends on more
 * than one of them (the number of metric bins).
 */
export function validateRun(
  limiters: unknown,
  scenario: unknown,
  untilMs: unknown,
): ScenarioIssue[] {
  const c = new Checker();
  c.int('untilMs', untilMs, 1, MAX_UNTIL_MS);
  const issues = [...validateLimiters(limiters), ...validateScenario(scenario), ...c.issues];
  if (issues.length > 0) return issues;
  const sc = scenario as Scenario;
  // Fleet checks that need the run length or the limiters.
  for (const [i, o] of (sc.deployment.fleet?.store?.outages ?? []).entries()) {
    if (o.toMs - o.fromMs > (untilMs as number)) {
      issues.push({
        path: `deployment.fleet.store.outages[${i}].toMs`,
        message: `deployment.fleet.store.outages[${i}].toMs must be from ${o.fromMs + 1} to ${o.fromMs + (untilMs as number)}: an outage cannot be longer than the run (${String(untilMs)} ms), got ${o.toMs}`,
      });
    }
  }
  if (isFleet(sc.deployment)) {
    const n = sc.deployment.instances;
    (limiters as SimLimiter[]).forEach((l, i) => {
      const cfg = configOf(l);
      // The per-replica limit (÷ N) must be a valid limiter; the fleet's global limit (× N for
      // 'local') is only measured against, and skipped when past the core's ranges.
      const bad = checkAlgorithmConfig(scaleConfig(cfg, 1, n))[0];
      if (bad !== undefined) {
        issues.push({
          path: 'deployment.instances',
          message: `deployment.instances: with limiters[${i}], the per-replica limit (÷ ${n}) is out of range: ${bad.message}`,
        });
      }
    });
  }
  const binMs = sc.metrics?.binMs;
  if (binMs !== undefined && Math.ceil((untilMs as number) / binMs) > MAX_BINS) {
    const min = Math.ceil((untilMs as number) / MAX_BINS);
    issues.push({
      path: 'metrics.binMs',
      message: `metrics.binMs must be at least ${min} for a run of ${String(untilMs)} ms (at most ${MAX_BINS} bins), got ${binMs}`,
    });
  }
  return issues;
}

/** Thrown by `simulate` for invalid input; `issues` lists every problem. */
export class SimulationInputError extends RangeError {
  constructor(readonly issues: readonly ScenarioIssue[]) {
    super(`Invalid simulation input: ${issues.map((i) => i.message).join('; ')}`);
    this.name = 'SimulationInputError';
  }
}

/** The config of a comparison entry. */
export function configOf(limiter: SimLimiter): AlgorithmConfig {
  return 'kind' in limiter ? limiter : limiter.config;
}

/**
 * Why a deployment's state does not go with its fleet, or null: 'shared-racy' (a read-then-write
 * with a round trip) is modelled without fleet balancers, fleet settings or a divided or layered
 * state. The link's schema (src/config/schema.ts) and the simulator's own check both say this.
 */
export function racyFleetProblem(dep: {
  fleet?: unknown;
  balancer?: unknown;
  state?: unknown;
}): string | null {
  const fleetOn =
    dep.fleet !== undefined ||
    (typeof dep.balancer === 'string' && !['round-robin', 'random'].includes(dep.balancer)) ||
    dep.state === 'local-divided' ||
    dep.state === 'layered';
  return fleetOn && dep.state === 'shared-racy'
    ? 'must be local, shared-atomic, local-divided or layered with fleet balancers or fleet settings (shared-racy is modelled without them)'
    : null;
}
