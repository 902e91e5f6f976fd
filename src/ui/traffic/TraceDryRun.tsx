import { useMemo, useState } from 'react';
import { dryRun, dryRunCsv, replayTrace } from '../../trace';
import type { Baseline, BuiltTrace } from '../../trace';
import { usePlaygroundShallow } from '../../store/react';
import { downloadBlob } from '../share/download';

const n = (v: number): string => v.toLocaleString('en-US');

/** Replays run on the main thread only up to this many requests (about 50 ms of work). */
export const MAIN_THREAD_REPLAY_MAX = 200_000;

/**
 * The dry run: the trace replayed through the limiter being edited, and every request whose fate
 * would change against the baseline (the log's recorded 429/503s, or no limit).
 */
export function TraceDryRun({ trace }: { trace: BuiltTrace }) {
  const { config } = usePlaygroundShallow((s) => ({
    config: s.limiters[s.activeLane]?.config ?? s.limiters[0]?.config,
  }));
  const [baseline, setBaseline] = useState<Baseline>('recorded');
  const result = useMemo(() => {
    if (config === undefined || trace.count > MAIN_THREAD_REPLAY_MAX) return null;
    try {
      const replay = replayTrace(trace, config);
      return { replay, run: dryRun(trace, replay, baseline) };
    } catch (e) {
      return { error: (e as Error).message };
    }
  }, [trace, config, baseline]);
  if (result === null) {
    return (
      <p className="hint">
        The dry run replays up to {n(MAIN_THREAD_REPLAY_MAX)} requests here; this trace has{' '}
        {n(trace.count)}.
      </p>
    );
  }
  if ('error' in result) return <p role="alert">{result.error}</p>;
  const { replay, run } = result;
  const t0 = trace.arrivalMs[0] ?? 0;
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
      <p data-testid="trace-dry-run-counts">
        Replayed {n(replay.count)}: {n(replay.admitted)} admitted, {n(replay.delayed)} delayed,{' '}
        {n(replay.rejected)} rejected. Changes: {n(run.toRejected)} allowed → rejected,{' '}
        {n(run.toAllowed)} rejected → allowed, {n(run.toDelayed)} allowed → delayed.
      </p>
      {run.byKey.length > 0 && (
        <table className="trace-dry-run-keys">
          <caption>By key</caption>
          <thead>
            <tr>
              <th scope="col">key</th>
              <th scope="col">→ rejected</th>
              <th scope="col">→ allowed</th>
              <th scope="col">→ delayed</th>
            </tr>
          </thead>
          <tbody>
            {run.byKey.slice(0, 10).map((k) => (
              <tr key={k.key}>
                <td>{k.key}</td>
                <td>{n(k.toRejected)}</td>
                <td>{n(k.toAllowed)}</td>
                <td>{n(k.toDelayed)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {run.changes.length > 0 && (
        <details>
          <summary>By time (first {Math.min(50, run.changes.length)})</summary>
          <ol className="trace-dry-run-list">
            {run.changes.slice(0, 50).map((c) => (
              <li key={c.index}>
                +{n(Math.floor((trace.arrivalMs[c.index] as number) - t0))} ms{' '}
                {trace.keys[trace.keyId[c.index] as number]}: {c.flip}
                {c.delayMs > 0 ? ` by ${n(c.delayMs)} ms` : ''}
              </li>
            ))}
          </ol>
        </details>
      )}
      <button
        type="button"
        disabled={run.changes.length === 0}
        onClick={() =>
          downloadBlob(
            new Blob([dryRunCsv(trace, run)], { type: 'text/csv' }),
            `${trace.name.replace(/\.[^.]*$/, '')}-dry-run.csv`,
          )
        }
      >
        Download changes (CSV)
      </button>
    </div>
  );
}
