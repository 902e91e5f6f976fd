/**
 * What every probe proof does: build the plan of a lab link, send it to a real gateway with the
 * runner, read the result file back as the page and the command line do, and judge it.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import type { LeakyBucketConfig } from '../../src/core';
import { decodeConfig } from '../../src/config/url';
import { toNginx } from '../../src/export';
import type { NginxOptions } from '../../src/export';
import type { KeyMode, Plan, ProbeResult, Verdict } from '../../src/probe';
import { buildPlan, judge, readResult, resultText, subjectOf } from '../../src/probe';
import { runPlan } from '../../src/probe/cli/runner';
import { verdictLines } from '../../src/probe/cli/main';

export interface Probed {
  plan: Plan;
  result: ProbeResult;
  verdict: Verdict;
}

/** The plan of lane 0 of `link` for `key` (4 keys on loopback). */
export function planFor(link: string, key: KeyMode): Plan {
  const decoded = decodeConfig(link);
  expect(decoded.errors, `the test link ${link} opens as written`).toEqual([]);
  const subject = subjectOf(decoded.config, 0);
  if (typeof subject === 'string') throw new Error(subject);
  const built = buildPlan(subject, { key, keySlots: key.kind === 'none' ? 1 : 4 });
  if (!built.ok) throw new Error(built.reason);
  return built.plan;
}

/** Sends the plan of `link` to `url`, reads the written result back, and judges it. */
export async function probe(
  url: string,
  link: string,
  key: KeyMode,
  label: string,
): Promise<Probed> {
  const plan = planFor(link, key);
  const sent = await runPlan({ url: new URL(url), plan, link, timeoutMs: 10_000, version: 'test' });
  // Through the file, as a person would hand it over.
  const text = resultText(sent);
  // RLL_PROBE_DUMP=<folder> keeps every result file (to open in the page, or to look into).
  const dump = process.env.RLL_PROBE_DUMP;
  if (dump !== undefined && dump !== '') {
    writeFileSync(path.join(dump, `${label.replace(/[^a-z0-9]+/gi, '-')}.json`), text);
  }
  const read = readResult(text, `${label}.json`);
  if (!read.ok) throw new Error(read.message);
  const verdict = judge(read.opened.plan, read.opened.result);
  console.info(
    `[${label}] ${plan.requests.length} requests, ${(plan.durationMs / 1000).toFixed(1)} s\n  ${verdictLines(verdict).join('\n  ')}`,
  );
  return { plan, result: read.opened.result, verdict };
}

/**
 * Sent later than this (p95, ms) the harness was late: the runner keeps within ~2 ms of the plan on
 * an idle machine (`npm run bench`), and a busy one delays its sends by tens of ms.
 */
export const LATE_MS = 10;

/**
 * A run whose answers not held may take longer than this (ms) was on a busy machine: a limiter
 * rejects at once, and on loopback its answers come within tens of ms.
 */
export const SLOW_ANSWERS_MS = 200;

/**
 * Whether the run was too uneven for its timing to be judged exactly: the verdict says so, in its
 * timing check, by finding that the run's unevenness explains its differences, or by a diagnosis
 * that needed the unevenness allowed for; or the harness sent late, or answers came slowly.
 */
export function uneven(v: Verdict): boolean {
  return (
    v.timing.sendErrorP95Ms > LATE_MS ||
    v.timing.toleranceMs > SLOW_ANSWERS_MS ||
    v.diagnosis.summary.startsWith('Allowing ') ||
    v.findings.some(
      (f) => (f.check === 'timing' || f.check === 'decisions') && f.status === 'inconclusive',
    )
  );
}

/**
 * Probes and checks (`check` throws when the run is not what the test wants). A run too uneven to
 * time (this machine was busy: see `uneven`) is probed again, up to `attempts` runs, after a pause
 * that lets the gateway's state refill; a run that was timed well must pass at once. When every
 * run was late, the harness knows it was late: it says so loudly and does not fail the suite.
 */
export async function probeUntil(
  url: string,
  link: string,
  key: KeyMode,
  label: string,
  check: (p: Probed) => void,
  attempts = 3,
): Promise<Probed> {
  for (let n = 1; ; n += 1) {
    const run = await probe(url, link, key, n === 1 ? label : `${label}, run ${n}`);
    try {
      check(run);
      return run;
    } catch (e) {
      if (!uneven(run.verdict)) throw e;
      if (n >= attempts) {
        console.warn(
          `!! ${label}: NOT JUDGED — all ${attempts} runs were too uneven to time (sent within ${run.verdict.timing.sendErrorP95Ms.toFixed(1)} ms of plan, p95; a busy machine). Its check failed on that run: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`,
        );
        return run;
      }
      console.warn(`!! ${label}: the run was too uneven to time (a busy machine); probing again`);
      await new Promise((r) => setTimeout(r, 3000));
    }
  }
}

/** The lines of the nginx export for the http { } block, the location and the server. */
export function nginxExport(
  config: LeakyBucketConfig,
  options: NginxOptions,
): { http: string[]; location: string[]; server: string[] } {
  const out = toNginx(config, options);
  if (!out.ok) throw new Error(out.reason);
  const parts = { http: [] as string[], location: [] as string[], server: [] as string[] };
  let part: keyof typeof parts = 'location';
  for (const line of out.text.split('\n')) {
    if (line.startsWith('# In the http')) part = 'http';
    else if (line.startsWith('# In the server { } or location')) part = 'location';
    else if (line.startsWith('# In the same server')) part = 'server';
    else if (line.trim() !== '' && !line.startsWith('#')) parts[part].push(line);
  }
  return parts;
}

/** The findings of a verdict that differ, as text (for assertion messages). */
export function differing(v: Verdict): string[] {
  return v.findings.filter((f) => f.status !== 'ok' && f.status !== 'note').map((f) => f.text);
}

/** A correct setup: "as configured", observed = expected request by request. */
export function expectAsConfigured(p: Probed): void {
  const v = p.verdict;
  expect(p.result.requests, 'every planned request was sent').toHaveLength(p.plan.requests.length);
  expect(differing(v)).toEqual([]);
  expect(v.overall).toBe('as-configured');
  expect(v.diagnosis.configuredExplains).toBe(true);
  expect(v.expected.every((e) => e?.fit === true)).toBe(true);
}

/** A planted fault: not "as configured", and the diagnosis's first explanation is `text`. */
export function expectDiagnosis(p: Probed, text: string): void {
  const v = p.verdict;
  expect(v.overall).not.toBe('as-configured');
  expect(v.diagnosis.configuredExplains).toBe(false);
  expect(v.diagnosis.explanations.map((e) => e.text)[0]).toBe(text);
}
