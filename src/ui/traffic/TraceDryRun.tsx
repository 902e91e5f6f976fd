import { useEffect, useMemo, useRef, useState } from 'react';
import type { AlgorithmConfig } from '../../core';
import { plural, quoteText } from '../../core';
import {
  DryRunGrouper,
  arrivalAt,
  countKey,
  dryRun,
  dryRunCsv,
  emptyKeyId,
  emptyKeyOutcome,
  keyEmptyByClient,
  missingWhat,
  systemWho,
  groupsInTrace,
  replayWithEmptyKey,
  spanColumns,
} from '../../trace';
import type { Baseline, DryRunGroups, EmptyKeyExempt, HeldTrace, SpanChoice } from '../../trace';
import { systemOf } from '../../systems';
import type { DryRunCounts, DryRunReply, DryRunRequest } from '../../store/dryRunProtocol';
import { usePlaygroundShallow } from '../../store/react';
import { useTraceLoad } from '../../store/traceReact';
import { downloadBlob } from '../share/download';
import { copyInSlices } from '../common/copyInSlices';
import { formatTime } from '../common/format';
import { clockOfDay } from './clockTime';

const n = (v: number): string => v.toLocaleString('en-US');
const csvName = (trace: HeldTrace): string => `${trace.name.replace(/\.[^.]*$/, '')}-dry-run.csv`;

/** What a run was asked: results for other inputs are stale. */
interface Asked {
  trace: HeldTrace;
  config: AlgorithmConfig;
  baseline: Baseline;
  span: SpanChoice | null;
  /** Requests with an empty key the system keeps from its limiter (null: none). */
  exempt: EmptyKeyExempt | null;
}

type RunState = Asked &
  (
    | { kind: 'running'; counts: DryRunCounts | null; groups: DryRunGroups | null }
    | { kind: 'done'; counts: DryRunCounts; groups: DryRunGroups }
    | { kind: 'cancelled' }
    | { kind: 'error'; message: string }
  );

/** A worker holding one trace, and the generation of the newest run asked of it. */
interface Runner {
  worker: Worker;
  trace: HeldTrace;
  /**
   * The trace is sent by timers of its own (its arrays copied in slices, then its key names in
   * slices); till the last has run, this stops them, and the newest run waits in `waiting`.
   */
  sending: (() => void) | null;
  waiting: DryRunRequest | null;
}

/**
 * Key names posted at once: copying a message's strings is a task on the page, so 40,000 keys of
 * a hundred characters go in slices, each a task well under 50 ms.
 */
const KEYS_PER_MESSAGE = 4_000;

/**
 * The trace for the worker: copies of its arrays (`copyInSlices`; transferred, the page keeps its
 * own) and its first key names (the rest follow in `keys` messages).
 */
function initMessage(
  trace: HeldTrace,
  [times, keyId, status]: [HeldTrace['times'], HeldTrace['keyId'], HeldTrace['status']],
): { msg: DryRunRequest; transfer: Transferable[] } {
  return {
    msg: {
      type: 'init',
      baseMs: trace.baseMs,
      times,
      keyId,
      status,
      keys: trace.keys.slice(0, KEYS_PER_MESSAGE),
    },
    transfer: [times.buffer, keyId.buffer, status.buffer],
  };
}

/** The requests a run replays (the span's, or all), with the trace's status and arrivals. */
function requestsOf(trace: HeldTrace, span: SpanChoice | null) {
  if (!(trace.times instanceof Int32Array)) throw new Error('The trace cannot be replayed.');
  const whole = { timeMs: trace.times, keyId: trace.keyId, keys: trace.keys };
  const { columns, first } = spanColumns(whole, span);
  const end = first + columns.timeMs.length;
  return { whole, columns, first, status: trace.status.subarray(first, end), end };
}

/** Without Worker support (unit tests): the same replay and grouping, here. */
function runHere(asked: Asked): RunState {
  const { trace, config, baseline, span, exempt } = asked;
  try {
    const { whole, columns, first, status } = requestsOf(trace, span);
    const replay = replayWithEmptyKey(columns, config, exempt);
    const g = new DryRunGrouper(
      {
        ...columns,
        keyCount: trace.keys.length,
        status,
        // Slices on the log's clock: the epoch ms the span's time 0 stands for.
        zeroEpochMs:
          columns.timeMs.length === 0 ? 0 : arrivalAt(trace, first) - (columns.timeMs[0] as number),
      },
      replay.outcome,
      replay.delayMs,
      baseline,
    );
    while (g.step(1 << 20));
    const groups = groupsInTrace(g.snapshot(), whole, columns, first);
    return { ...asked, kind: 'done', counts: replay, groups };
  } catch (e) {
    return { ...asked, kind: 'error', message: (e as Error).message };
  }
}

/**
 * The dry run: the trace replayed through the limiter being edited, in a worker, and every request
 * whose fate would change against the baseline (the log's recorded 429/503s, or no limit), grouped
 * by key and by time as the worker streams them; cancellable; exportable as CSV. While the stage
 * replays the trace, the dry run replays the same span the same way (an idle limiter at its
 * start), so the two agree.
 */
export function TraceDryRun({ trace: held }: { trace: HeldTrace }) {
  const hash = useTraceLoad((st) => ({ hash: st.replay?.hash ?? null })).hash;
  const { config, system, fromMs, lengthMs } = usePlaygroundShallow((s) => {
    const source = s.scenario.sources.find((x) => x.kind === 'trace' && x.hash === hash);
    const entry = s.limiters[s.activeLane] ?? s.limiters[0];
    return {
      config: entry?.config,
      system: entry === undefined ? undefined : systemOf(entry),
      fromMs: source?.kind === 'trace' ? (source.fromMs ?? 0) : null,
      lengthMs: s.untilMs,
    };
  });
  // A new object only when the span changes (an effect's dependency).
  const span = useMemo(
    (): SpanChoice | null => (fromMs === null ? null : { fromMs, lengthMs }),
    [fromMs, lengthMs],
  );
  // A system that keys an empty-key request by its client address (Kong) counts those the log
  // has an address for with that address's other requests: the run replays that key column.
  const byClient = system?.emptyKey === 'client';
  const trace = useMemo((): HeldTrace => {
    const moved = byClient ? keyEmptyByClient(held, held.emptyClients) : null;
    return moved === null ? held : { ...held, keyId: moved.keyId, keys: moved.keys };
  }, [held, byClient]);
  // Requests with an empty key, those of them keyed by their address, and what the limiter's
  // system does with them.
  const emptyId = emptyKeyId(held);
  const [emptyCount, withAddress] = useMemo(() => {
    if (emptyId < 0) return [0, 0];
    const count = (t: HeldTrace) => {
      const keyId =
        span === null ? t.keyId.subarray(0, t.count) : requestsOf(t, span).columns.keyId;
      return countKey(keyId, keyId.length, emptyId);
    };
    const all = count(held);
    return [all, trace === held ? 0 : all - count(trace)];
  }, [held, trace, span, emptyId]);
  const outcome = emptyKeyOutcome(system?.emptyKey);
  const exempt = useMemo(
    (): EmptyKeyExempt | null =>
      emptyId < 0 || outcome === null ? null : { id: emptyId, outcome },
    [emptyId, outcome],
  );
  const [baseline, setBaseline] = useState<Baseline>('recorded');
  const [state, setState] = useState<RunState | null>(null);
  const runner = useRef<Runner | null>(null);
  const gen = useRef(0);

  const stop = () => {
    runner.current?.sending?.();
    runner.current?.worker.terminate();
    runner.current = null;
  };
  useEffect(() => stop, []);

  useEffect(() => {
    if (config === undefined) return;
    gen.current += 1;
    const mine = gen.current;
    const asked: Asked = { trace, config, baseline, span, exempt };
    if (typeof Worker === 'undefined') {
      const id = setTimeout(() => setState(runHere(asked)), 0);
      return () => clearTimeout(id);
    }
    if (runner.current === null || runner.current.trace !== trace) {
      stop();
      const worker = new Worker(new URL('../../store/dryRun.worker.ts', import.meta.url), {
        type: 'module',
      });
      const r: Runner = { worker, trace, sending: null, waiting: null };
      // Copying the trace for the worker (its arrays, then its key names, each in slices) is done
      // in tasks of their own, not in the render that shows the trace (no long task while a log
      // loads).
      const sendKeys = (from: number) => {
        if (from < trace.keys.length) {
          const timer = setTimeout(() => {
            const keys = trace.keys.slice(from, from + KEYS_PER_MESSAGE);
            worker.postMessage({ type: 'keys', keys } satisfies DryRunRequest);
            sendKeys(from + KEYS_PER_MESSAGE);
          }, 0);
          r.sending = () => clearTimeout(timer);
          return;
        }
        r.sending = null;
        if (r.waiting !== null) worker.postMessage(r.waiting);
        r.waiting = null;
      };
      r.sending = copyInSlices([trace.times, trace.keyId, trace.status], trace.count, (copies) => {
        const { msg, transfer } = initMessage(trace, copies);
        worker.postMessage(msg, transfer);
        sendKeys(KEYS_PER_MESSAGE);
      });
      runner.current = r;
    }
    const w = runner.current.worker;
    w.onmessage = (e: MessageEvent<DryRunReply>) => {
      const m = e.data;
      if (m.gen !== gen.current) return;
      if (m.type === 'progress')
        setState({ ...asked, kind: 'running', counts: m.counts, groups: m.groups });
      else if (m.type === 'done')
        setState({ ...asked, kind: 'done', counts: m.counts, groups: m.groups });
      else if (m.type === 'error') setState({ ...asked, kind: 'error', message: m.message });
      else downloadBlob(m.csv, csvName(trace));
    };
    w.onerror = (e) =>
      setState({ ...asked, kind: 'error', message: `The dry run stopped: ${e.message}` });
    const req: DryRunRequest = { type: 'run', gen: mine, config, baseline, span, emptyKey: exempt };
    if (runner.current.sending !== null) runner.current.waiting = req;
    else w.postMessage(req);
    return undefined;
  }, [trace, config, baseline, span, exempt]);

  const cancel = () => {
    stop();
    gen.current += 1;
    if (config !== undefined)
      setState({ trace, config, baseline, span, exempt, kind: 'cancelled' });
  };
  const download = () => {
    if (runner.current !== null) {
      const req: DryRunRequest = { type: 'csv', gen: gen.current };
      runner.current.worker.postMessage(req);
    } else if (config !== undefined) {
      const { columns, first, status, end } = requestsOf(trace, span);
      const arrivalMs = Float64Array.from(columns.timeMs, (_, i) => arrivalAt(trace, first + i));
      const part = { ...columns, keys: trace.keys, count: end - first, arrivalMs, status };
      const run = dryRun(part, replayWithEmptyKey(columns, config, exempt), baseline);
      downloadBlob(new Blob([dryRunCsv(part, run)], { type: 'text/csv' }), csvName(trace));
    }
  };
  // Results for another limiter, baseline or trace are stale until the new run reports.
  const fresh =
    state !== null &&
    state.trace === trace &&
    state.config === config &&
    state.baseline === baseline &&
    state.span === span &&
    state.exempt === exempt;
  const shown: RunState | null = fresh ? state : null;

  const t0 = arrivalAt(trace, 0);
  // The log's clock, its day said once when the whole log is on one day (UTC).
  const clock = clockOfDay(t0, arrivalAt(trace, Math.max(0, trace.count - 1)));
  const counts = shown?.kind === 'running' || shown?.kind === 'done' ? shown.counts : null;
  const groups = shown?.kind === 'running' || shown?.kind === 'done' ? shown.groups : null;
  const changes = groups === null ? 0 : groups.toRejected + groups.toAllowed + groups.toDelayed;
  return (
    <div className="trace-dry-run" data-testid="trace-dry-run">
      <h3>What this limit would change</h3>
      <label className="field">
        Against{' '}
        <select value={baseline} onChange={(e) => setBaseline(e.target.value as Baseline)}>
          <option value="recorded">what the log recorded (429/503 = rejected)</option>
          <option value="no-limit">no limit</option>
        </select>
      </label>
      {/* The system's rule for empty-key requests is said once, under the log's statistics
          (EmptyKeyRow); here only how many of them the stage's span holds, when it replays a
          span that leaves some out. */}
      {span !== null &&
        emptyCount > 0 &&
        emptyCount < held.emptyRequests &&
        system !== undefined && (
          <p className="trace-empty-keys" data-testid="trace-empty-keys">
            In the stage&apos;s span: {plural(emptyCount, 'request')}{' '}
            {emptyCount === 1 ? 'has' : 'have'} {missingWhat(trace.keySpec)}
            {withAddress > 0 ? ` (${n(withAddress)} with a client address)` : ''}, decided by{' '}
            {systemWho(system)}&apos;s rule above.
          </p>
        )}
      {shown?.kind === 'error' && <p role="alert">{shown.message}</p>}
      {shown?.kind === 'cancelled' && (
        <p className="hint" data-testid="trace-dry-run-cancelled">
          Dry run cancelled; change the limiter or the baseline to run it again.
        </p>
      )}
      {(shown === null || shown.kind === 'running') && (
        <div className="fire-row">
          <label className="field">
            {groups === null ? 'Replaying' : 'Grouping changes'}{' '}
            <progress
              max={groups?.total ?? trace.count}
              value={groups?.done ?? 0}
              data-testid="trace-dry-run-progress"
            />{' '}
            {n(groups?.done ?? 0)} of {plural(groups?.total ?? trace.count, 'request')}
          </label>
          <button type="button" onClick={cancel}>
            Cancel dry run
          </button>
        </div>
      )}
      {counts !== null && groups !== null && (
        <>
          <p data-testid="trace-dry-run-counts">
            {span === null ? 'Replayed' : "Replayed the stage's span,"} {n(groups.total)}:{' '}
            {n(counts.admitted)} admitted, {n(counts.delayed)} delayed, {n(counts.rejected)}{' '}
            rejected. Changes: {n(groups.toRejected)} allowed → rejected, {n(groups.toAllowed)}{' '}
            rejected → allowed, {n(groups.toDelayed)} allowed → delayed.
          </p>
          {groups.byKey.length > 0 && (
            <table className="trace-dry-run-keys">
              <caption>
                {groups.byKey.length < groups.keysChanged
                  ? `By key: the ${n(groups.byKey.length)} with the most changes, of ${plural(groups.keysChanged, 'key')} that change`
                  : 'By key'}
              </caption>
              <thead>
                <tr>
                  <th scope="col">key</th>
                  <th scope="col">→ rejected</th>
                  <th scope="col">→ allowed</th>
                  <th scope="col">→ delayed</th>
                </tr>
              </thead>
              <tbody>
                {groups.byKey.map((k) => (
                  <tr key={k.keyId}>
                    <td>{quoteText(trace.keys[k.keyId] ?? '')}</td>
                    <td>{n(k.toRejected)}</td>
                    <td>{n(k.toAllowed)}</td>
                    <td>{n(k.toDelayed)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {changes > 0 && (
            <details>
              <summary>
                By time
                {groups.first.length < changes
                  ? ` (the first ${n(groups.first.length)} of ${n(changes)} changes listed)`
                  : ''}
              </summary>
              <table className="trace-dry-run-keys" data-testid="trace-dry-run-by-time">
                <caption>
                  Changes per{' '}
                  {formatTime((groups.byTime[0]?.endMs ?? 0) - (groups.byTime[0]?.startMs ?? 0))} of
                  the log, by its clock ({clock.day === null ? 'UTC' : `${clock.day} UTC`}; slices
                  without changes left out)
                </caption>
                <thead>
                  <tr>
                    <th scope="col">from</th>
                    <th scope="col">→ rejected</th>
                    <th scope="col">→ allowed</th>
                    <th scope="col">→ delayed</th>
                  </tr>
                </thead>
                <tbody>
                  {groups.byTime
                    .filter((s) => s.toRejected + s.toAllowed + s.toDelayed > 0)
                    .map((s) => (
                      <tr key={s.startMs}>
                        <td>{clock.at(t0 + s.startMs)}</td>
                        <td>{n(s.toRejected)}</td>
                        <td>{n(s.toAllowed)}</td>
                        <td>{n(s.toDelayed)}</td>
                      </tr>
                    ))}
                </tbody>
              </table>
              <p>First {plural(groups.first.length, 'change')}:</p>
              <ol className="trace-dry-run-list">
                {groups.first.map((c) => (
                  <li key={c.index}>
                    {clock.at(arrivalAt(trace, c.index))}{' '}
                    {quoteText(trace.keys[trace.keyId[c.index] as number] ?? '')}: {c.flip}
                    {c.delayMs > 0 ? ` by ${formatTime(c.delayMs)}` : ''}
                  </li>
                ))}
              </ol>
            </details>
          )}
          <button
            type="button"
            disabled={shown?.kind !== 'done' || changes === 0}
            onClick={download}
          >
            Download changes (CSV)
          </button>
        </>
      )}
    </div>
  );
}
