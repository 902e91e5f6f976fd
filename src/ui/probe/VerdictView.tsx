import { useState } from 'react';
import type { ExpectedAt, Finding, Observation, Plan, ProbeResult, Verdict } from '../../probe';
import { keyValue } from '../../probe';
import { quoteText, safeText } from '../../core';
import { ProbeLanes } from './ProbeLanes';

/** Longest header value shown, in code points: what a gateway sent is untrusted text. */
const HEADER_SHOWN = 120;

const MARK: Record<Finding['status'], string> = {
  ok: '✓',
  differs: '✗',
  inconclusive: '?',
  note: '·',
};
const OVERALL: Record<Verdict['overall'], { mark: string; word: string }> = {
  'as-configured': { mark: '✓', word: 'As configured' },
  differs: { mark: '✗', word: 'Not as configured' },
  inconclusive: { mark: '?', word: 'No verdict' },
};

const ms = (v: number) =>
  v < 10 ? `${v.toFixed(1)} ms` : v < 1000 ? `${Math.round(v)} ms` : `${(v / 1000).toFixed(2)} s`;

/** The verdict's headline without its first words, which the heading above it says. */
function headlineText(headline: string): string {
  const rest = headline.replace(/^(As configured|Not as configured|No verdict): /, '');
  return rest.charAt(0).toUpperCase() + rest.slice(1);
}

/** The model's decision for a request, in words. */
function expectedWords(e: ExpectedAt | null | undefined): string {
  if (e === null || e === undefined) return 'not sent';
  if (e.decision.outcome === 'reject') return `rejected (${e.status})`;
  return e.decision.delayMs > 0
    ? `passed after a delay of ${ms(e.decision.delayMs)}`
    : 'passed at once';
}

/** What came back for a request, in words. */
function observedWords(o: Observation | undefined): string {
  if (o === undefined || o.kind === 'unsent') return 'not sent (the run stopped first)';
  const r = o.request;
  if (o.kind === 'error') {
    const what = {
      timeout: 'timed out',
      reset: 'connection reset',
      refused: 'connection refused',
      'not-sent': 'not sent',
      other: 'failed',
    };
    return `no answer: ${what[r?.error ?? 'other']}${r?.detail === undefined ? '' : ` (${quoteText(r.detail)})`}`;
  }
  const took = o.latencyMs === null ? '' : ` after ${ms(o.latencyMs)}`;
  if (o.kind === 'reject') return `rejected (${o.status ?? ''})${took}`;
  if (o.kind === 'redirect') return `redirected (${o.status ?? ''})${took}`;
  return `${o.delayed ? 'passed, held' : 'passed'} (${o.status ?? ''})${took}`;
}

/** The request picked in the lanes: expected against got, and buttons to move. */
function RequestDetail({
  plan,
  result,
  verdict,
  selected,
  onSelect,
}: {
  plan: Plan;
  result: ProbeResult;
  verdict: Verdict;
  selected: number;
  onSelect: (i: number) => void;
}) {
  const q = plan.requests[selected];
  const o = verdict.observations[selected];
  const e = verdict.expected[selected];
  if (q === undefined || o === undefined) return null;
  const n = plan.requests.length;
  const differing = plan.requests
    .filter((r) => verdict.expected[r.i]?.fit === false)
    .map((r) => r.i);
  const before = differing.filter((i) => i < selected);
  const after = differing.filter((i) => i > selected);
  const rateHeaders = (o.request?.headers ?? []).filter(([name]) =>
    /^(retry-after|ratelimit|x-ratelimit|x-rate-limit|x-retry-in|x-envoy-ratelimited)/i.test(name),
  );
  const wantHeaders = (e?.fields ?? []).filter(
    (f) => !/^(date|content-type|content-length|cache-control|connection|server)$/i.test(f.name),
  );
  const key =
    plan.key.kind === 'none' ? 'the one key' : `key ${q.slot + 1} (${keyValue(plan.key, q.slot)})`;
  const fit = e?.fit;
  return (
    <div className="probe-request" aria-live="polite">
      <h5>
        Request {selected + 1} of {n}{' '}
        <span className="muted">
          · {q.phase === 'boundary' ? 'window edge' : q.phase} · {key} · sent at {ms(o.sentMs)}{' '}
          (planned {ms(q.atMs)})
          {plan.subject.replicas > 1 && e !== null && e !== undefined
            ? ` · model: replica ${e.replica + 1}`
            : ''}
        </span>
      </h5>
      <table className="probe-compare">
        <thead>
          <tr>
            <th scope="col">
              <span className="visually-hidden">Part of the answer</span>
            </th>
            <th scope="col">Expected (model)</th>
            <th scope="col">Got</th>
          </tr>
        </thead>
        <tbody>
          <tr>
            <th scope="row">Decision</th>
            <td>
              {expectedWords(e)}
              {e?.atPlannedTime === true ? (
                <span className="muted"> (at its planned time)</span>
              ) : null}
            </td>
            <td>{observedWords(o)}</td>
          </tr>
          <tr>
            <th scope="row">Rate-limit headers</th>
            <td>
              {wantHeaders.length === 0
                ? 'none'
                : wantHeaders.map((f) => (
                    <div key={f.name}>
                      <code>
                        {f.name}: {f.value}
                      </code>
                      {f.added === true ? <span className="muted"> (added)</span> : null}
                    </div>
                  ))}
            </td>
            <td>
              {rateHeaders.length === 0
                ? 'none'
                : rateHeaders.map(([name, value]) => (
                    <div key={name}>
                      <code>
                        {safeText(name)}: {safeText(value, HEADER_SHOWN)}
                      </code>
                    </div>
                  ))}
            </td>
          </tr>
        </tbody>
      </table>
      <p className={fit === false ? 'probe-fit is-differs' : 'probe-fit'}>
        {fit === undefined
          ? 'Not judged (not sent).'
          : fit
            ? `✓ As the model decides${e?.headerProblems.length ? `, but ${e.headerProblems.join('; ')}` : ''}.`
            : `✗ Not what the model decides at any time between its sending and its answer${o.kind === 'error' ? '' : ''}.`}
        {q.group !== undefined && plan.requests.filter((r) => r.group === q.group).length > 1
          ? ' (In a burst sent at once the model’s decisions are paired with the answers in the order a limiter hands them out.)'
          : ''}
      </p>
      <div className="probe-nav" role="group" aria-label="Move between requests">
        <button
          type="button"
          onClick={() => onSelect(Math.max(0, selected - 1))}
          disabled={selected === 0}
        >
          ← Previous
        </button>
        <button
          type="button"
          onClick={() => onSelect(Math.min(n - 1, selected + 1))}
          disabled={selected === n - 1}
        >
          Next →
        </button>
        <button
          type="button"
          onClick={() => onSelect(before[before.length - 1] as number)}
          disabled={before.length === 0}
        >
          ← Previous difference
        </button>
        <button
          type="button"
          onClick={() => onSelect(after[0] as number)}
          disabled={after.length === 0}
        >
          Next difference →
        </button>
      </div>
      <p className="muted probe-run-info">
        {result.runner.kind === 'page'
          ? 'Sent by this page'
          : `Sent by the command line (${result.runner.version})`}{' '}
        to <code>{quoteText(result.target.url)}</code>.
      </p>
    </div>
  );
}

/** A verdict: the headline, each check in words, the diagnosis, the lanes and the request picked. */
export function VerdictView({
  plan,
  result,
  verdict,
}: {
  plan: Plan;
  result: ProbeResult;
  verdict: Verdict;
}) {
  const firstDiffering = plan.requests.find((q) => verdict.expected[q.i]?.fit === false)?.i ?? null;
  const [selected, setSelected] = useState<number>(firstDiffering ?? 0);
  const overall = OVERALL[verdict.overall];
  const d = verdict.diagnosis;
  const t = verdict.timing;
  // The summary names the closest explanations; the list, the others found.
  const named = d.explanations.filter((e) =>
    d.summary.includes(e.text.replace(/^consistent with /, '')),
  );
  const others = d.explanations.filter((e) => e.distance > 0 && !named.includes(e)).slice(0, 3);
  return (
    <div className={`probe-verdict is-${verdict.overall}`} data-testid="probe-verdict">
      <h4 className="probe-headline">
        <span className="probe-overall" aria-hidden="true">
          {overall.mark}
        </span>{' '}
        {overall.word}
      </h4>
      <p className="probe-headline-text">{headlineText(verdict.headline)}</p>
      <ul className="probe-findings">
        {verdict.findings.map((f, k) => (
          <li key={k} className={`is-${f.status}`}>
            <span className="probe-mark-text" aria-hidden="true">
              {MARK[f.status]}
            </span>{' '}
            <span className="visually-hidden">
              {f.status === 'ok'
                ? 'As configured: '
                : f.status === 'differs'
                  ? 'Differs: '
                  : f.status === 'inconclusive'
                    ? 'Unsure: '
                    : 'Note: '}
            </span>
            {f.text}
            {f.requests.length > 0 && (
              <>
                {' '}
                <button
                  type="button"
                  className="link-button"
                  onClick={() => setSelected(f.requests[0] as number)}
                >
                  show
                </button>
              </>
            )}
          </li>
        ))}
      </ul>
      <div className="probe-diagnosis">
        <h5>Diagnosis</h5>
        <p>{d.summary}</p>
        {others.length > 0 && (
          <>
            <p className="muted">Also consistent with the run, changing more:</p>
            <ul>
              {others.map((e) => (
                <li key={e.text}>{e.text.replace(/^consistent with /, '')}</li>
              ))}
            </ul>
          </>
        )}
        <p className="muted">
          {`${d.searched.toLocaleString('en-US')} configurations searched: the limiter's parameters around the configured ones, 1 – 4 replicas each with its own state, and one key for every request${d.capped ? ' (cut at the search’s limit)' : ''}.`}
        </p>
      </div>
      {/* On a phone the lanes keep a readable size and scroll sideways. */}
      <div
        className="probe-lanes-scroll"
        tabIndex={0}
        role="region"
        aria-label="The model’s lane and the observed lane"
      >
        <ProbeLanes plan={plan} verdict={verdict} selected={selected} onSelect={setSelected} />
      </div>
      <p className="probe-legend muted">
        <span className="probe-key is-pass" aria-hidden="true" /> passed{' '}
        <span className="probe-key is-held" aria-hidden="true" /> held{' '}
        <span className="probe-key is-reject" aria-hidden="true" /> rejected{' '}
        <span className="probe-key is-none" aria-hidden="true" /> no answer · ▼ differs from the
        model · timing: sent within {ms(t.sendErrorP95Ms)} of plan (p95), answers within{' '}
        {ms(t.toleranceMs)} count as not held
      </p>
      <RequestDetail
        plan={plan}
        result={result}
        verdict={verdict}
        selected={selected}
        onSelect={setSelected}
      />
    </div>
  );
}
