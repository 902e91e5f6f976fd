import { useId, useRef, useState } from 'react';
import type { KeyboardEvent } from 'react';
import type { AlgorithmKind } from '../../core';
import type { ExportResult, SystemExportResult } from '../../export/exporters';
import { REDIS_OUTCOME } from '../../export/exporters';
import { CopyButton } from '../share/CopyButton';
import { downloadBlob } from '../share/download';
import type { AnyExportOutcome, AnyExportTarget } from './exportText';
import { EXPORT_FILE_NAMES, exportLabel, naturalTarget, orderedTargets } from './exportText';

export interface ExportViewProps {
  /** The algorithm exported (picks the first tab when the system has no export of its own). */
  kind: AlgorithmKind;
  /** The limiter's system (src/systems id): its own exports come first. */
  systemId?: string;
  /** Every target's export of the limiter. */
  outcomes: Readonly<Record<AnyExportTarget, AnyExportOutcome>>;
}

/** An algorithm as a sentence names it: "a GCRA", "a sliding-window counter". */
const ALGORITHM_PHRASE: Record<AlgorithmKind, string> = {
  'token-bucket': 'token bucket',
  'leaky-bucket': 'leaky bucket',
  'fixed-window': 'fixed window',
  'sliding-log': 'sliding log',
  'sliding-window-counter': 'sliding-window counter',
  gcra: 'GCRA limiter',
  'anchored-window': 'anchored window',
  'calendar-windows': 'set of calendar windows',
};

/**
 * One tab per target system: the text to paste with a copy button, the version it assumes and how
 * the real system differs from the playground — or, where the target cannot express the algorithm,
 * why not and what comes closest.
 */
export function ExportView({ kind, systemId, outcomes }: ExportViewProps) {
  const id = useId();
  const order = orderedTargets(systemId ?? '', outcomes);
  const EXPORT_TARGETS = order.map((target) => ({ target, label: exportLabel(target) }));
  const [chosen, setSelected] = useState<AnyExportTarget>(() =>
    systemId === undefined ? naturalTarget(kind) : (order[0] ?? naturalTarget(kind)),
  );
  // A tab that left the list (the limiter changed) falls back to the first.
  const selected = order.includes(chosen) ? chosen : (order[0] ?? naturalTarget(kind));
  const tabs = useRef<Array<HTMLButtonElement | null>>([]);
  const outcome = outcomes[selected];
  const label = exportLabel(selected);

  // WAI-ARIA tabs: arrows move between tabs (and must not also step the clock), Home/End jump.
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const i = EXPORT_TARGETS.findIndex((t) => t.target === selected);
    const n = EXPORT_TARGETS.length;
    const next =
      e.key === 'ArrowRight'
        ? (i + 1) % n
        : e.key === 'ArrowLeft'
          ? (i - 1 + n) % n
          : e.key === 'Home'
            ? 0
            : e.key === 'End'
              ? n - 1
              : null;
    if (next === null) return;
    e.preventDefault();
    e.stopPropagation();
    const target = EXPORT_TARGETS[next]?.target;
    if (target !== undefined) setSelected(target);
    tabs.current[next]?.focus();
  };

  return (
    <div className="export-view">
      <div className="export-tabs" role="tablist" aria-label="Export to" onKeyDown={onKeyDown}>
        {EXPORT_TARGETS.map(({ target, label: text }, i) => {
          const active = target === selected;
          const ok = outcomes[target].ok;
          return (
            <button
              key={target}
              ref={(node) => {
                tabs.current[i] = node;
              }}
              type="button"
              role="tab"
              id={`${id}-tab-${target}`}
              aria-selected={active}
              aria-controls={`${id}-panel`}
              tabIndex={active ? 0 : -1}
              className={`export-tab${active ? ' is-active' : ''}${ok ? '' : ' is-unsupported'}`}
              onClick={() => setSelected(target)}
            >
              {text}
              {!ok && (
                <span className="export-tab-na" title="cannot express this algorithm">
                  <span aria-hidden="true"> ⊘</span>
                  <span className="visually-hidden"> (cannot express this algorithm)</span>
                </span>
              )}
            </button>
          );
        })}
      </div>
      <div
        role="tabpanel"
        id={`${id}-panel`}
        aria-labelledby={`${id}-tab-${selected}`}
        className="export-tabpanel"
        data-testid="export-output"
        data-target={selected}
      >
        {outcome.ok ? (
          <ResultView key={selected} result={outcome} label={label} />
        ) : (
          <div className="export-unsupported">
            <p className="export-unsupported-title">
              {label} has no {ALGORITHM_PHRASE[outcome.kind]}.
            </p>
            <p data-testid="export-reason">{outcome.reason}</p>
            <p className="muted">The Redis Lua script takes every algorithm.</p>
          </div>
        )}
      </div>
    </div>
  );
}

const LANGUAGE_NAMES: Record<ExportResult['language'] | SystemExportResult['language'], string> = {
  nginx: 'nginx config',
  yaml: 'YAML',
  lua: 'Lua',
  go: 'Go',
  javascript: 'JavaScript',
  caddyfile: 'Caddyfile',
  json: 'JSON',
  hcl: 'Terraform',
  haproxy: 'haproxy.cfg',
};

function ResultView({
  result,
  label,
}: {
  result: ExportResult | SystemExportResult;
  label: string;
}) {
  const code = useRef<HTMLPreElement>(null);
  const file = EXPORT_FILE_NAMES[result.target];
  return (
    <>
      <div className="export-code-head">
        <span className="export-language">{LANGUAGE_NAMES[result.language]}</span>
        <span className="export-actions">
          <CopyButton text={result.text} label={`Copy ${label}`} select={code} />
          <button
            type="button"
            onClick={() =>
              downloadBlob(new Blob([result.text], { type: 'text/plain;charset=utf-8' }), file)
            }
          >
            Download {file}
          </button>
        </span>
      </div>
      {/* Focusable so keyboard users can scroll it; plain text so it selects as it will paste. */}
      <pre
        ref={code}
        className="export-code"
        tabIndex={0}
        aria-label={`${label} ${LANGUAGE_NAMES[result.language]}`}
        data-testid="export-code"
      >
        <code>{result.text}</code>
      </pre>
      {result.target === 'redis' && <RedisUsage />}
      <p className="export-assumes">
        <span className="export-label">Assumes</span> {result.assumes}
      </p>
      {result.differences.length > 0 && (
        <div className="export-list">
          <h4>Differs from the playground</h4>
          <ul>
            {result.differences.map((d, i) => (
              <li key={i}>{d}</li>
            ))}
          </ul>
        </div>
      )}
      {result.notes.length > 0 && (
        <div className="export-list">
          <h4>Worth knowing</h4>
          <ul>
            {result.notes.map((d, i) => (
              <li key={i}>{d}</li>
            ))}
          </ul>
        </div>
      )}
    </>
  );
}

/** The calling convention every exported script shares (src/export/lua/prelude.ts). */
function RedisUsage() {
  return (
    <div className="export-usage" data-testid="redis-usage">
      <p>
        <span className="export-label">Call</span> <code>EVAL script 1 &lt;key&gt; [nowMs]</code>{' '}
        (or <code>EVALSHA</code> after <code>SCRIPT LOAD</code>); without <code>nowMs</code> the
        script reads Redis&apos;s <code>TIME</code>.
      </p>
      <p>
        <span className="export-label">Returns</span>{' '}
        <code>{'{outcome, delayMs, retryAfterMs, remaining, resetMs}'}</code> with outcome{' '}
        <code>{REDIS_OUTCOME.admit}</code> admit, <code>{REDIS_OUTCOME.delay}</code> delay (wait
        delayMs, then pass the request), <code>{REDIS_OUTCOME.reject}</code> reject (retry after
        retryAfterMs).
      </p>
    </div>
  );
}
