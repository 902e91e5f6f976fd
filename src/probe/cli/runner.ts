/**
 * The runner (Node only, never in the page): sends a plan's requests to one URL, each at its
 * planned time on a high-resolution clock, with its key set as the plan says, and records when each
 * left, when its first byte came back, its status and its headers. Bounded: per-request timeout,
 * the plan's own length (a plan over the caps is refused before this runs), and a signal that
 * stops it (Ctrl-C); requests not yet sent when it stops are left out of the result.
 */
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import type { ClientRequest, IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { performance } from 'node:perf_hooks';
import { setImmediate as yieldToLoop, setTimeout as sleep } from 'node:timers/promises';
import type { Plan, PlannedRequest } from '../plan';
import { keyValue } from '../plan';
import type { ObservedRequest, ProbeResult, RequestError, RunEnd } from '../result';
import { MAX_HEADERS, MAX_HEADER_VALUE, resultOfRun } from '../result';

/** Bytes of a response body read before the connection is dropped (the body says nothing). */
const MAX_BODY_BYTES = 64 * 1024;
/** A timer set this close to its time is replaced by yielding to the event loop, then spinning. */
const TIMER_SLACK_MS = 3;
/** The last fraction of a millisecond is waited by spinning on the clock. */
const SPIN_MS = 0.25;

export interface RunOptions {
  /** Where every request goes: http(s) only (checked by `checkTarget`). */
  url: URL;
  plan: Plan;
  /** The lab link and lane the plan came from (written into the result). */
  link: string;
  method?: 'GET' | 'HEAD';
  /** A request with no answer within this is recorded as timed out. Default 10 s. */
  timeoutMs?: number;
  /** Stops the run: nothing more is sent; answers in flight are awaited up to `timeoutMs`. */
  signal?: AbortSignal;
  /** Start on a multiple of the plan's `alignMs` on the wall clock (default true). */
  align?: boolean;
  /** Called after each request is sent. */
  onSent?: (sent: number, total: number) => void;
  /** The runner's version, for the result. */
  version?: string;
  /** Why a stop happened (set by the caller with the signal); default 'interrupted'. */
  stopReason?: () => RunEnd;
}

/** Whether `url` may be probed: http(s), a host, no more. Returns why not, or null. */
export function checkTarget(text: string): { url: URL } | { error: string } {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return {
      error: `"${text.slice(0, 200)}" is not a URL (write it whole: http://host:port/path)`,
    };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { error: `the probe sends only http:// or https:// requests, not ${url.protocol}` };
  }
  if (url.hostname === '') return { error: 'the URL has no host' };
  return { url };
}

/** Whether a host name is this machine (a client can pick its source address among 127.0.0.0/8). */
export function isLoopback(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

function errorKind(e: unknown): RequestError {
  const code = (e as { code?: string }).code;
  if (code === 'ETIMEDOUT' || code === 'PROBE_TIMEOUT') return 'timeout';
  if (code === 'ECONNRESET' || code === 'EPIPE' || code === 'ECONNABORTED') return 'reset';
  if (code === 'ECONNREFUSED') return 'refused';
  return 'other';
}

function bounded(text: string): string {
  return text.length <= MAX_HEADER_VALUE ? text : `${text.slice(0, MAX_HEADER_VALUE - 1)}…`;
}

/** The response's header fields, names lower-cased, in order, bounded. */
function headersOf(res: IncomingMessage): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const raw = res.rawHeaders;
  for (let k = 0; k + 1 < raw.length && out.length < MAX_HEADERS; k += 2) {
    out.push([
      bounded((raw[k] as string).toLowerCase()).slice(0, 100),
      bounded(raw[k + 1] as string),
    ]);
  }
  return out;
}

/** Waits until `performance.now()` reaches `target`: a timer, then the event loop, then a spin. */
async function until(target: number): Promise<void> {
  for (;;) {
    const left = target - performance.now();
    if (left <= 0) return;
    if (left > TIMER_SLACK_MS) await sleep(left - TIMER_SLACK_MS);
    else if (left > SPIN_MS) await yieldToLoop();
    else {
      while (performance.now() < target) {
        // the last fraction of a millisecond
      }
      return;
    }
  }
}

/** Sends the plan and resolves with the sealed result. Never rejects for a network error. */
export async function runPlan(o: RunOptions): Promise<ProbeResult> {
  const { plan, url } = o;
  const timeoutMs = o.timeoutMs ?? 10_000;
  const secure = url.protocol === 'https:';
  const request = secure ? httpsRequest : httpRequest;
  // One pool of kept-alive connections; Node keys it by source address too.
  const agent = secure
    ? new HttpsAgent({ keepAlive: true, maxSockets: Infinity })
    : new HttpAgent({ keepAlive: true, maxSockets: Infinity });
  const observed: ObservedRequest[] = [];
  const pending: Array<Promise<void>> = [];

  // Windows aligned to the wall clock: start on a multiple of their period (at most a minute).
  if (o.align !== false && plan.alignMs !== null) {
    const epoch = performance.timeOrigin + performance.now();
    const wait = plan.alignMs - (epoch % plan.alignMs);
    await sleep(wait);
  }
  const t0 = performance.now();
  const epochStartMs = performance.timeOrigin + t0;
  let end: RunEnd = 'complete';

  const send = (q: PlannedRequest, retried = false): void => {
    const headers: OutgoingHttpHeaders = { 'user-agent': 'rate-limit-lab-probe' };
    if (plan.key.kind === 'header') headers[plan.key.name] = keyValue(plan.key, q.slot);
    const localAddress = plan.key.kind === 'address' ? keyValue(plan.key, q.slot) : undefined;
    const rec: ObservedRequest = {
      i: q.i,
      sentMs: 0,
      firstByteMs: null,
      status: null,
      headers: [],
      error: null,
    };
    const done = new Promise<void>((resolve) => {
      const fail = (e: unknown) => {
        // A kept-alive connection the server closed just as it was reused: Node's documented
        // remedy is to send again, once, on a new one.
        if (!retried && req.reusedSocket && errorKind(e) === 'reset' && rec.status === null) {
          send(q, true);
          resolve();
          return;
        }
        if (rec.status === null) {
          rec.error = errorKind(e);
          const message = e instanceof Error ? e.message : String(e);
          rec.detail = bounded(message);
          observed.push(rec);
        }
        resolve();
      };
      const req: ClientRequest = request(url, {
        method: o.method ?? 'GET',
        headers,
        agent,
        ...(localAddress === undefined ? {} : { localAddress, family: 4 }),
      });
      req.setTimeout(timeoutMs, () => {
        const e = Object.assign(new Error(`no answer within ${timeoutMs / 1000} s`), {
          code: 'PROBE_TIMEOUT',
        });
        req.destroy(e);
      });
      req.on('response', (res) => {
        rec.firstByteMs = performance.now() - t0;
        rec.status = res.statusCode ?? null;
        rec.headers = headersOf(res);
        observed.push(rec);
        let bytes = 0;
        res.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          if (bytes > MAX_BODY_BYTES) res.destroy();
        });
        res.on('end', () => resolve());
        res.on('close', () => resolve());
        res.on('error', () => resolve());
      });
      req.on('error', fail);
      req.end();
      rec.sentMs = performance.now() - t0;
    });
    pending.push(done);
  };

  const requests = plan.requests;
  for (let k = 0; k < requests.length; k += 1) {
    const q = requests[k] as PlannedRequest;
    await until(t0 + q.atMs);
    if (o.signal?.aborted === true) {
      end = o.stopReason?.() ?? 'interrupted';
      break;
    }
    send(q);
    o.onSent?.(k + 1, requests.length);
  }
  // Every answer in flight, each bounded by its own timeout (an abort waits no longer than that).
  // (A request sent again after a reset adds itself to `pending` meanwhile.)
  while (pending.length > 0) await Promise.all(pending.splice(0));
  agent.destroy();
  return resultOfRun(plan, {
    link: o.link,
    url: url.href,
    method: o.method ?? 'GET',
    runner: { kind: 'cli', version: o.version ?? 'dev', crossOrigin: false },
    epochStartMs,
    end,
    requests: observed,
  });
}
