/**
 * `rate-limit-lab probe <url> --link '<lab link>'`: builds the link's validation plan, prints it,
 * asks before sending (unless --yes), sends it to the URL with the runner, writes the result file
 * and prints the verdict and the diagnosis. `rate-limit-lab verdict <file>` judges a result file
 * again. Node only (the package's bin, through ./bin.js); never part of the page.
 *
 * Exit status: 0 as configured, 1 not as configured, 2 no verdict (errors, a stopped run, a
 * gateway too slow to judge), 3 nothing sent (a bad argument, a plan over the caps, no consent).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline/promises';
import { parseArgs } from 'node:util';
import { plural } from '../../core';
import { parseDuration } from '../../config';
import { decodeConfig } from '../../config/url';
import type { KeyMode, PlanLimits } from '../plan';
import {
  DEFAULT_PLAN_LIMITS,
  buildPlan,
  defaultKeyMode,
  describePlan,
  keyModeText,
  parseKeyMode,
  subjectOf,
} from '../plan';
import type { ProbeResult, RunEnd } from '../result';
import { readResult, resultText } from '../result';
import type { Verdict } from '../verdict';
import { judge } from '../verdict';
import { checkTarget, isLoopback, runPlan } from './runner';

/** Caps a run may not pass unless raised by a flag. */
export const DEFAULT_MAX_REQUESTS = 1000;
export const DEFAULT_MAX_DURATION_MS = 60_000;

const USAGE = `Usage:
  rate-limit-lab probe <url> --link '<lab link>' [options]   send the link's validation plan to <url>
  rate-limit-lab verdict <result.json>                        judge a result file again

Options of probe:
  --link <link>          the lab link (or its query) whose limiter is checked (required)
  --lane <n>             which limiter of the link (default 1)
  --key <how>            how the gateway tells clients apart: header:<Name> (e.g. header:X-Forwarded-For),
                         address (each key from its own 127.0.0.x, on this machine only) or none
                         (default: the system's own: address, none for Envoy's local_ratelimit)
  --out <file>           where to write the result (default probe-result-<time>.json)
  --yes                  send without asking
  --plan-only            print the plan and stop
  --timeout <duration>   a request with no answer within this fails (default 10s)
  --max-requests <n>     refuse a plan of more requests (default ${DEFAULT_MAX_REQUESTS})
  --max-duration <d>     refuse a plan that lasts longer (default ${DEFAULT_MAX_DURATION_MS / 1000}s)
  --max-burst <n>        largest burst the plan may send at once (default ${DEFAULT_PLAN_LIMITS.maxBurst})
  --max-rate <n>         highest steady rate, requests/s (default ${DEFAULT_PLAN_LIMITS.maxRatePerSec})
  --max-pause <d>        longest pause for the state to refill (default ${DEFAULT_PLAN_LIMITS.maxPauseMs / 1000}s)
  --max-steady <d>       longest steady phase (default ${DEFAULT_PLAN_LIMITS.maxSteadyMs / 1000}s)

Only <url> is ever sent to, over http or https. Durations: 500ms, 10s, 2m.
Exit status: 0 as configured, 1 not as configured, 2 no verdict, 3 nothing sent.`;

/** Where the command writes: stdout and stderr, replaceable in tests. */
export interface Io {
  out: (line: string) => void;
  err: (line: string) => void;
  /** Asks a yes/no question; null when there is no terminal to ask. */
  ask: ((question: string) => Promise<boolean>) | null;
}

class UsageError extends Error {}

function whole(name: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  if (!/^\d{1,9}$/.test(text) || Number(text) < 1) {
    throw new UsageError(`--${name} must be a whole number from 1, got "${text.slice(0, 40)}"`);
  }
  return Number(text);
}

function duration(name: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const ms = parseDuration(text);
  if (ms === null || ms <= 0 || ms > 86_400_000) {
    throw new UsageError(
      `--${name} must be a duration such as 500ms, 10s or 2m, got "${text.slice(0, 40)}"`,
    );
  }
  return ms;
}

/** The verdict as lines for a terminal. */
export function verdictLines(v: Verdict): string[] {
  const mark = { ok: '✓', differs: '✗', inconclusive: '?', note: '·' } as const;
  return [
    v.headline,
    ...v.findings.map((f) => `  ${mark[f.status]} ${f.text}`),
    `Diagnosis (${plural(v.diagnosis.searched, 'configuration')} searched): ${v.diagnosis.summary}`,
    ...v.diagnosis.explanations
      .slice(0, 3)
      .filter((e) => e.distance > 0)
      .map((e) => `  - ${e.text}`),
    `Timing: sent within ${v.timing.sendErrorP95Ms.toFixed(2)} ms of plan (p95); an answer within ${v.timing.toleranceMs} ms counts as not held (median ${v.timing.medianMs.toFixed(1)} ms).`,
  ];
}

function exitOf(v: Verdict): number {
  return v.overall === 'as-configured' ? 0 : v.overall === 'differs' ? 1 : 2;
}

function stamp(ms: number): string {
  const d = new Date(ms);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${d.getUTCFullYear()}${two(d.getUTCMonth() + 1)}${two(d.getUTCDate())}-${two(d.getUTCHours())}${two(d.getUTCMinutes())}${two(d.getUTCSeconds())}`;
}

/** Runs the command line; resolves with the exit status. */
export async function main(
  argv: readonly string[],
  io: Io,
  version: string,
  signal?: AbortSignal & { reason?: unknown },
): Promise<number> {
  let args: ReturnType<typeof parse>;
  try {
    args = parse(argv);
  } catch (e) {
    io.err(e instanceof Error ? e.message : String(e));
    io.err(USAGE);
    return 3;
  }
  if (args.values.help === true || args.positionals.length === 0) {
    io.out(USAGE);
    return args.values.help === true ? 0 : 3;
  }
  const [command, target, ...rest] = args.positionals;
  try {
    if (rest.length > 0) throw new UsageError(`unexpected argument "${rest[0]?.slice(0, 80)}"`);
    if (command === 'verdict') {
      if (target === undefined) throw new UsageError('verdict needs a result file');
      let text: string;
      try {
        text = readFileSync(target, 'utf8');
      } catch (e) {
        io.err(`Cannot read ${target}: ${e instanceof Error ? e.message : String(e)}`);
        return 3;
      }
      const read = readResult(text, target);
      if (!read.ok) {
        io.err(read.message);
        return 3;
      }
      const v = judge(read.opened.plan, read.opened.result);
      for (const line of verdictLines(v)) io.out(line);
      return exitOf(v);
    }
    if (command !== 'probe')
      throw new UsageError(`unknown command "${String(command).slice(0, 40)}"`);
    if (target === undefined) throw new UsageError('probe needs the URL to send to');
    return await probe(target, args.values, io, version, signal);
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(e.message);
      io.err('Run `rate-limit-lab --help` for the options.');
      return 3;
    }
    throw e;
  }
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      link: { type: 'string' },
      lane: { type: 'string' },
      key: { type: 'string' },
      out: { type: 'string' },
      yes: { type: 'boolean', short: 'y' },
      'plan-only': { type: 'boolean' },
      timeout: { type: 'string' },
      'max-requests': { type: 'string' },
      'max-duration': { type: 'string' },
      'max-burst': { type: 'string' },
      'max-rate': { type: 'string' },
      'max-pause': { type: 'string' },
      'max-steady': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

type Values = ReturnType<typeof parse>['values'];

async function probe(
  target: string,
  values: Values,
  io: Io,
  version: string,
  signal?: AbortSignal,
): Promise<number> {
  const checked = checkTarget(target);
  if ('error' in checked) throw new UsageError(checked.error);
  const { url } = checked;
  if (values.link === undefined)
    throw new UsageError('--link is required: the lab link whose limiter to check');
  const link = values.link;
  const decoded = decodeConfig(link);
  if (decoded.errors.length > 0) {
    io.err('The link does not open as written, so its plan would not be the one you meant:');
    for (const e of decoded.errors.slice(0, 10)) io.err(`  ${e.message}`);
    return 3;
  }
  const lane = whole('lane', values.lane, 1) - 1;
  const subject = subjectOf(decoded.config, lane);
  if (typeof subject === 'string') throw new UsageError(`The link: ${subject}.`);
  let key: KeyMode = defaultKeyMode(subject.entry);
  if (values.key !== undefined) {
    const k = parseKeyMode(values.key);
    if (typeof k === 'string') throw new UsageError(`--key: ${k}`);
    key = k;
  }
  const loopback = isLoopback(url.hostname);
  const keySlots = key.kind === 'none' || (key.kind === 'address' && !loopback) ? 1 : 4;
  const limits: PlanLimits = {
    maxBurst: whole('max-burst', values['max-burst'], DEFAULT_PLAN_LIMITS.maxBurst),
    maxRatePerSec: whole('max-rate', values['max-rate'], DEFAULT_PLAN_LIMITS.maxRatePerSec),
    maxPauseMs: duration('max-pause', values['max-pause'], DEFAULT_PLAN_LIMITS.maxPauseMs),
    maxSteadyMs: duration('max-steady', values['max-steady'], DEFAULT_PLAN_LIMITS.maxSteadyMs),
  };
  const built = buildPlan(subject, { key, keySlots, limits });
  if (!built.ok) {
    io.err(`No plan: ${built.reason}.`);
    return 3;
  }
  const plan = built.plan;
  const maxRequests = whole('max-requests', values['max-requests'], DEFAULT_MAX_REQUESTS);
  const maxDurationMs = duration('max-duration', values['max-duration'], DEFAULT_MAX_DURATION_MS);
  const timeoutMs = duration('timeout', values.timeout, 10_000);
  for (const line of describePlan(plan)) io.out(line);
  io.out(`Target: ${url.href} (key ${keyModeText(key)})`);
  if (plan.requests.length > maxRequests) {
    io.err(
      `Not sending: the plan has ${plural(plan.requests.length, 'request')}, more than --max-requests ${maxRequests}.`,
    );
    return 3;
  }
  if (plan.durationMs > maxDurationMs) {
    io.err(
      `Not sending: the plan lasts ${(plan.durationMs / 1000).toFixed(1)} s, longer than --max-duration ${maxDurationMs / 1000}s.`,
    );
    return 3;
  }
  if (values['plan-only'] === true) return 0;
  if (values.yes !== true) {
    if (io.ask === null) {
      io.err('Not sending: there is no terminal to ask; add --yes to send without asking.');
      return 3;
    }
    const yes = await io.ask(
      `Send ${plural(plan.requests.length, 'request')} to ${url.href} over ${(plan.durationMs / 1000).toFixed(1)} s? [y/N] `,
    );
    if (!yes) {
      io.err('Nothing sent.');
      return 3;
    }
  }
  let stop: RunEnd = 'interrupted';
  const controller = new AbortController();
  signal?.addEventListener('abort', () => controller.abort());
  // The run's own cap: the plan's length plus the answers' timeout, however late the clock ran.
  const cap = setTimeout(
    () => {
      stop = 'duration-cap';
      controller.abort();
    },
    plan.durationMs + timeoutMs + 5000,
  );
  let result: ProbeResult;
  try {
    result = await runPlan({
      url,
      plan,
      link,
      timeoutMs,
      signal: controller.signal,
      stopReason: () => stop,
      version,
    });
  } finally {
    clearTimeout(cap);
  }
  const file = values.out ?? `probe-result-${stamp(result.epochStartMs)}.json`;
  writeFileSync(file, resultText(result));
  io.out(
    `Result written to ${file} (${result.requests.length} of ${plural(plan.requests.length, 'request')}).`,
  );
  const v = judge(plan, result);
  for (const line of verdictLines(v)) io.out(line);
  io.out(
    'Open the result in the lab (Export & import → Check a live gateway → Open a result file) to see it request by request.',
  );
  return exitOf(v);
}

/** Runs in a terminal: real streams, Ctrl-C stops the run (twice quits at once). */
export async function cli(argv: readonly string[], version: string): Promise<number> {
  const controller = new AbortController();
  let interrupts = 0;
  const onInt = () => {
    interrupts += 1;
    if (interrupts > 1) process.exit(130);
    process.stderr.write(
      '\nStopping: nothing more is sent; waiting for the answers in flight (Ctrl-C again quits at once)…\n',
    );
    controller.abort();
  };
  process.on('SIGINT', onInt);
  const ask = process.stdin.isTTY
    ? async (question: string) => {
        const rl = createInterface({ input: process.stdin, output: process.stdout });
        try {
          return /^y(es)?$/i.test((await rl.question(question)).trim());
        } finally {
          rl.close();
        }
      }
    : null;
  try {
    return await main(
      argv,
      {
        out: (l) => process.stdout.write(`${l}\n`),
        err: (l) => process.stderr.write(`${l}\n`),
        ask,
      },
      version,
      controller.signal,
    );
  } finally {
    process.off('SIGINT', onInt);
  }
}
