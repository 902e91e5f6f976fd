/**
 * Input checks. Every issue names the field's path and the accepted range, so the UI and the URL
 * loader can show exactly what was wrong; `simulate` refuses input with any issue.
 */
import { checkAlgorithmConfig, describeValue } from '../core';
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
  MAX_RATE_PER_SEC,
  MAX_SOURCES,
  MAX_UNTIL_MS,
  MAX_WAIT_MS,
  MIN_RATE_PER_SEC,
} from './types';
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

const SOURCE_KINDS = ['manual', 'burst', 'constant', 'poisson', 'on-off', 'boundary-burst'];

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
    c.oneOf('deployment.balancer', dep.balancer, ['round-robin', 'random']);
    c.oneOf('deployment.state', dep.state, ['local', 'shared-atomic', 'shared-racy']);
    c.int('deployment.roundTripMs', dep.roundTripMs, 0, MAX_WAIT_MS);
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
  const binMs = (scenario as Scenario).metrics?.binMs;
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
