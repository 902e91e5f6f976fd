/**
 * A log too large to hold (src/trace/budget.ts), read by a streaming pass in a worker: progress
 * with a running count and cancel, then what the pass found — requests, keys, span, the busiest
 * keys, requests and the current limiter's rejections over time, and the dry run against the
 * log's recorded 429/503s. The pass runs again when the limiter changes (the newest wins); a pass
 * that fails or is cancelled leaves the last result on the page.
 */
import { useEffect, useId, useMemo } from 'react';
import { useStore } from 'zustand';
import { useShallow } from 'zustand/react/shallow';
import { emptyKeyOutcome, plural, quoteText } from '../../core';
import type { AlgorithmConfig } from '../../core';
import { systemOf } from '../../systems';
import { budgetInWords, sweepPlan } from '../../trace';
import type { KeySpec, StreamOverview, StreamResult } from '../../trace';
import { usePlayground, usePlaygroundShallow } from '../../store/react';
import { streamStore } from '../../store/streamLoad';
import type { StreamSweepStatus } from '../../store/streamLoad';
import { SweepGrid, SweepStart } from './TraceSweep';
import './traceStreamed.css';

const n = (x: number): string => x.toLocaleString('en-US');
const MB = (bytes: number): string => `${n(Math.round(bytes / 1_000_000))} MB`;
const iso = (ms: number): string =>
  Number.isFinite(ms) ? new Date(ms).toISOString().replace('.000Z', 'Z') : '–';

/** Requests per bin as bars, the limiter's rejections over them; described in words for readers. */
function OverviewBars({ overview, firstMs }: { overview: StreamOverview; firstMs: number }) {
  const { requests, rejected, binMs } = overview;
  const W = 600;
  const H = 80;
  const { reqPath, rejPath, peak, peakAt } = useMemo(() => {
    let max = 1;
    let at = 0;
    for (let i = 0; i < requests.length; i += 1) {
      if ((requests[i] as number) > max) {
        max = requests[i] as number;
        at = i;
      }
    }
    const bw = W / Math.max(1, requests.length);
    const bars = (col: Uint32Array): string => {
      let d = '';
      for (let i = 0; i < col.length; i += 1) {
        const v = col[i] as number;
        if (v === 0) continue;
        const h = (v / max) * H;
        d += `M${(i * bw).toFixed(2)},${H}v${(-h).toFixed(2)}h${Math.max(bw, 0.5).toFixed(2)}v${h.toFixed(2)}z`;
      }
      return d;
    };
    return { reqPath: bars(requests), rejPath: bars(rejected), peak: max, peakAt: at };
  }, [requests, rejected]);
  const minutes = binMs / 60_000;
  return (
    <figure className="trace-streamed-overview">
      <svg
        viewBox={`0 0 ${W} ${H}`}
        preserveAspectRatio="none"
        role="img"
        aria-label={`Requests per ${minutes === 1 ? 'minute' : `${minutes} minutes`}; the busiest bin holds ${n(peak)}, from ${iso(firstMs + peakAt * binMs)}.`}
      >
        <path d={reqPath} className="trace-streamed-req" />
        <path d={rejPath} className="trace-streamed-rej" />
      </svg>
      <figcaption>
        Requests per {minutes === 1 ? 'minute' : `${n(minutes)} minutes`} (grey bars) and, in front
        of them, the limiter’s rejections (coloured), {iso(firstMs)} to the last request.
      </figcaption>
    </figure>
  );
}

function Result({ result, config }: { result: StreamResult; config: AlgorithmConfig }) {
  const d = result.decisions[0];
  const r = result.report;
  return (
    <div className="trace-streamed-result" data-testid="trace-streamed-result">
      <p>
        <strong>{plural(result.requests, 'request')}</strong> from {plural(result.keys, 'key')},{' '}
        {iso(result.firstMs)} to {iso(result.lastMs)} ({r.formatName}; {plural(r.lines, 'line')},{' '}
        {n(r.malformed)} malformed).
      </p>
      {result.exact ? (
        <p className="hint">Every request was decided in time order: the figures are exact.</p>
      ) : (
        <p className="trace-streamed-inexact" role="note">
          Not exact: {plural(result.outsideWindow, 'request')} came further back than the reorder
          window and {result.outsideWindow === 1 ? 'was' : 'were'} decided where{' '}
          {result.outsideWindow === 1 ? 'it stands' : 'they stand'} in the file.
        </p>
      )}
      {d !== undefined && (
        <p data-testid="trace-streamed-dry">
          {config.kind}: {n(d.admitted)} admitted, {n(d.delayed)} delayed,{' '}
          <strong>{n(d.rejected)} rejected</strong>. Against the log’s recorded 429/503s:{' '}
          {n(d.toRejected)} allowed → rejected, {n(d.toAllowed)} rejected → allowed,{' '}
          {n(d.toDelayed)} allowed → delayed.
        </p>
      )}
      <OverviewBars overview={result.overview} firstMs={result.firstMs} />
      <div className="trace-streamed-scroll">
        <table>
          <caption>Busiest keys</caption>
          <thead>
            <tr>
              <th scope="col">Key</th>
              <th scope="col">Requests</th>
              <th scope="col">Most in 1 s</th>
              <th scope="col">Rejected</th>
            </tr>
          </thead>
          <tbody>
            {result.top.map((k) => (
              <tr key={k.key}>
                <td>{quoteText(k.key, 60)}</td>
                <td>{n(k.requests)}</td>
                <td>{n(k.peakPerSecond)}</td>
                <td>{n(k.rejected)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {r.notes.length > 0 && (
        <ul className="trace-streamed-notes">
          {r.notes.map((note) => (
            <li key={note}>{note}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** Where the cells read the requests from, in words. */
const SOURCE_WORDS = {
  opfs: 'its compact copy in this site’s private storage',
  blob: 'its compact copy in the browser’s storage',
  text: 'the file’s text',
} as const;

/** The sweep's progress or outcome, in words. */
function sweepStatusWords(status: StreamSweepStatus): string {
  switch (status.kind) {
    case 'running':
      if (status.phase === 'count') {
        return `Reading the file once (each key’s requests, kept compactly for the cells): ${MB(status.bytes)} of ${MB(status.total)}, ${plural(status.requests, 'request')}…`;
      }
      if (status.phase === 'cells') {
        const share = status.total > 0 ? Math.floor((100 * status.bytes) / status.total) : 0;
        return `Deciding every cell for the ${plural(status.requests, 'request')}: ${share}% done…`;
      }
      return `Pass ${Math.max(1, status.pass)} of ${Math.max(1, status.passes)}: ${MB(status.bytes)} of ${MB(status.total)}, ${plural(status.requests, 'request')}…`;
    case 'done': {
      const how =
        status.source === 'text'
          ? `in ${plural(status.passes, 'pass', 'passes')} over the file’s text (it could not be kept compactly)`
          : `read once, the cells decided over ${SOURCE_WORDS[status.source]} by ${plural(status.workers, 'worker')}`;
      const exact =
        status.outsideWindow > 0
          ? `; not exact: ${plural(status.outsideWindow, 'request')} came further back than the reorder window`
          : '; exact';
      return `${plural(status.requests, 'request')}, ${how}${exact}`;
    }
    case 'cancelled':
      return 'Cancelled: the cells shown are from the passes that finished.';
    case 'error':
      return status.message;
  }
}

/**
 * The sweep over the streamed log: the grid laid around the limiter being edited, each cell decided
 * for every request of the file in passes that hold per-key state only; progress, cancel, then the
 * held sweep's heatmap. Picking a cell sets the limiter (the statistics pass then runs for it).
 */
function StreamedSweep({ file, keySpec }: { file: File; keySpec: KeySpec }) {
  const id = useId();
  const p = usePlaygroundShallow((s) => ({
    lane: s.activeLane,
    entry: s.limiters[s.activeLane],
    config: s.limiters[s.activeLane]?.config,
    windowMs: s.scenario.metrics?.windowMs ?? 1000,
    setLimiterConfig: s.setLimiterConfig,
  }));
  // The limiter's system's rule for requests with an empty key, as the held sweep applies it.
  const emptyOutcome = p.entry === undefined ? null : emptyKeyOutcome(systemOf(p.entry).emptyKey);
  const sw = useStore(
    streamStore(),
    useShallow((s) => ({ sweep: s.sweep, startSweep: s.startSweep, cancel: s.cancelSweep })),
  );
  const plan = useMemo(() => (p.config === undefined ? null : sweepPlan(p.config, 20)), [p.config]);
  const mine =
    sw.sweep !== null && sw.sweep.asked.file === file && sw.sweep.asked.keySpec === keySpec
      ? sw.sweep
      : null;
  const shownPlan = useMemo(() => (mine === null ? null : sweepPlan(mine.asked.base, 20)), [mine]);
  if (plan === null) {
    return (
      <p className="muted">
        The sweep covers nginx, Envoy, redis-cell and the fixed, sliding and sliding-window limits;
        pick one of those to sweep.
      </p>
    );
  }
  const start = () => {
    if (p.config === undefined) return;
    const configs: AlgorithmConfig[] = [];
    for (let xi = 0; xi < plan.x.values.length; xi += 1)
      for (let yi = 0; yi < plan.y.values.length; yi += 1) configs.push(plan.configAt(xi, yi));
    sw.startSweep({ file, keySpec, base: p.config, configs, windowMs: p.windowMs, emptyOutcome });
  };
  const status = mine?.status;
  const total = plan.x.values.length * plan.y.values.length;
  return (
    <section className="trace-sweep" aria-labelledby={`${id}-h`} data-testid="trace-streamed-sweep">
      <h3 id={`${id}-h`}>Numbers that fit</h3>
      <p className="hint">
        {plan.x.label} × {plan.y.label}: {total} exact replays of every request in the file (no
        retries, one instance), the file read once, then every cell decided over a compact copy of
        its requests.
      </p>
      <SweepStart
        running={status?.kind === 'running'}
        total={total}
        onStart={start}
        onCancel={sw.cancel}
      >
        {status !== undefined && <>{sweepStatusWords(status)}</>}
      </SweepStart>
      {shownPlan !== null && mine !== null && (
        <SweepGrid
          plan={shownPlan}
          windowMs={mine.asked.windowMs}
          results={mine.cells}
          errors={mine.errors}
          ran
          onPick={(config) => p.setLimiterConfig(p.lane, config)}
        />
      )}
    </section>
  );
}

/** The pass over `file`, keyed by `keySpec`, with the limiter being edited. */
export function TraceStreamed({ file, keySpec }: { file: File; keySpec: KeySpec }) {
  const id = useId();
  const config = usePlayground((s) => s.limiters[s.activeLane]?.config ?? s.limiters[0]?.config);
  const configText = config === undefined ? '' : JSON.stringify(config);
  const st = useStore(
    streamStore(),
    useShallow((s) => ({ status: s.status, result: s.result, start: s.start, cancel: s.cancel })),
  );
  const start = st.start;
  useEffect(() => {
    const configs = configText === '' ? [] : [JSON.parse(configText) as AlgorithmConfig];
    start({ file, keySpec, configs, baseline: 'recorded' });
  }, [file, keySpec, configText, start]);
  const status = st.status;
  const shown =
    st.result !== null && st.result.asked.file === file && st.result.asked.keySpec === keySpec
      ? st.result
      : null;
  return (
    <section className="trace-streamed" aria-labelledby={`${id}-h`} data-testid="trace-streamed">
      <h3 id={`${id}-h`}>
        {quoteText(file.name, 80)} ({MB(file.size)}): read as a stream
      </h3>
      <p className="hint">{budgetInWords()} The stage keeps the trace it had.</p>
      {status.kind === 'running' && (
        <div className="trace-progress" role="status" data-testid="trace-streamed-progress">
          <progress max={Math.max(1, status.total)} value={status.bytes} />
          <span>
            {MB(status.bytes)} of {MB(status.total)}
            {status.figures !== null &&
              `: ${plural(status.figures.requests, 'request')}, ${plural(status.figures.keys, 'key')}` +
                (status.figures.decisions[0] !== undefined
                  ? `, ${n(status.figures.decisions[0].rejected)} rejected so far`
                  : '')}
          </span>
          <button type="button" onClick={st.cancel}>
            Cancel
          </button>
        </div>
      )}
      {status.kind === 'cancelled' && (
        <p className="hint" role="status">
          Cancelled
          {shown !== null ? ': the figures below are from the last pass that finished.' : '.'}
        </p>
      )}
      {status.kind === 'error' && (
        <p className="trace-error" role="alert" data-testid="trace-streamed-error">
          {status.message}
          {shown !== null ? ' The figures below are from the last pass that finished.' : ''}
        </p>
      )}
      {shown !== null && shown.asked.configs[0] !== undefined && (
        <Result result={shown.result} config={shown.asked.configs[0]} />
      )}
      {shown !== null && <StreamedSweep file={file} keySpec={keySpec} />}
    </section>
  );
}
