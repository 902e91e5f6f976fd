/**
 * A log too large to hold (src/trace/budget.ts), read by a streaming pass in a worker: progress
 * with a running count and cancel, then what the pass found — requests, keys, span, the busiest
 * keys, requests and the current limiter's rejections over time, and the dry run against the
 * log's recorded 429/503s. The pass runs again when the limiter changes (the newest wins); a pass
 * that fails or is cancelled leaves the last result on the page.
 */
import { memo, useCallback, useEffect, useId, useMemo, useState } from 'react';
import { useStore } from 'zustand';
import { useShallow } from 'zustand/react/shallow';
import { laneNames } from '../../config/laneNames';
import { emptyKeyOutcome, plural, quoteText } from '../../core';
import type { AlgorithmConfig } from '../../core';
import { systemOf } from '../../systems';
import { BUDGET_REQUESTS, budgetInWords, linkName, sweepPlan } from '../../trace';
import type { TraceSource } from '../../sim';
import type { KeySpec, StreamOverview, StreamResult } from '../../trace';
import { usePlayground, usePlaygroundShallow } from '../../store/react';
import { streamStore } from '../../store/streamLoad';
import type { StreamSweepStatus } from '../../store/streamLoad';
import { traceLoadStore } from '../../store/traceReact';
import { Measured } from '../experiments/Measured';
import { TraceOverviewChart, TraceOverviewLegend } from '../stage/TraceOverviewChart';
import { traceEndMs } from '../stage/traceSpan';
import type { Span } from '../stage/traceSpan';
import '../stage/traceOverview.css';
import { EmptyKeyRow } from './EmptyKeyRow';
import { SweepGrid, SweepStart } from './TraceSweep';
import './traceStreamed.css';

const n = (x: number): string => x.toLocaleString('en-US');
const MB = (bytes: number): string => `${n(Math.round(bytes / 1_000_000))} MB`;
const iso = (ms: number): string =>
  Number.isFinite(ms) ? new Date(ms).toISOString().replace('.000Z', 'Z') : '–';

const DAY_MS = 86_400_000;

/**
 * The span [from, to) (epoch ms) a link names for `file`: its trace source names this file (its
 * name as a link writes it, and its size) and the span the trace was read out of. Else null.
 */
function useLinkedSpan(file: File): [number, number] | null {
  const t = usePlaygroundShallow((s) => {
    const src = s.scenario.sources.find((x): x is TraceSource => x.kind === 'trace');
    return { name: src?.name, bytes: src?.bytes, from: src?.spanFromMs, to: src?.spanToMs };
  });
  const mine = t.name === linkName(file.name) && t.bytes === file.size;
  const { from, to } = t;
  return useMemo(
    () => (mine && from !== undefined && to !== undefined ? [from, to] : null),
    [mine, from, to],
  );
}

/** The busiest 24 h of the overview (whole bins), epoch ms: the span the stage replays by default. */
export function busiestDay(overview: StreamOverview, firstMs: number): [number, number] {
  const { requests, binMs } = overview;
  const w = Math.max(1, Math.min(requests.length, Math.floor(DAY_MS / binMs)));
  let sum = 0;
  for (let i = 0; i < w; i += 1) sum += requests[i] as number;
  let best = sum;
  let at = 0;
  for (let i = w; i < requests.length; i += 1) {
    sum += (requests[i] as number) - (requests[i - w] as number);
    if (sum > best) {
      best = sum;
      at = i - w + 1;
    }
  }
  return [firstMs + at * binMs, firstMs + (at + w) * binMs];
}

/**
 * Requests of the overview in the span [fromMs, toMs) (epoch ms), as far as its bins tell: `low`
 * counts the bins wholly inside, `high` every bin the span touches. Said before the read, so the
 * person knows whether the span fits the page.
 */
export function spanRequests(
  overview: StreamOverview,
  firstMs: number,
  fromMs: number,
  toMs: number,
): { low: number; high: number } {
  const { requests, binMs } = overview;
  let low = 0;
  let high = 0;
  for (let i = 0; i < requests.length; i += 1) {
    const a = firstMs + i * binMs;
    const v = requests[i] as number;
    if (a + binMs <= fromMs || a >= toMs) continue;
    high += v;
    if (a >= fromMs && a + binMs <= toMs) low += v;
  }
  return { low, high };
}

/** The span's size against the page's bound, in words, before it is read. */
function spanBoundWords({ low, high }: { low: number; high: number }): string {
  // A range's noun follows its upper end ("0 to 2 requests").
  const count = low === high ? plural(low, 'request') : `${n(low)} to ${plural(high, 'request')}`;
  const fits =
    high <= BUDGET_REQUESTS
      ? 'it fits.'
      : low > BUDGET_REQUESTS
        ? `it will be cut where the first ${n(BUDGET_REQUESTS)} end.`
        : `it may be cut where the first ${n(BUDGET_REQUESTS)} end.`;
  return `By the overview, this span holds ${count}; the page holds at most ${n(BUDGET_REQUESTS)}: ${fits}`;
}

/**
 * The span of the streamed log the stage replays, picked on the overview (drag the span or its
 * ends, or use its sliders' keys) or typed as from and to (UTC); the busiest 24 h by default, or
 * the span a link names for this file. It is read out of the file by a pass in a worker
 * (progress, cancel) into a trace the page holds, at most BUDGET_REQUESTS requests (a longer span
 * is cut, and says where). The held panel below then shows it, its dry run and its replay on the
 * stage. Memoised, as Result and StreamedSweep are: the pass's progress redraws the panel around
 * them ten times a second, and their charts and tables are drawn again only when their props
 * change.
 */
const SpanPicker = memo(function SpanPicker({
  result,
  file,
  keySpec,
}: {
  result: StreamResult;
  file: File;
  keySpec: KeySpec;
}) {
  const id = useId();
  const base = result.firstMs;
  const endMs = traceEndMs(result.lastMs - base);
  const linked = useLinkedSpan(file);
  const initial = useMemo(
    () => linked ?? busiestDay(result.overview, result.firstMs),
    [linked, result],
  );
  const [from, setFrom] = useState(() => iso(initial[0]));
  const [to, setTo] = useState(() => iso(initial[1]));
  // A link naming another span of this file arrived (or the file was read again): show it.
  const [shownInitial, setShownInitial] = useState(initial);
  if (shownInitial !== initial) {
    setShownInitial(initial);
    setFrom(iso(initial[0]));
    setTo(iso(initial[1]));
  }
  const sp = useStore(
    streamStore(),
    useShallow((s) => ({ span: s.span, loadSpan: s.loadSpan, cancel: s.cancelSpan })),
  );
  const limiter = usePlayground((s) => {
    const entry = s.limiters[s.activeLane] ?? s.limiters[0];
    return entry === undefined ? 'the limiter' : (entry.name ?? systemOf(entry).name);
  });
  const fromMs = Date.parse(from);
  const toMs = Date.parse(to);
  const problem = !Number.isFinite(fromMs)
    ? `From: ${quoteText(from)} is not a time (write it as 2026-01-05T00:00:00Z).`
    : !Number.isFinite(toMs)
      ? `To: ${quoteText(to)} is not a time (write it as 2026-01-05T00:00:00Z).`
      : toMs <= fromMs
        ? 'To must be later than from.'
        : null;
  // The chart shows the typed span (within the file), or the last good one while a field is wrong.
  const [good, setGood] = useState(initial);
  if (problem === null && (good[0] !== fromMs || good[1] !== toMs)) setGood([fromMs, toMs]);
  const clamp = (v: number): number => Math.min(endMs, Math.max(0, v - base));
  const chartSpan: Span = {
    fromMs: clamp(good[0]),
    lengthMs: Math.max(0, clamp(good[1]) - clamp(good[0])),
  };
  const pick = (s: Span): void => {
    setFrom(iso(base + s.fromMs));
    setTo(iso(base + s.fromMs + s.lengthMs));
  };
  const bound = spanRequests(result.overview, base, good[0], good[1]);
  const status = sp.span !== null && sp.span.asked.file === file ? sp.span.status : null;
  return (
    <fieldset className="trace-streamed-span" data-testid="trace-streamed-span">
      <legend>The span the stage replays</legend>
      <p className="hint" id={`${id}-hint`}>
        Drag the span or its ends on the overview, use their arrow keys (a bin; Page Up and Down: an
        hour), or type the times (UTC).{' '}
        {linked === null
          ? 'The busiest 24 h is picked for you.'
          : 'The span the link names is picked for you.'}{' '}
        The span is read out of the file into the page, at most {n(BUDGET_REQUESTS)} requests: a
        longer span is cut where that many end, and says so.
      </p>
      <Measured className="trace-overview-plot trace-streamed-chart">
        {(w) => (
          <TraceOverviewChart
            width={w}
            baseMs={base}
            endMs={endMs}
            binMs={result.overview.binMs}
            requests={result.overview.requests}
            rejected={result.overview.rejected}
            span={chartSpan}
            onSpan={pick}
            maxLengthMs={endMs}
          />
        )}
      </Measured>
      <TraceOverviewLegend binMs={result.overview.binMs} limiter={limiter} />
      <label className="field">
        From{' '}
        <input
          value={from}
          onChange={(e) => setFrom(e.currentTarget.value)}
          aria-describedby={`${id}-hint ${id}-bound`}
          aria-invalid={problem !== null && problem.startsWith('From')}
          data-testid="trace-span-from"
          size={20}
        />
      </label>{' '}
      <label className="field">
        To{' '}
        <input
          value={to}
          onChange={(e) => setTo(e.currentTarget.value)}
          aria-describedby={`${id}-hint ${id}-bound`}
          aria-invalid={problem !== null && !problem.startsWith('From')}
          data-testid="trace-span-to"
          size={20}
        />
      </label>{' '}
      {status?.kind === 'running' ? (
        <button type="button" onClick={sp.cancel}>
          Cancel
        </button>
      ) : (
        <button
          type="button"
          disabled={problem !== null}
          data-testid="trace-span-read"
          onClick={() =>
            sp.loadSpan({ file, keySpec, fromMs, toMs }, traceLoadStore().getState().holdSpan)
          }
        >
          Read this span for the stage
        </button>
      )}
      <p className="hint" id={`${id}-bound`} data-testid="trace-span-bound">
        {spanBoundWords(bound)}
      </p>
      {problem !== null && (
        <p className="trace-error" role="alert">
          {problem}
        </p>
      )}
      {status !== null && (
        <p role="status" data-testid="trace-span-status">
          {status.kind === 'running'
            ? `${MB(status.bytes)} of ${MB(status.total)}: ${plural(status.inSpan, 'request')} in the span so far…`
            : status.kind === 'done'
              ? `${plural(status.requests, 'request')} of the span are held below; replay them on the stage there.` +
                (status.cutAtMs !== null
                  ? ` The span was cut at ${iso(status.cutAtMs)}: the page holds at most ${n(BUDGET_REQUESTS)} requests.`
                  : '')
              : status.kind === 'cancelled'
                ? 'Cancelled: the page keeps the trace it had.'
                : `${status.message} The page keeps the trace it had.`}
        </p>
      )}
    </fieldset>
  );
});

const Result = memo(function Result({
  result,
  name,
  keySpec,
}: {
  result: StreamResult;
  /** The limiter the dry run decided with, as the page names its lane. */
  name: string;
  keySpec: KeySpec;
}) {
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
          {name}: {n(d.admitted)} admitted, {n(d.delayed)} delayed,{' '}
          <strong>{n(d.rejected)} rejected</strong>. Against the log’s recorded 429/503s:{' '}
          {n(d.toRejected)} allowed → rejected, {n(d.toAllowed)} rejected → allowed,{' '}
          {n(d.toDelayed)} allowed → delayed.
        </p>
      )}
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
      {result.empty !== null && (
        <EmptyKeyRow
          count={result.empty.requests}
          keySpec={keySpec}
          withAddress={result.empty.withAddress}
        />
      )}
      {r.notes.length > 0 && (
        <ul className="trace-streamed-notes">
          {r.notes.map((note) => (
            <li key={note}>{note}</li>
          ))}
        </ul>
      )}
    </div>
  );
});

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
 * for every request of the file over a compact copy of its requests (the file read once), one
 * worker per core; progress, cancel, then the held sweep's heatmap. Picking a cell sets the limiter (the statistics pass then runs for it).
 */
export const StreamedSweep = memo(function StreamedSweep({
  file,
  keySpec,
}: {
  file: File;
  keySpec: KeySpec;
}) {
  const id = useId();
  const p = usePlaygroundShallow((s) => ({
    lane: s.activeLane,
    entry: s.limiters[s.activeLane],
    config: s.limiters[s.activeLane]?.config,
    windowMs: s.scenario.metrics?.windowMs ?? 1000,
    setLimiterConfig: s.setLimiterConfig,
  }));
  // The limiter's system's rule for requests with an empty key, as the held sweep applies it
  // (src/store/sweep.ts runSweep): 'client' keys those with an address by it (Kong).
  const system = p.entry === undefined ? undefined : systemOf(p.entry);
  const rule = system?.emptyKey;
  const emptyOutcome = rule === 'client' ? 'client' : emptyKeyOutcome(rule);
  const sw = useStore(
    streamStore(),
    useShallow((s) => ({ sweep: s.sweep, startSweep: s.startSweep, cancel: s.cancelSweep })),
  );
  // The axes named as the limiter's system names its fields (as the held sweep's).
  const words = system?.params;
  const plan = useMemo(
    () => (p.config === undefined ? null : sweepPlan(p.config, 20, words)),
    [p.config, words],
  );
  const mine =
    sw.sweep !== null && sw.sweep.asked.file === file && sw.sweep.asked.keySpec === keySpec
      ? sw.sweep
      : null;
  // Laid out from the sweep's own limiter, which stays while its progress and cells change: the
  // grid (memo) then redraws only when cells arrive, not at every progress message.
  const shownBase = mine?.asked.base ?? null;
  const shownPlan = useMemo(
    () => (shownBase === null ? null : sweepPlan(shownBase, 20, words)),
    [shownBase, words],
  );
  const { setLimiterConfig, lane } = p;
  const onPick = useCallback(
    (config: AlgorithmConfig) => setLimiterConfig(lane, config),
    [setLimiterConfig, lane],
  );
  if (plan === null) {
    return <p className="muted">The sweep has no two parameters to lay out for this limiter.</p>;
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
          onPick={onPick}
        />
      )}
    </section>
  );
});

/** The pass over `file`, keyed by `keySpec`, with the limiter being edited. */
export function TraceStreamed({ file, keySpec }: { file: File; keySpec: KeySpec }) {
  const id = useId();
  const config = usePlayground((s) => s.limiters[s.activeLane]?.config ?? s.limiters[0]?.config);
  const configText = config === undefined ? '' : JSON.stringify(config);
  // The lane as every other view names it ("Kong", "nginx #2", or the person's own name).
  const limiterName = usePlayground((s) => {
    const i = s.limiters[s.activeLane] === undefined ? 0 : s.activeLane;
    return laneNames(s.limiters)[i] ?? null;
  });
  // The limiter's system's rule for requests with an empty key, as the held dry run applies it:
  // not limited (nginx, HAProxy), denied (Spring), keyed by client address (Kong), or one key.
  const emptyOutcome = usePlayground((s) => {
    const entry = s.limiters[s.activeLane] ?? s.limiters[0];
    const rule = entry === undefined ? undefined : systemOf(entry).emptyKey;
    return rule === 'client' ? 'client' : emptyKeyOutcome(rule);
  });
  const st = useStore(
    streamStore(),
    useShallow((s) => ({ status: s.status, result: s.result, start: s.start, cancel: s.cancel })),
  );
  const start = st.start;
  useEffect(() => {
    const configs = configText === '' ? [] : [JSON.parse(configText) as AlgorithmConfig];
    start({ file, keySpec, configs, baseline: 'recorded', emptyOutcome });
  }, [file, keySpec, configText, emptyOutcome, start]);
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
      {shown !== null && (
        <SpanPicker result={shown.result} file={file} keySpec={shown.asked.keySpec} />
      )}
      {shown !== null && shown.asked.configs[0] !== undefined && (
        <Result
          result={shown.result}
          // The limiter's name while the figures are its config's; figures of another config
          // (a pass for the edited one still running) keep the algorithm's name.
          name={
            limiterName !== null && JSON.stringify(shown.asked.configs[0]) === configText
              ? limiterName
              : shown.asked.configs[0].kind
          }
          keySpec={shown.asked.keySpec}
        />
      )}
      {shown !== null && <StreamedSweep file={file} keySpec={keySpec} />}
    </section>
  );
}
