import { useCallback, useEffect, useId, useMemo, useRef, useState } from 'react';
import type { ChangeEvent } from 'react';
import { encodeConfig } from '../../config';
import { decodeConfig } from '../../config/url';
import { plural, quoteText } from '../../core';
import type { KeyMode, Plan, ProbeResult, Verdict } from '../../probe';
import {
  buildPlan,
  defaultKeyMode,
  keyModeText,
  parseKeyMode,
  probeCommand,
  resultText,
  subjectOf,
  MAX_RESULT_CHARS,
} from '../../probe';
import { configOf } from '../../store/config';
import { usePlaygroundApi, usePlaygroundShallow } from '../../store/react';
import { CopyButton } from '../share/CopyButton';
import { downloadBlob } from '../share/download';
import { runInPage, pageTarget } from './pageRunner';
import { VerdictView } from './VerdictView';
import type { VerdictReply, VerdictRequest } from './verdictProtocol';
import './probe.css';

/** The lab's version, written into results made by the page. */
const VERSION = 'page';

type Judged = { plan: Plan; result: ProbeResult; verdict: Verdict; ms: number; name: string };

type State =
  | { kind: 'idle' }
  | { kind: 'judging'; name: string }
  | { kind: 'running'; sent: number; answered: number; total: number }
  | { kind: 'error'; message: string }
  | { kind: 'judged'; judged: Judged };

/** Reads and judges result texts in a worker; the newest request wins. */
function useVerdictWorker(onReply: (reply: VerdictReply, name: string) => void) {
  const worker = useRef<Worker | null>(null);
  const latest = useRef(0);
  const names = useRef(new Map<number, string>());
  useEffect(
    () => () => {
      worker.current?.terminate();
      worker.current = null;
    },
    [],
  );
  return useCallback(
    (text: string, name: string) => {
      if (worker.current === null) {
        worker.current = new Worker(new URL('./verdict.worker.ts', import.meta.url), {
          type: 'module',
        });
      }
      const w = worker.current;
      latest.current += 1;
      const id = latest.current;
      names.current.set(id, name);
      w.onmessage = (event: MessageEvent<VerdictReply>) => {
        if (event.data.id !== latest.current) return;
        onReply(event.data, names.current.get(event.data.id) ?? name);
      };
      w.onerror = () =>
        onReply(
          { id, ok: false, message: 'The verdict could not be computed (the worker failed).' },
          name,
        );
      const request: VerdictRequest = { id, text, name };
      w.postMessage(request);
    },
    [onReply],
  );
}

/**
 * "Check a live gateway": the validation plan of the limiter being edited (request count, length,
 * peak rate, each check), the command that runs it from a clone, a run from this page to a URL the
 * person types (the page's only network requests), and a result file opened: the verdict, the
 * diagnosis, the model's lane and the observed lane on one clock, and any request's expected
 * against got. Loaded with the export panel.
 */
export function ProbePart() {
  const id = useId();
  const api = usePlaygroundApi();
  const { lane, limiters, scenario } = usePlaygroundShallow((s) => ({
    lane: Math.min(s.activeLane, s.limiters.length - 1),
    limiters: s.limiters,
    scenario: s.scenario,
  }));
  const entry = limiters[lane];
  const [keyChoice, setKeyChoice] = useState<'system' | 'header' | 'address' | 'none'>('system');
  const [headerName, setHeaderName] = useState('X-Forwarded-For');
  const [url, setUrl] = useState('');
  const [state, setState] = useState<State>({ kind: 'idle' });
  const stop = useRef<AbortController | null>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  const commandRef = useRef<HTMLElement>(null);

  const key: KeyMode | string = useMemo(() => {
    if (entry === undefined) return 'no limiter';
    if (keyChoice === 'system') return defaultKeyMode(entry);
    if (keyChoice === 'header') return parseKeyMode(`header:${headerName}`);
    return { kind: keyChoice };
  }, [entry, keyChoice, headerName]);

  const link = useMemo(
    () => `?${encodeConfig(configOf(api.getState(), 0))}`,
    // The link follows the limiters and the scenario (the clock is left at 0, paused).
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [api, limiters, scenario],
  );

  const target = url.trim() === '' ? null : pageTarget(url, window.location.origin);
  const loopback =
    target !== null && 'url' in target
      ? /^(localhost|127\.\d+\.\d+\.\d+)$/.test(target.url.hostname)
      : true;

  const planned = useMemo(() => {
    if (typeof key === 'string') return { error: key };
    const subject = subjectOf(configOf(api.getState(), 0), lane);
    if (typeof subject === 'string')
      return { error: `This configuration cannot be probed: ${subject}.` };
    const keySlots = key.kind === 'none' || (key.kind === 'address' && !loopback) ? 1 : 4;
    const built = buildPlan(subject, { key, keySlots });
    return built.ok ? { plan: built.plan } : { error: `No plan: ${built.reason}.` };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [api, key, lane, limiters, scenario, loopback]);

  const onReply = useCallback((reply: VerdictReply, name: string) => {
    if (!reply.ok) setState({ kind: 'error', message: reply.message });
    else
      setState({
        kind: 'judged',
        judged: {
          plan: reply.plan,
          result: reply.result,
          verdict: reply.verdict,
          ms: reply.ms,
          name,
        },
      });
  }, []);
  const judge = useVerdictWorker(onReply);

  const open = (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    event.target.value = '';
    if (file === undefined) return;
    if (file.size > MAX_RESULT_CHARS * 4) {
      setState({
        kind: 'error',
        message: `${quoteText(file.name)} is ${(file.size / 1e6).toFixed(1)} MB; a probe result is at most ${MAX_RESULT_CHARS / 1e6} MB.`,
      });
      return;
    }
    setState({ kind: 'judging', name: quoteText(file.name) });
    file.text().then(
      (text) => judge(text, file.name),
      () => setState({ kind: 'error', message: `${quoteText(file.name)} could not be read.` }),
    );
  };

  const runHere = () => {
    if (!('plan' in planned) || target === null || !('url' in target)) return;
    const plan = planned.plan;
    if (plan.key.kind === 'address' && plan.keySlots > 1) return;
    const controller = new AbortController();
    stop.current = controller;
    setState({ kind: 'running', sent: 0, answered: 0, total: plan.requests.length });
    void runInPage({
      url: target.url,
      plan,
      link,
      origin: window.location.origin,
      signal: controller.signal,
      version: VERSION,
      onProgress: (sent, answered) =>
        setState({ kind: 'running', sent, answered, total: plan.requests.length }),
    }).then((result) => {
      stop.current = null;
      const text = resultText(result);
      setState({ kind: 'judging', name: 'this page’s run' });
      judge(text, 'this page’s run');
    });
  };
  if (entry === undefined) return null;
  const plan = 'plan' in planned ? planned.plan : null;
  // A browser sends from one address: a plan keyed by address must have one key to run here.
  const pageKeyProblem =
    plan !== null && plan.key.kind === 'address' && plan.keySlots > 1
      ? 'A page sends from one address only: key by a header (or run the command line) to test several keys.'
      : null;
  const judged = state.kind === 'judged' ? state.judged : null;
  const sameConfig =
    judged === null ||
    JSON.stringify(judged.plan.subject) === JSON.stringify(plan?.subject ?? null);

  return (
    <section className="export-part probe-part" aria-labelledby={`${id}-probe`}>
      <h3 id={`${id}-probe`}>Check a live gateway</h3>
      <p className="muted probe-intro">
        The lab’s validation plan for this limiter, sent to your gateway: each request’s planned
        time, key and expected answer. The verdict compares what came back with the model; the
        diagnosis searches for the configuration that explains it.
      </p>
      <div className="probe-controls">
        <label className="probe-field">
          <span>Key</span>
          <select
            value={keyChoice}
            onChange={(e) => setKeyChoice(e.target.value as typeof keyChoice)}
          >
            <option value="system">{`the system’s own (${typeof key === 'string' || keyChoice !== 'system' ? keyModeText(defaultKeyMode(entry)) : keyModeText(key)})`}</option>
            <option value="address">client address</option>
            <option value="header">a request header</option>
            <option value="none">none (one key)</option>
          </select>
        </label>
        {keyChoice === 'header' && (
          <label className="probe-field">
            <span>Header</span>
            <input
              value={headerName}
              onChange={(e) => setHeaderName(e.target.value)}
              spellCheck={false}
              autoComplete="off"
              aria-invalid={typeof key === 'string'}
            />
          </label>
        )}
        <label className="probe-field probe-url">
          <span>Gateway URL</span>
          <input
            type="url"
            value={url}
            placeholder="http://127.0.0.1:8080/"
            onChange={(e) => setUrl(e.target.value)}
            spellCheck={false}
            autoComplete="off"
            aria-invalid={target !== null && 'error' in target}
            aria-describedby={`${id}-url-help`}
          />
        </label>
      </div>
      <p
        id={`${id}-url-help`}
        className={target !== null && 'error' in target ? 'param-error' : 'muted probe-help'}
      >
        {target !== null && 'error' in target
          ? target.error
          : 'Nothing is sent until you press Send. The page sends only to this address; a gateway on another origin must allow this page (CORS).'}
      </p>
      {'error' in planned ? (
        <p className="param-error" role="alert">
          {planned.error}
        </p>
      ) : (
        plan !== null && (
          <>
            <table className="probe-plan">
              <caption>
                {`${plural(plan.requests.length, 'request')} over ${(plan.durationMs / 1000).toFixed(1)} s · peak ${plan.peakPerSecond} in one second · at most ${plan.largestBurst} at once`}
              </caption>
              <thead>
                <tr>
                  <th scope="col">Check</th>
                  <th scope="col">Requests</th>
                  <th scope="col">From</th>
                  <th scope="col">What it sends</th>
                </tr>
              </thead>
              <tbody>
                {plan.phases.map((p) => (
                  <tr key={p.id}>
                    <th scope="row">
                      {p.id === 'boundary'
                        ? 'window edge'
                        : p.id === 'keys'
                          ? 'several keys'
                          : p.id}
                    </th>
                    <td>{p.count}</td>
                    <td>{`${(p.fromMs / 1000).toFixed(2)} s`}</td>
                    <td>{p.label}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            {plan.notes.length > 0 && (
              <ul className="probe-notes muted">
                {plan.notes.map((n) => (
                  <li key={n}>{n}</li>
                ))}
              </ul>
            )}
            <div className="probe-command">
              <span className="muted">
                From a clone of the lab (after <code>npm ci</code>):
              </span>
              <pre>
                <code ref={commandRef}>
                  {probeCommand(
                    target !== null && 'url' in target ? target.url.href : 'http://127.0.0.1:8080/',
                    link,
                    plan,
                  )}
                </code>
              </pre>
              <CopyButton
                text={() =>
                  probeCommand(
                    target !== null && 'url' in target ? target.url.href : 'http://127.0.0.1:8080/',
                    link,
                    plan,
                  )
                }
                label="Copy command"
                select={commandRef}
              />
            </div>
          </>
        )
      )}
      <div className="probe-actions">
        {state.kind === 'running' ? (
          <>
            <button type="button" onClick={() => stop.current?.abort()}>
              Stop
            </button>
            <span
              role="status"
              className="muted"
            >{`Sent ${state.sent} of ${state.total}, ${state.answered} answered…`}</span>
          </>
        ) : (
          <button
            type="button"
            className="primary"
            disabled={
              plan === null ||
              target === null ||
              'error' in target ||
              pageKeyProblem !== null ||
              state.kind === 'judging'
            }
            onClick={runHere}
          >
            {plan === null
              ? 'Send from this page'
              : `Send ${plural(plan.requests.length, 'request')} from this page`}
          </button>
        )}
        <button
          type="button"
          onClick={() => fileInput.current?.click()}
          disabled={state.kind === 'running'}
        >
          Open a result file…
        </button>
        <input
          ref={fileInput}
          type="file"
          accept=".json,application/json"
          className="visually-hidden"
          tabIndex={-1}
          aria-label="Result file"
          data-testid="probe-file"
          onChange={open}
        />
        {state.kind === 'judged' && state.judged.result.runner.kind === 'page' && (
          <button
            type="button"
            onClick={() =>
              downloadBlob(
                new Blob([resultText(state.judged.result)], { type: 'application/json' }),
                'probe-result.json',
              )
            }
          >
            Download the result
          </button>
        )}
      </div>
      {pageKeyProblem !== null && <p className="muted">{pageKeyProblem}</p>}
      {state.kind === 'judging' && (
        <p role="status" className="muted">{`Judging ${state.name}…`}</p>
      )}
      {state.kind === 'error' && (
        <p className="param-error" role="alert">
          {state.message}
        </p>
      )}
      {judged !== null && (
        <>
          {!sameConfig && (
            <div className="probe-other" role="note">
              <p>
                This result checks another configuration than the limiter you are editing; the
                verdict below is against the result’s own ({judged.plan.systemName}).
              </p>
              <button
                type="button"
                onClick={() => {
                  api.getState().loadConfig(decodeConfig(judged.result.link).config);
                }}
              >
                Open the result’s configuration
              </button>
            </div>
          )}
          <VerdictView
            key={`${judged.result.digest}`}
            plan={judged.plan}
            result={judged.result}
            verdict={judged.verdict}
          />
        </>
      )}
    </section>
  );
}
