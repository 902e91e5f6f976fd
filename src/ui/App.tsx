import { useEffect, useMemo, useState } from 'react';
import { createLimiter, toHttpResponse } from '../core';
import type { AlgorithmConfig, AlgorithmKind, Decision, HttpResponse } from '../core';
import { ALGORITHMS, ALGORITHM_ORDER } from './algorithms';
import { HttpResponseView } from './HttpResponseView';
import { OutcomeBadge } from './OutcomeBadge';
import { ParamFields } from './ParamFields';
import { ThemeToggle } from './ThemeToggle';

interface Fired {
  tMs: number;
  key: string;
}

interface Decided extends Fired {
  decision: Decision;
  response: HttpResponse;
}

const STEPS_MS = [100, 1000, 10_000] as const;

function replay(config: AlgorithmConfig, fired: readonly Fired[]) {
  const limiter = createLimiter(config);
  const decided: Decided[] = fired.map((f) => {
    const decision = limiter.decide(f.tMs, f.key);
    return { ...f, decision, response: toHttpResponse(config, decision) };
  });
  return { limiter, decided };
}

function describeState(
  config: AlgorithmConfig,
  nowMs: number,
  key: string,
  fired: readonly Fired[],
): string {
  const state = replay(config, fired).limiter.inspect(nowMs, key);
  switch (state.kind) {
    case 'token-bucket':
      return (
        `${state.tokens.toFixed(2)} of ${state.maxTokens} tokens` +
        (state.debt > 0 ? `, ${state.debt} reserved` : '')
      );
    case 'leaky-bucket':
      return `excess ${(state.excessNowMilli / 1000).toFixed(3)} of burst ${state.burst}`;
    case 'fixed-window':
      return `${state.count} of ${state.limit} in window [${state.windowStartMs}, ${state.windowEndMs}) ms`;
    case 'sliding-log':
      return `${state.entries.length} of ${state.limit} entries younger than ${state.windowMs} ms (${state.stored} stored)`;
    case 'sliding-window-counter':
      return `estimate ${state.previousCount} × ${state.windowMs - state.elapsedMs}/${state.windowMs} + ${state.currentCount} = ${state.estimate.toFixed(2)} of ${state.limit}`;
    case 'gcra':
      return `TAT ${state.tatMs.toFixed(1)} ms, next admit from ${state.allowAtMs.toFixed(1)} ms (T ${state.emissionIntervalMs.toFixed(1)} ms, τ ${state.toleranceMs.toFixed(1)} ms)`;
  }
}

/**
 * The first page: pick an algorithm, set its parameters, fire requests at a virtual time, and see
 * each decision and the HTTP response it maps to. Changing a parameter replays every request fired so
 * far under the new parameters.
 */
export function App() {
  const [kind, setKind] = useState<AlgorithmKind>('token-bucket');
  const [configs, setConfigs] = useState(() => {
    const all = {} as Record<AlgorithmKind, AlgorithmConfig>;
    for (const k of ALGORITHM_ORDER) all[k] = ALGORITHMS[k].defaults;
    return all;
  });
  const [fired, setFired] = useState<Fired[]>([]);
  const [nowMs, setNowMs] = useState(0);
  const [key, setKey] = useState('default');
  const [selected, setSelected] = useState<number | null>(null);
  const config = configs[kind];

  const { decided } = useMemo(() => replay(config, fired), [config, fired]);
  const stateText = useMemo(
    () => describeState(config, nowMs, key, fired),
    [config, nowMs, key, fired],
  );
  const shown = selected === null ? decided.at(-1) : decided[selected];

  const fire = (count = 1) => {
    setFired((f) => [...f, ...Array.from({ length: count }, () => ({ tMs: nowMs, key }))]);
    setSelected(null);
  };

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const target = e.target as HTMLElement | null;
      if (target !== null && ['INPUT', 'SELECT', 'TEXTAREA'].includes(target.tagName)) return;
      if (e.key === 'f' && !e.ctrlKey && !e.metaKey && !e.altKey) {
        e.preventDefault();
        setFired((f) => [...f, { tMs: nowMs, key }]);
        setSelected(null);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [nowMs, key]);

  return (
    <div className="first-page">
      <header className="app-header">
        <h1>
          Rate Limit Lab <span className="tagline">tune a rate limiter and watch it decide</span>
        </h1>
        <ThemeToggle />
      </header>
      <main className="first-grid">
        <section aria-labelledby="algo-heading" className="panel">
          <h2 id="algo-heading">Algorithm</h2>
          <div className="algo-picker" role="radiogroup" aria-label="Algorithm">
            {ALGORITHM_ORDER.map((k) => (
              <label key={k} className={k === kind ? 'is-active' : undefined}>
                <input
                  type="radio"
                  name="algorithm"
                  value={k}
                  checked={k === kind}
                  onChange={() => {
                    setKind(k);
                    setSelected(null);
                  }}
                />
                {ALGORITHMS[k].name}
              </label>
            ))}
          </div>
          <ParamFields
            config={config}
            onChange={(c) => setConfigs((all) => ({ ...all, [c.kind]: c }))}
          />
        </section>
        <section aria-labelledby="fire-heading" className="panel">
          <h2 id="fire-heading">Requests</h2>
          <div className="fire-row">
            <span className="clock mono" aria-live="polite">
              t = {nowMs.toLocaleString('en-US')} ms
            </span>
            {STEPS_MS.map((step) => (
              <button key={step} type="button" onClick={() => setNowMs((t) => t + step)}>
                +{step >= 1000 ? `${step / 1000} s` : `${step} ms`}
              </button>
            ))}
            <button type="button" onClick={() => setNowMs(0)} disabled={nowMs === 0}>
              t = 0
            </button>
          </div>
          <div className="fire-row">
            <label>
              key{' '}
              <input
                className="key-input"
                value={key}
                maxLength={64}
                onChange={(e) => setKey(e.target.value)}
              />
            </label>
            <button type="button" className="primary" onClick={() => fire(1)}>
              Fire request <kbd>f</kbd>
            </button>
            <button type="button" onClick={() => fire(5)}>
              Fire 5 at once
            </button>
            <button type="button" onClick={() => setFired([])} disabled={fired.length === 0}>
              Clear
            </button>
          </div>
          <p className="state-line" data-testid="state">
            State of <span className="mono">{key}</span> at t = {nowMs} ms: {stateText}
          </p>
          {shown !== undefined && (
            <HttpResponseView response={shown.response} delayMs={shown.decision.delayMs} />
          )}
          <table className="decision-log">
            <caption>Decisions ({decided.length})</caption>
            <thead>
              <tr>
                <th scope="col">#</th>
                <th scope="col">t (ms)</th>
                <th scope="col">key</th>
                <th scope="col">outcome</th>
                <th scope="col">delay / retry</th>
                <th scope="col">remaining</th>
                <th scope="col">status</th>
              </tr>
            </thead>
            <tbody>
              {decided.map((d, i) => (
                <tr
                  key={i}
                  className={shown === d ? 'is-selected' : undefined}
                  onClick={() => setSelected(i)}
                  aria-selected={shown === d}
                >
                  <td>
                    <button type="button" className="link" onClick={() => setSelected(i)}>
                      {i + 1}
                    </button>
                  </td>
                  <td className="mono">{d.tMs}</td>
                  <td className="mono">{d.key}</td>
                  <td>
                    <OutcomeBadge outcome={d.decision.outcome} />
                  </td>
                  <td className="mono">
                    {d.decision.outcome === 'delay'
                      ? `wait ${d.decision.delayMs} ms`
                      : d.decision.outcome === 'reject'
                        ? `retry in ${d.decision.retryAfterMs} ms`
                        : '–'}
                  </td>
                  <td className="mono">{d.decision.remaining}</td>
                  <td className="mono">{d.response.status}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      </main>
    </div>
  );
}
