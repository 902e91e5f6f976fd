/**
 * The result file a probe run writes (the command line, or the page's own run): what was sent
 * when, what came back, and the link and options of the plan it ran, so a verdict can be made
 * again anywhere. Reading one checks everything: its shape (valibot), its checksum (an edited or
 * damaged file says so), and that each request is the plan's.
 *
 * Pure: the runner supplies the times; this module only builds, seals and reads the JSON.
 */
import * as v from 'valibot';
import { plural, quoteText, safeText } from '../core';
import { fingerprint } from './hash';
import { decodeConfig } from '../config/url';
import type { KeyMode, Plan, PlanLimits } from './plan';
import { DEFAULT_PLAN_LIMITS, HEADER_NAME, buildPlan, subjectOf } from './plan';

/** The `format` field every result file starts with. */
export const RESULT_FORMAT = 'rate-limit-lab/probe-result';
export const RESULT_VERSION = 1;
/** Largest result file read, in characters (a plan holds at most a few thousand requests). */
export const MAX_RESULT_CHARS = 20_000_000;
/** Headers kept per response, and characters per header value. */
export const MAX_HEADERS = 40;
export const MAX_HEADER_VALUE = 300;

/** Why a request got no response. */
export type RequestError = 'timeout' | 'reset' | 'refused' | 'not-sent' | 'other';

/** One request as sent and answered. */
export interface ObservedRequest {
  /** The plan's index of this request. */
  i: number;
  /** When it was handed to the network, ms since the run's start (sub-ms precision). */
  sentMs: number;
  /** When the response's status line arrived, ms since the run's start; null without one. */
  firstByteMs: number | null;
  /** The status, or null without a response. */
  status: number | null;
  /** Response header fields, names lower-cased, in the order received (bounded). */
  headers: Array<[string, string]>;
  /** What went wrong when there is no response. */
  error: RequestError | null;
  /** The error's own words (bounded), for the person. */
  detail?: string;
}

/** How the run ended. */
export type RunEnd = 'complete' | 'interrupted' | 'duration-cap' | 'request-cap';

/** A result file's content. */
export interface ProbeResult {
  format: typeof RESULT_FORMAT;
  version: typeof RESULT_VERSION;
  /** The lab link whose limiter was probed, and which limiter (0-based). */
  link: string;
  lane: number;
  /** The plan's key mode and slots, limits, and hash. */
  plan: { hash: string; key: KeyMode; keySlots: number; limits: PlanLimits; count: number };
  /** Where the requests went. */
  target: { url: string; method: 'GET' | 'HEAD' };
  /** Who sent them: the command line (Node) or the page (a browser; cross-origin hides headers). */
  runner: { kind: 'cli' | 'page'; version: string; crossOrigin: boolean };
  /** The wall-clock time (ms since 1970) at the run's start, to sub-ms precision. */
  epochStartMs: number;
  end: RunEnd;
  requests: ObservedRequest[];
  /** `fingerprint` of the file's JSON without this field: an edit shows. */
  digest: string;
}

const finite = v.pipe(v.number(), v.finite());
const KeyModeSchema = v.variant('kind', [
  v.object({ kind: v.literal('header'), name: v.pipe(v.string(), v.regex(HEADER_NAME)) }),
  v.object({ kind: v.literal('address') }),
  v.object({ kind: v.literal('none') }),
]);
const whole = (min: number, max: number) =>
  v.pipe(v.number(), v.integer(), v.minValue(min), v.maxValue(max));

const RequestSchema = v.object({
  i: whole(0, 1_000_000),
  sentMs: v.pipe(finite, v.minValue(-1), v.maxValue(86_400_000)),
  firstByteMs: v.nullable(v.pipe(finite, v.minValue(0), v.maxValue(86_400_000))),
  status: v.nullable(whole(100, 599)),
  // [name, value] pairs. (Written without valibot's tuple and optional: the page's first chunk
  // holds every valibot function any part uses, and these would be new there.)
  headers: v.pipe(
    v.array(
      v.pipe(
        v.array(v.pipe(v.string(), v.maxLength(MAX_HEADER_VALUE))),
        v.minLength(2),
        v.maxLength(2),
      ),
    ),
    v.maxLength(MAX_HEADERS),
  ),
  error: v.nullable(v.picklist(['timeout', 'reset', 'refused', 'not-sent', 'other'])),
  detail: v.exactOptional(v.pipe(v.string(), v.maxLength(MAX_HEADER_VALUE))),
});

const ResultSchema = v.object({
  format: v.literal(RESULT_FORMAT),
  version: v.literal(RESULT_VERSION),
  link: v.pipe(v.string(), v.maxLength(8000)),
  lane: whole(0, 11),
  plan: v.object({
    hash: v.pipe(v.string(), v.regex(/^[0-9a-f]{16}$/)),
    key: KeyModeSchema,
    keySlots: whole(1, 8),
    limits: v.object({
      maxBurst: whole(1, 100_000),
      maxRatePerSec: whole(1, 100_000),
      maxPauseMs: whole(0, 86_400_000),
      maxSteadyMs: whole(0, 86_400_000),
    }),
    count: whole(0, 1_000_000),
  }),
  target: v.object({
    url: v.pipe(v.string(), v.maxLength(2000)),
    method: v.picklist(['GET', 'HEAD']),
  }),
  runner: v.object({
    kind: v.picklist(['cli', 'page']),
    version: v.pipe(v.string(), v.maxLength(40)),
    crossOrigin: v.boolean(),
  }),
  epochStartMs: v.pipe(finite, v.minValue(0), v.maxValue(1e14)),
  end: v.picklist(['complete', 'interrupted', 'duration-cap', 'request-cap']),
  requests: v.pipe(v.array(RequestSchema), v.maxLength(1_000_000)),
  digest: v.pipe(v.string(), v.regex(/^[0-9a-f]{16}$/)),
});

/** The fingerprint of the result's JSON without `digest`, fields in the file's order. */
export function digestOf(result: Omit<ProbeResult, 'digest'> | Record<string, unknown>): string {
  const copy: Record<string, unknown> = { ...result };
  delete copy.digest;
  return fingerprint(JSON.stringify(copy));
}

/** Seals a result: adds its digest (last, so the file reads top to bottom). */
export function sealResult(result: Omit<ProbeResult, 'digest'>): ProbeResult {
  return { ...result, digest: digestOf(result) };
}

/**
 * The sealed result of a run of `plan` (the command line's or the page's): the plan's identity
 * and limits, where it was sent, by which runner, and what each request got (sorted here by plan
 * index).
 */
export function resultOfRun(
  plan: Plan,
  run: {
    link: string;
    url: string;
    method: ProbeResult['target']['method'];
    runner: ProbeResult['runner'];
    epochStartMs: number;
    end: RunEnd;
    requests: ObservedRequest[];
  },
): ProbeResult {
  return sealResult({
    format: RESULT_FORMAT,
    version: RESULT_VERSION,
    link: run.link,
    lane: plan.subject.lane,
    plan: {
      hash: plan.hash,
      key: plan.key,
      keySlots: plan.keySlots,
      limits: plan.limits,
      count: plan.requests.length,
    },
    target: { url: run.url, method: run.method },
    runner: run.runner,
    epochStartMs: run.epochStartMs,
    end: run.end,
    requests: [...run.requests].sort((a, b) => a.i - b.i),
  });
}

/** The JSON text of a result file: one request per line, so it diffs and reads well. */
export function resultText(result: ProbeResult): string {
  const { requests, digest, ...head } = result;
  const top = JSON.stringify(head, null, 2).slice(0, -2);
  const rows = requests.map((r) => `    ${JSON.stringify(r)}`).join(',\n');
  return `${top},\n  "requests": [\n${rows}\n  ],\n  "digest": ${JSON.stringify(digest)}\n}\n`;
}

/** A result read back, with the plan it ran rebuilt from its link. */
export interface OpenedResult {
  result: ProbeResult;
  plan: Plan;
}

/** Reading a result file: the result and its plan, or what is wrong, in words. */
export type ReadOutcome = { ok: true; opened: OpenedResult } | { ok: false; message: string };

/** The plan a result ran, rebuilt from its link and options, or why it cannot be. */
export function planOfResult(
  result: Pick<ProbeResult, 'link' | 'lane' | 'plan'>,
): { ok: true; plan: Plan } | { ok: false; message: string } {
  const decoded = decodeConfig(result.link);
  if (decoded.errors.length > 0) {
    return {
      ok: false,
      message: `The result's link does not open as it was written (${decoded.errors[0]?.message ?? 'invalid'}): it was not made by this version of the lab.`,
    };
  }
  const subject = subjectOf(decoded.config, result.lane);
  if (typeof subject === 'string') return { ok: false, message: `The result's link: ${subject}.` };
  const built = buildPlan(subject, {
    key: result.plan.key,
    keySlots: result.plan.keySlots,
    limits: result.plan.limits,
  });
  if (!built.ok) return { ok: false, message: `The result's plan: ${built.reason}.` };
  return { ok: true, plan: built.plan };
}

/** Where in a JSON text a parse error points, as "line L, column C" when the engine says where. */
function jsonErrorPlace(text: string, error: unknown): string {
  const m = /position (\d+)/.exec(error instanceof Error ? error.message : '');
  if (m === null) return '';
  const pos = Number(m[1]);
  const before = text.slice(0, pos);
  const line = before.split('\n').length;
  const col = pos - before.lastIndexOf('\n');
  return ` at line ${line}, column ${col}`;
}

/**
 * What a schema issue says of the file's value: valibot's own message writes a string it received
 * as it is (any length, any character), so a string from the file is quoted here instead.
 */
function issueText(issue: v.BaseIssue<unknown>): string {
  if (issue.expected === null) return issue.message;
  const got = typeof issue.input === 'string' ? quoteText(issue.input) : issue.received;
  return `${issue.kind === 'schema' ? 'Invalid type' : 'Invalid value'}: expected ${issue.expected}, got ${got}`;
}

/**
 * Reads a result file's text. Every problem is named with where it is: not JSON (truncated:
 * "ends early"), another format, a field out of range, a digest that does not match (edited or
 * damaged), a plan that is not the one its link makes (another plan or another version of the
 * lab), requests that are not the plan's. Never throws.
 */
export function readResult(text: string, fileName = 'the file'): ReadOutcome {
  const name = quoteText(fileName);
  if (text.length > MAX_RESULT_CHARS) {
    return {
      ok: false,
      message: `${name} is ${(text.length / 1e6).toFixed(1)} MB; a probe result is at most ${MAX_RESULT_CHARS / 1e6} MB.`,
    };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    const trimmed = text.trimEnd();
    const truncated = trimmed.length > 0 && !trimmed.endsWith('}');
    return {
      ok: false,
      message: truncated
        ? `${name} ends early${jsonErrorPlace(text, error)}: it was cut off (a run stopped while writing, or a partial download). Run the probe again.`
        : `${name} is not JSON${jsonErrorPlace(text, error)}, so it is not a probe result.`,
    };
  }
  if (
    typeof json !== 'object' ||
    json === null ||
    (json as { format?: unknown }).format !== RESULT_FORMAT
  ) {
    return {
      ok: false,
      message: `${name} is not a probe result (it has no "format": "${RESULT_FORMAT}").`,
    };
  }
  if ((json as { version?: unknown }).version !== RESULT_VERSION) {
    return {
      ok: false,
      message: `${name} is a probe result of version ${quoteText(String((json as { version?: unknown }).version))}; this lab reads version ${RESULT_VERSION}.`,
    };
  }
  const parsed = v.safeParse(ResultSchema, json);
  if (!parsed.success) {
    const issue = parsed.issues[0];
    const path = (issue.path ?? []).map((item) => String(item.key)).join('.');
    const where = path === '' ? 'the file' : safeText(path, 80);
    return {
      ok: false,
      message: `${name} has a bad value at ${where}: ${issueText(issue)}. It was edited or damaged; run the probe again.`,
    };
  }
  const result = parsed.output as ProbeResult;
  if (digestOf(json as Record<string, unknown>) !== result.digest) {
    return {
      ok: false,
      message: `${name} was changed after the run: its checksum does not match its content (an edit, or a damaged copy). The verdict would not be about what the gateway did; run the probe again.`,
    };
  }
  const rebuilt = planOfResult(result);
  if (!rebuilt.ok) return { ok: false, message: rebuilt.message };
  const plan = rebuilt.plan;
  if (plan.hash !== result.plan.hash) {
    return {
      ok: false,
      message: `${name} was made for another plan (${result.plan.hash}) than its link gives here (${plan.hash}): another version of the lab made it. Probe again with this version.`,
    };
  }
  if (result.requests.length > plan.requests.length) {
    return {
      ok: false,
      message: `${name} holds ${plural(result.requests.length, 'request')}; its plan has ${plan.requests.length}.`,
    };
  }
  const seen = new Set<number>();
  for (const r of result.requests) {
    if (r.i >= plan.requests.length || seen.has(r.i)) {
      return {
        ok: false,
        message: `${name} has a request ${r.i} that is not in its plan (or twice).`,
      };
    }
    seen.add(r.i);
    if (r.firstByteMs !== null && r.firstByteMs < r.sentMs) {
      return {
        ok: false,
        message: `${name}: request ${r.i + 1} was answered before it was sent; the file is damaged.`,
      };
    }
    if ((r.status === null) !== (r.error !== null)) {
      return {
        ok: false,
        message: `${name}: request ${r.i + 1} must have either a status or an error; the file is damaged.`,
      };
    }
  }
  return { ok: true, opened: { result, plan } };
}

/** The default limits, for a result made without flags. */
export const RESULT_DEFAULT_LIMITS: PlanLimits = DEFAULT_PLAN_LIMITS;
