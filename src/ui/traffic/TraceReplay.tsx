import { plural, quoteText } from '../../core';
import type { TraceSource } from '../../sim';
import { useEffect } from 'react';
import { describeKeySpec, keySpecOfText, traceSourceOf } from '../../trace';
import { usePlayground, usePlaygroundShallow } from '../../store/react';
import { useTraceLoad } from '../../store/traceReact';
import { bringStageIntoView } from '../stage/stageIntoView';
import { defaultSpan } from '../stage/traceSpan';
import { fileSpanText } from './clockTime';

const n = (v: number): string => v.toLocaleString('en-US');

/**
 * The loaded log as the playground's traffic: one button makes it the
 * scenario's source, so every limiter, the timeline, the views, the inspector and compare mode
 * replay it on the virtual clock. A scenario (a link) that names a log the page does not hold says
 * which file to drop.
 */
/**
 * Makes the loaded log the scenario's only source and rewinds: all of it (the run a second longer
 * than the log) when it fits in a run, else its busiest day (`defaultSpan`; the overview above the
 * timeline picks another). Null when no replayable log is loaded.
 */
export function useStartReplay(): (() => void) | null {
  const t = useTraceLoad((st) => ({ replay: st.replay, origin: st.origin, trace: st.trace }));
  const p = usePlaygroundShallow((st) => ({
    scenario: st.scenario,
    setScenario: st.setScenario,
    setUntil: st.setUntil,
    seek: st.seek,
  }));
  const replay = t.replay;
  if (replay === null) return null;
  return () => {
    // The file the link names: for a kept copy, the one it was first read from.
    const name = t.origin?.name ?? t.trace?.name ?? 'access.log';
    const o = t.origin;
    const source = {
      ...traceSourceOf(replay, name, o?.bytes ?? 0, o?.key ?? null),
      // A span of a file too large to hold: the link names the span it was read out of.
      ...(o?.spanFromMs === undefined || o.spanToMs === undefined
        ? {}
        : { spanFromMs: o.spanFromMs, spanToMs: o.spanToMs }),
    };
    const span = defaultSpan(replay.timeMs);
    p.setScenario({
      ...p.scenario,
      sources: [span.fromMs === null ? source : { ...source, fromMs: span.fromMs }],
    });
    p.setUntil(span.lengthMs);
    p.seek(0);
    bringStageIntoView();
  };
}

/** True when the scenario replays the loaded log. */
export function useReplaying(): boolean {
  const hash = useTraceLoad((st) => ({ hash: st.replay?.hash ?? null })).hash;
  return usePlayground((st) =>
    st.scenario.sources.some((s) => s.kind === 'trace' && s.hash === hash),
  );
}

export function TraceReplay() {
  const t = useTraceLoad((st) => ({
    replay: st.replay,
    replayError: st.replayError,
    idle: st.trace === null && st.streamed === null,
    rekey: st.rekey,
  }));
  const scenario = usePlayground((st) => st.scenario);
  const start = useStartReplay();
  const wanted = scenario.sources.find((s): s is TraceSource => s.kind === 'trace');
  // The key the link's log was read with (the schema checked its form): a file dropped next is
  // read with it, so the same file gives the same fingerprint. A log already held keeps its key.
  const wantedKey = wanted === undefined ? null : (wanted.key ?? 'client');
  const { idle, rekey } = t;
  useEffect(() => {
    const spec = wantedKey === null || !idle ? null : keySpecOfText(wantedKey);
    if (spec !== null) rekey(spec);
  }, [wantedKey, idle, rekey]);
  const replay = t.replay;
  const replaying = wanted !== undefined && replay !== null && wanted.hash === replay.hash;
  const fileSpan = wanted === undefined ? null : fileSpanText(wanted);
  return (
    <div className="trace-replay" data-testid="trace-replay">
      {wanted !== undefined && !replaying && (
        <p className="trace-wanted" role="status" data-testid="trace-wanted">
          This configuration replays{' '}
          {fileSpan !== null && (
            <>
              the span <span data-testid="trace-wanted-span">{fileSpan}</span> of{' '}
            </>
          )}
          the access log <strong>{quoteText(wanted.name)}</strong> ({n(wanted.bytes)} bytes,{' '}
          {plural(wanted.requests, 'request', 'requests', n)}, fingerprint{' '}
          <span className="mono">{wanted.hash}</span>)
          {replay === null
            ? `: drop that file anywhere on this page (it is read keyed by ${describeKeySpec(keySpecOfText(wantedKey ?? 'client') ?? [])}) to replay it.${fileSpan === null ? '' : ' It is too large to hold: the span picker of the file is set to this span; read it for the stage there.'} Everything else works without it.`
            : `, not the loaded one (fingerprint ${replay.hash}: another file, or another key).`}
        </p>
      )}
      {t.replayError !== null && (
        <p className="trace-error" role="alert">
          {t.replayError}
        </p>
      )}
      {replay !== null &&
        (replaying ? (
          <p data-testid="trace-replaying">
            Replaying this log: every limiter, the timeline, the views, the inspector and compare
            mode show its {plural(replay.timeMs.length, 'request', 'requests', n)}, each at its own
            time with its own key.
          </p>
        ) : (
          <button type="button" className="primary" onClick={() => start?.()}>
            Replay this log through the limiters
          </button>
        ))}
    </div>
  );
}
