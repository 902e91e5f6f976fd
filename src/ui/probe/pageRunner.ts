/**
 * The page's own run of a plan: the only network requests the page ever makes, started by the
 * person, to the one URL they typed (same origin, or a gateway that allows this page by CORS).
 * Each request leaves at its planned time (a timer, then the last milliseconds polled on the
 * high-resolution clock), its key in the plan's header; the answer's status and the headers the
 * browser lets the page read are recorded, and a sealed result is made as the command line makes
 * one. A browser cannot send from several addresses: keyed by address, a plan has one key.
 */
import type { Plan, PlannedRequest } from '../../probe';
import { MAX_HEADERS, MAX_HEADER_VALUE, keyValue, resultOfRun } from '../../probe';
import type { ObservedRequest, ProbeResult, RunEnd } from '../../probe';

/** Why the page cannot send to `text`, or the URL. */
export function pageTarget(text: string, pageOrigin: string): { url: URL } | { error: string } {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return { error: 'Write the whole address, e.g. http://127.0.0.1:8080/api' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { error: `The probe sends only http:// or https:// requests, not ${url.protocol}` };
  }
  if (url.username !== '' || url.password !== '') {
    return { error: 'Leave the user name and password out of the address' };
  }
  void pageOrigin;
  return { url };
}

export interface PageRunOptions {
  url: URL;
  plan: Plan;
  link: string;
  /** The page's origin: a different one means only CORS-exposed headers can be read. */
  origin: string;
  signal: AbortSignal;
  timeoutMs?: number;
  onProgress?: (sent: number, answered: number) => void;
  /** The lab's version, for the result. */
  version: string;
}

function bounded(text: string): string {
  return text.length <= MAX_HEADER_VALUE ? text : `${text.slice(0, MAX_HEADER_VALUE - 1)}…`;
}

/** Waits until `performance.now()` reaches `target`: a timer, then polling the last 4 ms. */
function until(target: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const step = () => {
      const left = target - performance.now();
      if (left <= 0 || signal.aborted) resolve();
      else if (left > 4) setTimeout(step, left - 4);
      else queueMicrotask(() => setTimeout(step, 0));
    };
    step();
  });
}

/** Runs the plan from the page; resolves with the sealed result (never rejects). */
export async function runInPage(o: PageRunOptions): Promise<ProbeResult> {
  const { plan, url } = o;
  const timeoutMs = o.timeoutMs ?? 10_000;
  const crossOrigin = url.origin !== o.origin;
  const observed: ObservedRequest[] = [];
  const pending: Array<Promise<void>> = [];
  let answered = 0;
  const t0 = performance.now();
  const epochStartMs = performance.timeOrigin + t0;
  let end: RunEnd = 'complete';

  const send = (q: PlannedRequest): void => {
    const headers: Record<string, string> = {};
    if (plan.key.kind === 'header') headers[plan.key.name] = keyValue(plan.key, q.slot);
    const controller = new AbortController();
    const abort = () => controller.abort();
    o.signal.addEventListener('abort', abort, { once: true });
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    const rec: ObservedRequest = {
      i: q.i,
      sentMs: performance.now() - t0,
      firstByteMs: null,
      status: null,
      headers: [],
      error: null,
    };
    const done = fetch(url, {
      method: 'GET',
      headers,
      cache: 'no-store',
      credentials: 'omit',
      redirect: 'manual',
      mode: crossOrigin ? 'cors' : 'same-origin',
      signal: controller.signal,
    })
      .then(async (res) => {
        rec.firstByteMs = performance.now() - t0;
        if (res.type === 'opaqueredirect') {
          rec.firstByteMs = null;
          rec.error = 'other';
          rec.detail = 'redirected (a page cannot see where to)';
        } else {
          rec.status = res.status;
          const list: Array<[string, string]> = [];
          res.headers.forEach((value, name) => {
            if (list.length < MAX_HEADERS)
              list.push([name.toLowerCase().slice(0, 100), bounded(value)]);
          });
          rec.headers = list;
        }
        await res.body?.cancel().catch(() => undefined);
      })
      .catch((e: unknown) => {
        rec.firstByteMs = null;
        rec.status = null;
        rec.headers = [];
        const aborted = controller.signal.aborted;
        rec.error = aborted && !o.signal.aborted ? 'timeout' : 'other';
        rec.detail = aborted
          ? o.signal.aborted
            ? 'stopped'
            : `no answer within ${timeoutMs / 1000} s`
          : `${e instanceof Error ? e.message : String(e)} (unreachable, or refused by CORS)`;
      })
      .finally(() => {
        clearTimeout(timer);
        o.signal.removeEventListener('abort', abort);
        observed.push(rec);
        answered += 1;
        o.onProgress?.(pending.length, answered);
      });
    pending.push(done);
  };

  for (const q of plan.requests) {
    await until(t0 + q.atMs, o.signal);
    if (o.signal.aborted) {
      end = 'interrupted';
      break;
    }
    send(q);
    o.onProgress?.(pending.length, answered);
  }
  await Promise.all(pending);
  return resultOfRun(plan, {
    link: o.link,
    url: url.href,
    method: 'GET',
    runner: { kind: 'page', version: o.version, crossOrigin },
    epochStartMs,
    end,
    requests: observed,
  });
}
