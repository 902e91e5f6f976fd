import { useId, useMemo, useState } from 'react';
import { describeKeySpec, topKeys, windowStats } from '../../trace';
import type { BuiltTrace, KeySpec } from '../../trace';
import { useTraceLoad } from '../../store/traceReact';
import { NumberField } from '../common/fields';
import { TraceDryRun } from './TraceDryRun';
import { plural, pluralNoun } from '../../core';
import { TraceKeep } from './TraceKeep';
import { TraceReplay } from './TraceReplay';
import { TraceSweep } from './TraceSweep';

/** Key choices a gateway offers (see KeySpec). */
const KEY_CHOICES: { id: string; label: string; spec: KeySpec }[] = [
  { id: 'client', label: 'client address', spec: [{ kind: 'client' }] },
  { id: 'xff-first', label: 'X-Forwarded-For, first hop', spec: [{ kind: 'xff-first' }] },
  { id: 'xff-last', label: 'X-Forwarded-For, last hop', spec: [{ kind: 'xff-last' }] },
  { id: 'path', label: 'path', spec: [{ kind: 'path' }] },
  {
    id: 'client+path',
    label: 'client address + path',
    spec: [{ kind: 'client' }, { kind: 'path' }],
  },
  { id: 'all', label: 'one key for everything', spec: [] },
];

const n = (v: number): string => v.toLocaleString('en-US');

function TraceSummary({ trace }: { trace: BuiltTrace }) {
  const [windowMs, setWindowMs] = useState(1000);
  const top = useMemo(() => topKeys(trace, 5), [trace]);
  const stats = useMemo(() => windowStats(trace, windowMs, 5), [trace, windowMs]);
  const r = trace.report;
  const spanMs =
    trace.count > 0
      ? (trace.arrivalMs[trace.count - 1] as number) - (trace.arrivalMs[0] as number)
      : 0;
  return (
    <div className="trace-summary" data-testid="trace-summary">
      <p>
        <strong>{trace.name}</strong>: {r.formatName},{' '}
        <span data-testid="trace-count">{n(trace.count)}</span> requests over{' '}
        {n(Math.round(spanMs / 1000))} s,{' '}
        <span data-testid="trace-keys">{n(trace.keys.length)}</span> keys by{' '}
        {describeKeySpec(trace.keySpec)}.
      </p>
      <p className="trace-time-source">{r.timeSource}.</p>
      {r.notes.length > 0 && (
        <ul className="trace-notes">
          {r.notes.map((note) => (
            <li key={note}>{note}</li>
          ))}
        </ul>
      )}
      {r.malformedFirst.length > 0 && (
        <details>
          <summary>
            {n(r.malformed)} malformed {pluralNoun(r.malformed, 'line')} (first{' '}
            {r.malformedFirst.length})
          </summary>
          <ul className="trace-malformed" data-testid="trace-malformed">
            {r.malformedFirst.slice(0, 10).map((m) => (
              <li key={m.line}>
                line {m.line}: {m.reason}
              </li>
            ))}
          </ul>
        </details>
      )}
      <table className="trace-top-keys">
        <caption>Top keys by volume</caption>
        <thead>
          <tr>
            <th scope="col">key</th>
            <th scope="col">requests</th>
            <th scope="col">share</th>
          </tr>
        </thead>
        <tbody>
          {top.map((k) => (
            <tr key={k.key}>
              <td>{k.key}</td>
              <td>{n(k.requests)}</td>
              <td>{(k.share * 100).toFixed(1)} %</td>
            </tr>
          ))}
        </tbody>
      </table>
      {trace.natHints.length > 0 && (
        <p className="trace-nat" data-testid="trace-nat">
          Possible NAT:{' '}
          {trace.natHints
            .map((h) => `${h.client} (${h.userAgents}${h.userAgents >= 64 ? '+' : ''} user agents)`)
            .join(', ')}
          . Keying by address would limit all of them together.
        </p>
      )}
      <div className="trace-window">
        <NumberField
          label="W"
          unit="ms"
          value={windowMs}
          width="6em"
          check={(v) =>
            Number.isInteger(v) && v >= 1 && v <= 86_400_000
              ? null
              : 'W must be a whole number of ms from 1 to 86,400,000'
          }
          onCommit={setWindowMs}
        />
        <p data-testid="trace-window-stats">
          Most requests a key sent in any {n(windowMs)} ms: p50 {n(stats.p50)}, p90 {n(stats.p90)},
          p99 {n(stats.p99)}, max {n(stats.max)}
          {stats.worst[0] !== undefined ? ` (${stats.worst[0].key})` : ''}.
        </p>
      </div>
    </div>
  );
}

/** Bring an access log: pick a file, watch it parse (in a worker), see what it holds. */
export function TracePanel() {
  const id = useId();
  const s = useTraceLoad((st) => ({
    trace: st.trace,
    replayHash: st.replay?.hash ?? '',
    status: st.status,
    keySpec: st.keySpec,
    load: st.load,
    cancel: st.cancel,
    rekey: st.rekey,
  }));
  const keyChoice =
    KEY_CHOICES.find((c) => describeKeySpec(c.spec) === describeKeySpec(s.keySpec))?.id ?? 'client';
  const status = s.status;
  return (
    <section className="panel trace-panel" aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`}>Your traffic</h2>
      <p className="hint">
        An access log (nginx, ALB, HAR, CSV/TSV, JSON lines; gzip too). It is read here and never
        leaves your browser.
      </p>
      <label className="trace-file">
        Access log{' '}
        <input
          type="file"
          data-testid="trace-file"
          onChange={(e) => {
            const f = e.currentTarget.files?.[0];
            if (f) s.load(f);
            e.currentTarget.value = '';
          }}
        />
      </label>
      <label className="field">
        Key{' '}
        <select
          value={keyChoice}
          onChange={(e) => s.rekey(KEY_CHOICES.find((c) => c.id === e.target.value)?.spec ?? [])}
        >
          {KEY_CHOICES.map((c) => (
            <option key={c.id} value={c.id}>
              {c.label}
            </option>
          ))}
        </select>
      </label>
      {status.kind === 'loading' && (
        <div className="trace-progress" role="status" data-testid="trace-progress">
          <progress max={Math.max(1, status.total)} value={status.bytes} />
          <span>
            {status.fileName}: {plural(status.requests, 'request')}, {n(status.malformed)} malformed
          </span>
          <button type="button" onClick={s.cancel}>
            Cancel
          </button>
        </div>
      )}
      {status.kind === 'error' && (
        <p className="trace-error" role="alert" data-testid="trace-error">
          {status.message}
        </p>
      )}
      <TraceReplay />
      <TraceKeep />
      {s.trace !== null && <TraceSummary trace={s.trace} />}
      {s.trace !== null && <TraceDryRun trace={s.trace} />}
      {s.trace !== null && <TraceSweep key={s.replayHash} />}
    </section>
  );
}
