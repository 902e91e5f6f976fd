import { useId, useMemo, useState } from 'react';
import { plural, safeText } from '../../core';
import { MAX_UNTIL_MS } from '../../sim';
import type { TraceSource } from '../../sim';
import { systemOf } from '../../systems';
import { heldVirtualTimes, spanColumns } from '../../trace';
import type { HeldTrace } from '../../trace';
import { usePlaygroundApi, usePlaygroundShallow } from '../../store/react';
import { useTraceLoad } from '../../store/traceReact';
import { Measured } from '../experiments/Measured';
import { formatTime } from '../common/format';
import { TraceOverviewChart, TraceOverviewLegend } from './TraceOverviewChart';
import {
  clockText,
  clockValue,
  defaultSpan,
  editSpan,
  parseClockValue,
  traceEndMs,
} from './traceSpan';
import type { Span, SpanEdit } from './traceSpan';
import { useTraceOverview } from './useTraceOverview';
import type { OverviewTrace } from './useTraceOverview';
import './traceOverview.css';

const n = (v: number): string => v.toLocaleString('en-US');

/**
 * The whole access log the stage replays, above the timeline: its requests per minute and the
 * rejections of the limiter being edited over all of it, and the span the stage replays, picked
 * on the chart (a brush) or as clock times. Nothing when the scenario replays no loaded log.
 */
export function TraceOverview() {
  const t = useTraceLoad((st) => ({ trace: st.trace, replay: st.replay }));
  const hash = t.replay?.hash ?? null;
  const source = usePlaygroundShallow((s) => ({
    source: s.scenario.sources.find((x): x is TraceSource => x.kind === 'trace' && x.hash === hash),
  })).source;
  const times = t.trace === null ? null : heldVirtualTimes(t.trace);
  if (t.trace === null || times === null || source === undefined) return null;
  return <OverviewPanel trace={t.trace} times={times} source={source} />;
}

function OverviewPanel({
  trace,
  times,
  source,
}: {
  trace: HeldTrace;
  times: Int32Array;
  source: TraceSource;
}) {
  const id = useId();
  const api = usePlaygroundApi();
  const s = usePlaygroundShallow((st) => {
    const entry = st.limiters[st.activeLane] ?? st.limiters[0];
    return {
      untilMs: st.untilMs,
      config: entry?.config,
      limiter: entry === undefined ? '' : (entry.name ?? systemOf(entry).name),
    };
  });
  const columns = useMemo(
    (): OverviewTrace => ({ timeMs: times, keyId: trace.keyId, keys: trace.keys }),
    [times, trace],
  );
  const overview = useTraceOverview(columns, s.config);
  const lastMs = times[times.length - 1] ?? 0;
  const endMs = traceEndMs(lastMs);
  const span: Span = { fromMs: source.fromMs ?? 0, lengthMs: s.untilMs };
  const replayed = useMemo(
    () =>
      spanColumns(columns, { fromMs: span.fromMs, lengthMs: span.lengthMs }).columns.timeMs.length,
    [columns, span.fromMs, span.lengthMs],
  );

  /** The stage replays `next` from now on (its start in the trace source, its length the run's). */
  const choose = (next: Span) => {
    const st = api.getState();
    const sources = st.scenario.sources.map((x) =>
      x.kind === 'trace' && x.hash === source.hash ? { ...x, fromMs: next.fromMs } : x,
    );
    st.setScenario({ ...st.scenario, sources });
    st.setUntil(next.lengthMs);
  };
  const busiest = defaultSpan(times);
  const busiestSpan: Span = { fromMs: busiest.fromMs ?? 0, lengthMs: busiest.lengthMs };
  const isBusiest = busiestSpan.fromMs === span.fromMs && busiestSpan.lengthMs === span.lengthMs;
  const base = trace.baseMs;
  const rejected = overview.rejected;
  return (
    <section
      className="panel trace-overview"
      aria-labelledby={`${id}-heading`}
      data-testid="trace-overview"
    >
      <h2 id={`${id}-heading`}>
        The whole log <span className="muted">· {safeText(source.name)}</span>
      </h2>
      <p data-testid="trace-overview-whole">
        {plural(trace.count, 'request', 'requests', n)} from {clockText(base)} to{' '}
        {clockText(base + lastMs)} ({formatTime(lastMs)}).{' '}
        {rejected === null ? (
          overview.error === null ? (
            <span aria-busy="true">Replaying all of it through {s.limiter}…</span>
          ) : (
            <span role="alert">{overview.error}</span>
          )
        ) : (
          <span data-testid="trace-overview-rejected">
            {s.limiter}, replaying all of it from its first request, rejects {n(rejected.total)}.
          </span>
        )}
      </p>
      <p data-testid="trace-overview-span">
        <strong>The stage replays</strong> {clockText(base + span.fromMs)} to{' '}
        {clockText(base + span.fromMs + span.lengthMs)} ({formatTime(span.lengthMs)}):{' '}
        {plural(replayed, 'request', 'requests', n)}, each limiter idle at its start
        {span.lengthMs < endMs || span.fromMs > 0
          ? `; pick another span of up to ${formatTime(MAX_UNTIL_MS)} below.`
          : '.'}
      </p>
      {overview.requests === null ? (
        <p className="muted" aria-busy="true">
          Counting requests per minute…
        </p>
      ) : (
        <Measured className="trace-overview-plot">
          {(w) => (
            <TraceOverviewChart
              width={w}
              baseMs={base}
              endMs={endMs}
              binMs={overview.binMs}
              requests={overview.requests as Uint32Array}
              rejected={rejected?.perBin ?? null}
              span={span}
              onSpan={choose}
            />
          )}
        </Measured>
      )}
      <TraceOverviewLegend binMs={overview.binMs} limiter={s.limiter} />
      <SpanFields
        base={base}
        span={span}
        endMs={endMs}
        onSpan={choose}
        onBusiest={isBusiest ? null : () => choose(busiestSpan)}
        busiestLabel={
          busiest.fromMs === null ? 'The whole log' : `The busiest ${formatTime(busiest.lengthMs)}`
        }
      />
    </section>
  );
}

/** One edge of the span as a clock time: typed, checked, and applied when it is one. */
function ClockField({
  label,
  epochMs,
  min,
  max,
  onTime,
  testId,
}: {
  label: string;
  epochMs: number;
  min: number;
  max: number;
  onTime: (epochMs: number) => void;
  testId: string;
}) {
  const id = useId();
  const value = clockValue(epochMs);
  const [draft, setDraft] = useState(value);
  const [problem, setProblem] = useState<string | null>(null);
  // The span changed elsewhere (the chart, the other field): show it.
  const [shown, setShown] = useState(value);
  if (shown !== value) {
    setShown(value);
    setDraft(value);
    setProblem(null);
  }
  return (
    <div className="field trace-span-field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type="datetime-local"
        step={1}
        min={clockValue(min)}
        max={clockValue(max)}
        value={draft}
        aria-invalid={problem !== null}
        aria-describedby={problem === null ? undefined : `${id}-problem`}
        data-testid={testId}
        onChange={(e) => {
          const text = e.currentTarget.value;
          setDraft(text);
          const at = parseClockValue(text);
          if (at === null) {
            setProblem('Enter a date and a time (UTC).');
          } else if (at < min || at > max) {
            setProblem(`Choose a time from ${clockText(min)} to ${clockText(max)}.`);
          } else {
            setProblem(null);
            onTime(at);
          }
        }}
      />
      {problem !== null && (
        <span id={`${id}-problem`} className="param-error" role="alert">
          {problem}
        </span>
      )}
    </div>
  );
}

/** The span's start and end as clock times, and a way back to the busiest span. */
function SpanFields({
  base,
  span,
  endMs,
  onSpan,
  onBusiest,
  busiestLabel,
}: {
  base: number;
  span: Span;
  endMs: number;
  onSpan: (span: Span) => void;
  onBusiest: (() => void) | null;
  busiestLabel: string;
}) {
  const apply = (edit: SpanEdit) => onSpan(editSpan(span, edit, endMs));
  // The fields work in whole seconds, as the clock times they show.
  const secondsOf = (epochMs: number) => Math.floor(epochMs / 1000) * 1000;
  return (
    <div className="trace-span-fields">
      <ClockField
        label="Start (UTC)"
        epochMs={base + span.fromMs}
        min={secondsOf(base)}
        max={base + endMs - 1000}
        onTime={(at) => apply({ start: at - base })}
        testId="span-start-field"
      />
      <ClockField
        label="End (UTC)"
        epochMs={base + span.fromMs + span.lengthMs}
        min={secondsOf(base) + 1000}
        max={base + endMs}
        onTime={(at) => apply({ end: at - base })}
        testId="span-end-field"
      />
      <button type="button" disabled={onBusiest === null} onClick={() => onBusiest?.()}>
        {busiestLabel}
      </button>
    </div>
  );
}
