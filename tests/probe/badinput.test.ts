/**
 * Bad input on the verdict's side: result files cut off, edited, or made for another plan, and
 * gateways that answer slowly, reset connections, redirect, or answer 200 to everything. Each gets
 * a message or a verdict that names what happened; none is ever "as configured".
 */
import { describe, expect, it } from 'vitest';
import type { LimiterEntry } from '../../src/config';
import type { ProbeResult } from '../../src/probe';
import { judge, readResult, resultText, sealResult } from '../../src/probe';
import { NGINX, fakeRun, linkOf, planOf } from './fake';

const LINK = linkOf(NGINX);
const PLAN = planOf(LINK);

/** The result read back through its file, as the page and the command line read it. */
function judged(result: ProbeResult) {
  const read = readResult(resultText(result), 'run.json');
  if (!read.ok) throw new Error(read.message);
  return judge(read.opened.plan, read.opened.result);
}

/** `result` with some requests replaced, sealed again (what a runner would have written). */
function resealed(
  result: ProbeResult,
  change: (r: ProbeResult['requests'][number]) => ProbeResult['requests'][number],
): ProbeResult {
  const { digest, ...rest } = result;
  void digest;
  return sealResult({ ...rest, requests: rest.requests.map(change) });
}

describe('result files', () => {
  const good = resultText(fakeRun(PLAN, LINK));

  it('the untouched file reads', () => {
    expect(readResult(good, 'run.json').ok).toBe(true);
  });

  it('a file cut off says it ends early', () => {
    const read = readResult(good.slice(0, Math.floor(good.length / 2)), 'run.json');
    expect(read.ok).toBe(false);
    if (!read.ok) expect(read.message).toMatch(/^"run\.json" ends early at line \d+, column \d+/);
  });

  it('an edited status is caught by the checksum', () => {
    const edited = good.replace('"status":429', '"status":200');
    expect(edited).not.toBe(good);
    const read = readResult(edited, 'run.json');
    expect(read.ok).toBe(false);
    if (!read.ok) expect(read.message).toContain('"run.json" was changed after the run');
  });

  it('a field out of range names where', () => {
    const json = JSON.parse(good) as ProbeResult;
    const { digest, ...rest } = json;
    void digest;
    const bad = sealResult({ ...rest, lane: -1 });
    const read = readResult(JSON.stringify(bad), 'run.json');
    expect(read.ok).toBe(false);
    if (!read.ok) expect(read.message).toContain('"run.json" has a bad value at lane');
  });

  it('a bad value from the file is quoted in the message, cut and escaped', () => {
    const evil = `\u202Eevil\u0000name\n${'x'.repeat(10_000)}`;
    const json = JSON.parse(good) as Record<string, Record<string, unknown>>;
    (json.target as Record<string, unknown>).method = evil;
    const read = readResult(JSON.stringify(json), 'run.json');
    expect(read.ok).toBe(false);
    if (read.ok) return;
    expect(read.message).toBe(
      `"run.json" has a bad value at target.method: Invalid type: expected ("GET" | "HEAD"), got "\\u202Eevil\\u0000name\\u000A${'x'.repeat(29)}…". It was edited or damaged; run the probe again.`,
    );
  });

  it("a result from another plan (its link changed, sealed again) is not judged against the link's plan", () => {
    const result = fakeRun(PLAN, LINK);
    const other = linkOf({ config: { ...NGINX.config, burst: 19 } as LimiterEntry['config'] });
    const { digest, ...rest } = result;
    void digest;
    const moved = sealResult({ ...rest, link: other });
    const read = readResult(resultText(moved), 'run.json');
    expect(read.ok).toBe(false);
    if (!read.ok) expect(read.message).toContain('"run.json" was made for another plan');
  });

  it('a request the plan does not have, or one answered before it was sent, is named', () => {
    const result = fakeRun(PLAN, LINK);
    const twice = resealed(result, (r) => (r.i === 3 ? { ...r, i: 2 } : r));
    const a = readResult(resultText(twice), 'run.json');
    expect(a.ok).toBe(false);
    if (!a.ok) expect(a.message).toContain('has a request 2 that is not in its plan (or twice)');
    const early = resealed(result, (r) =>
      r.i === PLAN.requests.length - 1 ? { ...r, firstByteMs: r.sentMs - 1 } : r,
    );
    const b = readResult(resultText(early), 'run.json');
    expect(b.ok).toBe(false);
    if (!b.ok)
      expect(b.message).toContain(
        `request ${PLAN.requests.length} was answered before it was sent`,
      );
  });

  it('a file that is not a result, or of another version, says so', () => {
    const a = readResult('{"hello": 1}', 'x.json');
    expect(a.ok).toBe(false);
    if (!a.ok) expect(a.message).toContain('"x.json" is not a probe result');
    const b = readResult(good.replace('"version": 1', '"version": 9'), 'x.json');
    expect(b.ok).toBe(false);
    if (!b.ok) expect(b.message).toContain('is a probe result of version "9"');
  });
});

describe('gateways that misbehave', () => {
  it('the control: a gateway that decides as configured is "as configured"', () => {
    expect(judged(fakeRun(PLAN, LINK)).overall).toBe('as-configured');
  });

  it('200 to everything: not as configured, and the headline says nothing was limited', () => {
    const v = judged(fakeRun(PLAN, LINK, { always: 200 }));
    expect(v.overall).toBe('differs');
    expect(v.headline).toMatch(
      /^Not as configured: no request was limited: all 146 answered passed at once, where the model limits \d+/,
    );
    expect(v.diagnosis.summary).toMatch(
      /^No request was limited: the limit is not in place for this address or key, or is wider than this plan reaches/,
    );
  });

  it('redirects for everything: no verdict, and the redirect named', () => {
    const result = resealed(fakeRun(PLAN, LINK), (r) => ({
      ...r,
      status: 302,
      headers: [['location', 'https://127.0.0.1/login']],
    }));
    const v = judged(result);
    expect(v.overall).not.toBe('as-configured');
    expect(v.overall).toBe('inconclusive');
    expect(v.headline).toContain('every request was redirected (302 to "https://127.0.0.1/login")');
    expect(v.diagnosis.summary).toMatch(/^No diagnosis: every request was redirected/);
  });

  it('a slow gateway: no verdict on delays it cannot time', () => {
    const v = judged(fakeRun(PLAN, LINK, { latencyMs: 800 }));
    expect(v.overall).not.toBe('as-configured');
    expect(v.findings.some((f) => f.check === 'timing' && f.status === 'inconclusive')).toBe(true);
  });

  it('a very slow server without a limit: no verdict, and the checks it cannot judge named', () => {
    // Every answer 5 s after its sending: in 5 s the configuration passes 50 more (51 counted up), so not even
    // the burst of 44 that all passed is beyond what it could pass had it decided late.
    const v = judged(fakeRun(PLAN, LINK, { always: 200, latencyMs: 2500 }));
    expect(v.overall).toBe('inconclusive');
    expect(v.headline).toBe(
      'No verdict: the server answered in p95 5.0 s (median 5.0 s); the burst, steady, refill and several-keys checks cannot be judged within that.',
    );
    expect(v.findings.filter((f) => f.status === 'differs')).toEqual([]);
    expect(v.findings.find((f) => f.check === 'burst')?.text).toBe(
      'burst: 44 of 44 passed, where the configuration passes 21 at the planned times; answers this slow leave room for up to 72: not judged',
    );
  });

  it('a slow server without a limit: the count that no timing explains is still judged', () => {
    // Answers in 1.8 s: the configuration passes at most 21 + 10 r/s × 1.8 s of the burst, and
    // all 44 passed; steady load, the refill and the several keys fit within that slowness.
    const v = judged(fakeRun(PLAN, LINK, { always: 200, latencyMs: 900 }));
    expect(v.overall).toBe('differs');
    expect(v.findings.find((f) => f.check === 'burst')).toMatchObject({
      status: 'differs',
      text: 'burst: all 44 of 44 passed, where the configuration passes 21 at the planned times and at most 40 even if each was decided as late as its answer',
    });
    expect(v.findings.find((f) => f.check === 'timing')?.text).toBe(
      'the server answered in p95 1.8 s (median 1.8 s); the steady, refill and several-keys checks cannot be judged within that',
    );
    for (const check of ['steady', 'refill', 'keys'] as const) {
      expect(v.findings.find((f) => f.check === check)?.status).toBe('inconclusive');
    }
  });

  it('connections reset: those requests are named, and there is no "as configured"', () => {
    const result = resealed(fakeRun(PLAN, LINK), (r) =>
      r.i % 7 === 3
        ? {
            ...r,
            status: null,
            firstByteMs: null,
            headers: [],
            error: 'reset',
            detail: 'ECONNRESET',
          }
        : r,
    );
    const v = judged(result);
    expect(v.overall).not.toBe('as-configured');
    const f = v.findings.find((x) => x.check === 'answers');
    expect(f?.text).toMatch(
      /^\d+ requests got no answer \(\d+ had the connection reset by the server: "ECONNRESET"\)/,
    );
  });

  it('a run stopped halfway: only what was sent is checked, and said so', () => {
    const result = fakeRun(PLAN, LINK);
    const { digest, ...rest } = result;
    void digest;
    const half = sealResult({
      ...rest,
      end: 'interrupted',
      requests: rest.requests.slice(0, Math.floor(rest.requests.length / 2)),
    });
    const v = judged(half);
    expect(v.overall).not.toBe('as-configured');
    expect(v.findings[0]?.text).toMatch(/^the run was interrupted: \d+ of \d+ requests were sent/);
  });
});
