import { Suspense, useDeferredValue, useEffect, useId, useMemo, useState } from 'react';
import { createPortal } from 'react-dom';
import {
  HELD_TOP_KEYS,
  arrivalAt,
  describeKeySpec,
  emptyKeyId,
  missingWhat,
  nameWorst,
  windowStatsById,
} from '../../trace';
import { copyInSlices } from '../common/copyInSlices';
import { formatTime } from '../common/format';
import { formatClock } from './clockTime';
import type { HeldTrace, WindowStats } from '../../trace';
import type { StatsReply, StatsRequest } from '../../store/stats.worker';
import { useTraceLoad } from '../../store/traceReact';
import { usePlayground } from '../../store/react';
import { NumberField } from '../common/fields';
import { TraceDryRun } from './TraceDryRun';
import { plural, pluralNoun, quoteText } from '../../core';
import { EmptyKeyRow, addressed } from './EmptyKeyRow';
import { KeyPicker } from './KeyPicker';
import { PageDrop } from './PageDrop';
import { TraceKeep } from './TraceKeep';
import { TraceReplay } from './TraceReplay';
import { TraceSweep } from './TraceSweep';
import { Loading, lazyPart } from '../common/lazyPart';

/** The dry run as SQL for a log store: a chunk of its own, fetched when first opened. */
const TraceSql = lazyPart(() => import('./TraceSql').then((m) => m.TraceSql), 'SQL for log stores');

/** A log too large to hold, read by streaming passes: its own chunk, fetched for such a log. */
const TraceStreamed = lazyPart(
  () => import('./TraceStreamed').then((m) => m.TraceStreamed),
  'the streaming pass',
);
/** The overview of a replayed log: its own chunk, fetched when a log is first replayed. */
const TraceOverview = lazyPart(
  () => import('../stage/TraceOverview').then((m) => m.TraceOverview),
  'overview of the access log',
);

/**
 * The overview of the log the stage replays, drawn on the stage above the timeline (in the slot
 * App leaves there) while the scenario replays a log. From here rather than from the stage, so the
 * page's first script carries none of it.
 */
function OverviewOnStage() {
  const replaying = usePlayground((s) => s.scenario.sources.some((x) => x.kind === 'trace'));
  // Looked up when the scenario starts or stops replaying (this renders again then): the slot
  // stands on the stage for the page's life, outside everything the stage shows or hides.
  const slot = replaying ? document.getElementById('trace-overview-slot') : null;
  if (slot === null) return null;
  return createPortal(
    <Suspense fallback={null}>
      <TraceOverview />
    </Suspense>,
    slot,
  );
}

const n = (v: number): string => v.toLocaleString('en-US');

/** Malformed lines listed under the summary (the trace keeps a few more than this). */
const MALFORMED_SHOWN = 10;

/**
 * Requests-per-W of `trace`: the statistics it came with for their W; for another W, computed in a
 * worker (a pass over every request would block the page), or here where there is no Worker.
 * Null while the worker computes; a message when W was refused.
 */
function useWindowStats(trace: HeldTrace, windowMs: number): WindowStats | string | null {
  const held = windowMs === trace.stats.windowMs;
  const here = typeof Worker === 'undefined';
  const computedHere = useMemo((): WindowStats | string | null => {
    if (held || !here) return null;
    try {
      const skip = emptyKeyId(trace);
      const input = { ...trace, keyCount: trace.keys.length, arrivalMs: trace.times, skip };
      return nameWorst(windowStatsById(input, windowMs, HELD_TOP_KEYS), trace.keys);
    } catch (e) {
      return (e as Error).message;
    }
  }, [trace, windowMs, held, here]);
  const [fromWorker, setFromWorker] = useState<{
    trace: HeldTrace;
    windowMs: number;
    stats: WindowStats | string;
  } | null>(null);
  useEffect(() => {
    if (held || here) return;
    const w = new Worker(new URL('../../store/stats.worker.ts', import.meta.url), {
      type: 'module',
    });
    w.onmessage = (e: MessageEvent<StatsReply>) => {
      w.terminate();
      const r = e.data;
      setFromWorker({
        trace,
        windowMs,
        stats: r.ok ? nameWorst(r.stats, trace.keys) : r.message,
      });
    };
    w.onerror = (e) => {
      w.terminate();
      setFromWorker({ trace, windowMs, stats: `The statistics stopped: ${e.message}` });
    };
    // Copies for the worker (transferred; the page keeps its own), made in slices.
    const skip = emptyKeyId(trace);
    const stopCopy = copyInSlices([trace.times, trace.keyId], trace.count, ([times, keyId]) => {
      const req: StatsRequest = {
        count: trace.count,
        keyId,
        keyCount: trace.keys.length,
        arrivalMs: times,
        windowMs,
        top: HELD_TOP_KEYS,
        skip,
      };
      w.postMessage(req, [times.buffer, keyId.buffer]);
    });
    return () => {
      stopCopy();
      w.terminate();
    };
  }, [trace, windowMs, held, here]);
  if (held) return trace.stats;
  if (here) return computedHere;
  return fromWorker !== null && fromWorker.trace === trace && fromWorker.windowMs === windowMs
    ? fromWorker.stats
    : null;
}

function TraceSummary({ trace }: { trace: HeldTrace }) {
  const [windowMs, setWindowMs] = useState(trace.stats.windowMs);
  const top = trace.top;
  // The keys ranked in the table: the empty key's requests are counted on a line of their own.
  const ranked = trace.keys.length - (trace.emptyRequests > 0 ? 1 : 0);
  const stats = useWindowStats(trace, windowMs);
  const r = trace.report;
  const malformedShown = r.malformedFirst.slice(0, MALFORMED_SHOWN);
  const spanMs =
    trace.count > 0 ? (trace.times[trace.count - 1] as number) - (trace.times[0] as number) : 0;
  return (
    <div className="trace-summary" data-testid="trace-summary">
      <p>
        <strong>{quoteText(trace.name)}</strong>: {r.formatName},{' '}
        <span data-testid="trace-count">{n(trace.count)}</span> {pluralNoun(trace.count, 'request')}{' '}
        over {formatTime(spanMs)}
        {trace.count > 0 &&
          ` (${formatClock(arrivalAt(trace, 0))} to ${formatClock(arrivalAt(trace, trace.count - 1))})`}
        , <span data-testid="trace-keys">{n(ranked)}</span> {pluralNoun(ranked, 'key')} by{' '}
        {describeKeySpec(trace.keySpec)}
        {trace.emptyRequests > 0 &&
          `, and ${plural(trace.emptyRequests, 'request')} with ${missingWhat(trace.keySpec)}`}
        .
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
            {n(r.malformed)} malformed {pluralNoun(r.malformed, 'line')}
            {malformedShown.length < r.malformed
              ? ` (the first ${n(malformedShown.length)} of ${n(r.malformed)})`
              : ''}
          </summary>
          <ul className="trace-malformed" data-testid="trace-malformed">
            {malformedShown.map((m) => (
              <li key={m.line}>
                line {m.line}: {m.reason}
              </li>
            ))}
          </ul>
        </details>
      )}
      <table className="trace-top-keys">
        <caption>
          {top.length < ranked
            ? `Top ${plural(top.length, 'key')} by volume, of ${n(ranked)}`
            : 'Keys by volume'}
        </caption>
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
              <td>{quoteText(k.key)}</td>
              <td>{n(k.requests)}</td>
              <td>{(k.share * 100).toFixed(1)}%</td>
            </tr>
          ))}
        </tbody>
      </table>
      <EmptyKeyRow
        count={trace.emptyRequests}
        keySpec={trace.keySpec}
        withAddress={addressed(trace.emptyClients)}
      />
      {trace.natHints.length > 0 && (
        <p className="trace-nat" data-testid="trace-nat">
          Possible NAT:{' '}
          {trace.natHints
            .map(
              (h) =>
                `${quoteText(h.client)} (${h.userAgents}${h.userAgents >= 64 ? '+' : ''} user agents)`,
            )
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
        {stats !== null && typeof stats !== 'string' ? (
          <p data-testid="trace-window-stats">
            Most requests a key sent in any {n(windowMs)} ms: p50 {n(stats.p50)}, p90 {n(stats.p90)}
            , p99 {n(stats.p99)}, max {n(stats.max)}
            {stats.worst[0] !== undefined ? ` (${quoteText(stats.worst[0].key)})` : ''}.
          </p>
        ) : (
          <p data-testid="trace-window-stats" aria-busy={stats === null}>
            {stats ?? `Counting the most requests a key sent in any ${n(windowMs)} ms…`}
          </p>
        )}
      </div>
    </div>
  );
}

/** "Run it where your logs live": closed until asked for, so its chunk loads only then. */
function SqlSection({ trace }: { trace: HeldTrace | null }) {
  const [open, setOpen] = useState(false);
  return (
    <details className="trace-sql-section" onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary data-testid="trace-sql-open">Run it where your logs live (SQL)</summary>
      {open && (
        <Suspense fallback={<Loading what="SQL for log stores" />}>
          <TraceSql trace={trace} />
        </Suspense>
      )}
    </details>
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
    streamed: st.streamed,
    prewarm: st.prewarm,
  }));
  const status = s.status;
  // The log's own parts (its summary, dry run and sweep) are drawn from a deferred copy: the
  // render that ends the progress bar runs in the task that receives the parsed log (its copy from
  // the worker, and the garbage collection it brings), and these parts follow in a render React
  // does in slices that yield, so no one task holds both (a log of 40,000 long keys took one task
  // of 60–80 ms).
  const trace = useDeferredValue(s.trace);
  return (
    // Pointing at this panel or moving focus into it starts the parsing workers (the parsing worker
    // and its range workers load their code, about 40 ms apiece in the pinned Chromium) while the
    // person reaches for the chooser; a file dragged over the page does the same (PageDrop). They
    // are not started for every visitor: a page that never reads a log starts none.
    <section
      className="panel trace-panel"
      aria-labelledby={`${id}-heading`}
      onPointerEnter={s.prewarm}
      onFocus={s.prewarm}
    >
      <h2 id={`${id}-heading`}>Your traffic</h2>
      <p className="hint">
        An access log (nginx, ALB, HAR, CSV/TSV, JSON lines, Parquet; gzip too): choose it, or drop
        it anywhere on the page. It is read here and never leaves your browser.
      </p>
      <PageDrop />
      <OverviewOnStage />
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
      <KeyPicker
        keySpec={s.keySpec}
        fields={s.trace?.report.keyFields ?? []}
        headers={s.trace?.report.format === 'har'}
        onPick={s.rekey}
      />
      {status.kind === 'loading' && (
        <div className="trace-progress" role="status" data-testid="trace-progress">
          <progress max={Math.max(1, status.total)} value={status.bytes} />
          <span>
            {quoteText(status.fileName)}: {plural(status.requests, 'request')},{' '}
            {n(status.malformed)} malformed
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
      {s.streamed !== null && (
        <Suspense fallback={<Loading what="the streaming pass" />}>
          <TraceStreamed file={s.streamed.file} keySpec={s.streamed.keySpec} />
        </Suspense>
      )}
      <TraceReplay />
      <TraceKeep />
      {trace !== null && <TraceSummary trace={trace} />}
      {trace !== null && <TraceDryRun trace={trace} />}
      {trace !== null && <TraceSweep key={s.replayHash} />}
      <SqlSection trace={trace} />
    </section>
  );
}
