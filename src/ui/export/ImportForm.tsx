import { useId, useRef, useState } from 'react';
import type { AlgorithmConfig } from '../../core';
import type {
  EnvoyExtras,
  HaproxyExtras,
  ImportError,
  IngressLane,
  IngressNginxImport,
  NginxExtras,
} from '../../export';
import {
  importEnvoy,
  importHaproxy,
  importIngressNginx,
  importNginx,
  traefikPeriod,
} from '../../export';
import { ALGORITHMS } from '../limiter/algorithms';
import type { ImportFormat } from './exportText';
import { describeConfig, detectFormat, importDone, offsetOf } from './exportText';
import { plural, quoteText } from '../../core';

/** What a successful import hands the panel. */
export type Imported =
  | {
      format: 'nginx';
      config: AlgorithmConfig;
      extras: NginxExtras;
      /** Further limiters (several limit_req lines), each to become a compare lane. */
      more?: AlgorithmConfig[];
    }
  | { format: 'envoy'; config: AlgorithmConfig; extras: EnvoyExtras }
  /** An Ingress's annotations: ingress-nginx's lanes and Traefik's, all loaded into compare mode. */
  | { format: 'ingress-nginx'; config: AlgorithmConfig; ingress: IngressNginxImport }
  | { format: 'haproxy'; config: AlgorithmConfig; extras: HaproxyExtras };

export interface ImportFormProps {
  /** Shown in the confirmation, e.g. "limiter 2". */
  target: string;
  /**
   * Loads a valid import into the limiter (and, for several limiters, adds lanes); returns the
   * lanes it loaded into (0-based, the edited lane first). Never called for invalid text.
   */
  onImport: (imported: Imported) => number[];
}

type FormatChoice = 'auto' | ImportFormat;

type Outcome =
  | {
      ok: true;
      /** The confirmation's first words: what was loaded where. */
      done: string;
      summary: string;
      warnings: ImportError[];
      /** An Ingress import: what each controller renders, and what is not modelled. */
      ingress?: IngressNginxImport;
    }
  | { ok: false; errors: ImportError[] };

const FORMAT_NAMES: Record<ImportFormat, string> = {
  nginx: 'nginx',
  envoy: 'Envoy',
  'ingress-nginx': 'ingress-nginx annotations',
  haproxy: 'HAProxy',
};

const PLACEHOLDER = `limit_req_zone $binary_remote_addr zone=api:10m rate=10r/s;
limit_req zone=api burst=20 nodelay;

or an Envoy token_bucket:
  max_tokens: 20
  tokens_per_fill: 10
  fill_interval: 1s

or an Ingress with nginx.ingress.kubernetes.io/limit-rps annotations`;

/**
 * Paste nginx `limit_req_zone` / `limit_req` lines or an Envoy `token_bucket` block; Import loads it
 * into the limiter being edited. Invalid text changes nothing and shows every error at its line and
 * column (a click puts the cursor there); warnings say what will not behave as the playground shows.
 */
export function ImportForm({ target, onImport }: ImportFormProps) {
  const id = useId();
  const area = useRef<HTMLTextAreaElement>(null);
  const [text, setText] = useState('');
  const [choice, setChoice] = useState<FormatChoice>('auto');
  const [envoyRefill, setEnvoyRefill] = useState<'continuous' | 'interval'>('continuous');
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const detected = choice === 'auto' ? detectFormat(text) : choice;

  const submit = () => {
    if (detected === null) {
      setOutcome({
        ok: false,
        errors: [
          {
            line: 1,
            column: 1,
            message:
              text.trim() === ''
                ? 'expected a snippet to import: paste nginx limit_req lines, an Envoy token_bucket, HAProxy stick-table lines or an Ingress with limit-rps annotations'
                : 'expected nginx limit_req_zone / limit_req lines, an Envoy token_bucket block, HAProxy stick-table / http-request lines or nginx.ingress.kubernetes.io/limit-rps annotations (or pick the format)',
          },
        ],
      });
      return;
    }
    let imported: Imported;
    let warnings: ImportError[];
    if (detected === 'ingress-nginx') {
      const result = importIngressNginx(text);
      if (!result.ok) {
        setOutcome({ ok: false, errors: result.errors });
        return;
      }
      const first = result.lanes[0];
      if (first === undefined) return;
      const lanes = onImport({ format: 'ingress-nginx', config: first.config, ingress: result });
      const loaded = lanes.length;
      setOutcome({
        ok: true,
        done: importDone(detected, lanes, target),
        summary: `${quoteText(result.ingress)} as ${result.lanes
          .slice(0, loaded)
          .map((l) => `${l.name} (${describeLane(l)})`)
          .join('; ')}`,
        warnings: result.warnings,
        ingress: result,
      });
      return;
    }
    if (detected === 'nginx') {
      const result = importNginx(text);
      if (!result.ok) {
        setOutcome({ ok: false, errors: result.errors });
        return;
      }
      imported = { format: 'nginx', config: result.config, extras: result.extras };
      if (result.lanes !== undefined) imported.more = result.lanes.slice(1).map((l) => l.config);
      warnings = result.warnings;
    } else if (detected === 'haproxy') {
      const result = importHaproxy(text);
      if (!result.ok) {
        setOutcome({ ok: false, errors: result.errors });
        return;
      }
      imported = { format: 'haproxy', config: result.config, extras: result.extras };
      warnings = result.warnings;
    } else {
      const result = importEnvoy(text, { refill: envoyRefill });
      if (!result.ok) {
        setOutcome({ ok: false, errors: result.errors });
        return;
      }
      imported = { format: 'envoy', config: result.config, extras: result.extras };
      warnings = result.warnings;
    }
    const lanes = onImport(imported);
    const loaded = lanes.length;
    const all = [imported.config, ...(imported.format === 'nginx' ? (imported.more ?? []) : [])];
    const summary = all
      .slice(0, loaded)
      .map((c) => `${ALGORITHMS[c.kind].name}: ${describeConfig(c)}`)
      .join('; ');
    const dropped = all.length - loaded;
    setOutcome({
      ok: true,
      done: importDone(detected, lanes, target),
      summary:
        dropped > 0
          ? `${summary} (${dropped} more left out: compare mode holds ${plural(loaded, 'limiter')} here)`
          : summary,
      warnings,
    });
  };

  const goTo = (e: ImportError) => {
    const node = area.current;
    if (node === null) return;
    const at = offsetOf(node.value, e.line, e.column);
    node.focus();
    node.setSelectionRange(at, at);
  };

  const errors = outcome !== null && !outcome.ok ? outcome.errors : [];
  const messagesId = `${id}-messages`;
  return (
    <form
      className="import-form"
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
    >
      <label htmlFor={`${id}-text`} className="import-label">
        Paste nginx <code>limit_req_zone</code> / <code>limit_req</code> lines, an Envoy{' '}
        <code>token_bucket</code> block, HAProxy <code>stick-table</code> lines or an Ingress with
        ingress-nginx <code>limit-rps</code> annotations
      </label>
      <textarea
        ref={area}
        id={`${id}-text`}
        className="import-text"
        rows={7}
        // Unwrapped, so the line:column of an error is the line people see.
        wrap="off"
        spellCheck={false}
        autoCapitalize="off"
        autoComplete="off"
        placeholder={PLACEHOLDER}
        value={text}
        aria-invalid={errors.length > 0}
        aria-describedby={outcome !== null ? messagesId : undefined}
        onChange={(e) => setText(e.target.value)}
      />
      <div className="import-controls">
        <label className="import-field">
          <span>Format</span>
          <select value={choice} onChange={(e) => setChoice(e.target.value as FormatChoice)}>
            <option value="auto">
              Detect{choice === 'auto' && detected !== null ? ` (${FORMAT_NAMES[detected]})` : ''}
            </option>
            <option value="nginx">nginx</option>
            <option value="envoy">Envoy</option>
            <option value="ingress-nginx">ingress-nginx annotations</option>
            <option value="haproxy">HAProxy</option>
          </select>
        </label>
        {detected === 'envoy' && (
          <label className="import-field">
            <span>Envoy</span>
            <select
              value={envoyRefill}
              onChange={(e) => setEnvoyRefill(e.target.value as 'continuous' | 'interval')}
            >
              <option value="continuous">≥ 1.31 (continuous refill)</option>
              <option value="interval">&lt; 1.31 (timer refill)</option>
            </select>
          </label>
        )}
        <button type="submit" className="primary">
          Import into {target}
        </button>
      </div>
      <div id={messagesId} className="import-messages">
        {outcome !== null && !outcome.ok && (
          <div className="import-errors" role="alert" data-testid="import-errors">
            <p>
              Nothing was loaded:{' '}
              {errors.length === 1 ? 'an error' : plural(errors.length, 'error')}.
            </p>
            <ul>
              {errors.map((e, i) => (
                <li key={i}>
                  <button
                    type="button"
                    className="import-position"
                    onClick={() => goTo(e)}
                    aria-label={`line ${e.line}, column ${e.column}: go there`}
                  >
                    {e.line}:{e.column}
                  </button>{' '}
                  {e.message}
                </li>
              ))}
            </ul>
          </div>
        )}
        {/* Always present, so screen readers announce what was loaded when it appears. */}
        <div role="status" data-testid="import-done">
          {outcome?.ok === true && (
            <div className="import-done">
              {outcome.ingress === undefined ? (
                <p>
                  {outcome.done}: <strong>{outcome.summary}</strong>.
                </p>
              ) : (
                <IngressResult summary={outcome.summary} ingress={outcome.ingress} />
              )}
              {outcome.warnings.length > 0 && (
                <ul className="import-warnings" data-testid="import-warnings">
                  {outcome.warnings.map((w, i) => (
                    <li key={i}>
                      <button
                        type="button"
                        className="import-position"
                        onClick={() => goTo(w)}
                        aria-label={`line ${w.line}, column ${w.column}: go there`}
                      >
                        {w.line}:{w.column}
                      </button>{' '}
                      {w.message}
                    </li>
                  ))}
                </ul>
              )}
            </div>
          )}
        </div>
      </div>
    </form>
  );
}

/** A lane in its controller's words: nginx's limit_req, Traefik's rateLimit fields. */
function describeLane(lane: IngressLane): string {
  const c = lane.config;
  if (lane.system !== 'traefik' || c.kind !== 'token-bucket') return describeConfig(c);
  return `average ${c.tokensPerFill}, period ${traefikPeriod(c.fillIntervalMs)}, burst ${c.maxTokens}, waits up to ${c.maxDelayMs ?? 0} ms`;
}

/** What an Ingress import loaded, what each controller renders, and what is not modelled. */
function IngressResult({ summary, ingress }: { summary: string; ingress: IngressNginxImport }) {
  return (
    <div className="import-ingress" data-testid="import-ingress">
      <p>
        Loaded into compare mode, ingress-nginx beside Traefik: <strong>{summary}</strong>.
      </p>
      <ul className="import-notes">
        {ingress.notes.map((n, i) => (
          <li key={i}>{n}</li>
        ))}
      </ul>
      <details>
        <summary>What each controller renders</summary>
        <pre className="export-code" tabIndex={0} aria-label="ingress-nginx's nginx.conf lines">
          <code>{ingress.nginxText}</code>
        </pre>
        <pre className="export-code" tabIndex={0} aria-label="Traefik's middlewares">
          <code>{ingress.traefikText}</code>
        </pre>
      </details>
    </div>
  );
}
