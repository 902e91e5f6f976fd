import { scaleLinear } from 'd3-scale';
import { memo, useEffect, useId, useMemo, useRef, useState } from 'react';
import type { KeyboardEvent, ReactNode } from 'react';
import type { AlgorithmConfig } from '../../core';
import { emptyKeyOutcome, plural } from '../../core';
import { systemOf } from '../../systems';
import { usePlayground, usePlaygroundShallow } from '../../store/react';
import { runSweep } from '../../store/sweep';
import { useTraceLoad } from '../../store/traceReact';
import { axisText, satisfies, sweepPlan } from '../../trace';
import type { CellResult, SweepConstraints, SweepPlan } from '../../trace';
import { NumberField } from '../common/fields';
import { useReplaying, useStartReplay } from './TraceReplay';

const CELL = 18;
const LEFT = 44;
const TOP = 8;
const BOTTOM = 30;
const pct = (v: number): string => `${(v * 100).toFixed(v < 0.001 && v > 0 ? 3 : 1)}%`;
/** Light blue (nothing rejected) to dark red (all rejected); text turns white past the middle. */
const color = scaleLinear<string>().domain([0, 0.5, 1]).range(['#e6f0fa', '#e08a5a', '#7a1e12']);

type Metric = 'overall' | 'p99';

function describe(plan: SweepPlan, xi: number, yi: number, r: CellResult | undefined, w: number) {
  const at = `${plan.x.label} ${axisText(plan.x, plan.x.values[xi] as number)}, ${plan.y.label} ${axisText(plan.y, plan.y.values[yi] as number)}`;
  if (r === undefined) return `${at}: not computed yet`;
  return `${at}: ${pct(r.rejectedShare)} rejected (${pct(r.rejectedShareP99)} of keys up to the p99), peak backend ${r.peakBackend} per ${w} ms, p95 delay ${r.p95DelayMs} ms`;
}

/**
 * The sweep: a grid over the two parameters that matter for the limiter being
 * edited, each cell an exact replay of the whole log in a worker, drawn as a heatmap of the share
 * rejected. Constraints mark the cells that satisfy them and the smallest such limit; picking a
 * cell sets the limiter (and replays the log in the main view, where its numbers reproduce).
 */
export function TraceSweep() {
  const id = useId();
  // The log's first request's epoch ms stands for its time 0: the cells place clock-aligned
  // windows from it, as the dry run does (src/trace/held.ts: times[i] + baseMs is the arrival).
  const { replay, originMs } = useTraceLoad((st) => ({
    replay: st.replay,
    originMs: st.trace?.baseMs ?? 0,
  }));
  const p = usePlaygroundShallow((st) => ({
    lane: st.activeLane,
    limiters: st.limiters,
    windowMs: st.scenario.metrics?.windowMs ?? 1000,
    setLimiterConfig: st.setLimiterConfig,
  }));
  const entry = p.limiters[p.lane];
  const base = entry?.config;
  // The limiter's system's rule for requests with an empty key, as the stage and dry run apply it.
  const system = entry === undefined ? undefined : systemOf(entry);
  const rule = system?.emptyKey;
  const emptyOutcome = rule === 'client' ? 'client' : emptyKeyOutcome(rule);
  // The axes named as the limiter's system names its fields (Kong `minute`, rate-limiter-flexible
  // `points`).
  const plan = useMemo(
    () => (base === undefined ? null : sweepPlan(base, 20, system?.params)),
    [base, system],
  );
  const replaying = useReplaying();
  const startReplay = useStartReplay();
  const seek = usePlayground((st) => st.seek);
  const [results, setResults] = useState<Array<CellResult | undefined>>([]);
  const [errors, setErrors] = useState<string[]>([]);
  const [running, setRunning] = useState(false);
  const [ranFor, setRanFor] = useState<{ plan: SweepPlan; windowMs: number } | null>(null);
  const cancelRef = useRef<(() => void) | null>(null);

  // Leaving (or a new log: the panel keys this by the log's fingerprint) cancels the sweep.
  useEffect(() => () => cancelRef.current?.(), []);

  if (replay === null) return null;
  if (plan === null) {
    return (
      <section className="trace-sweep" aria-labelledby={`${id}-h`}>
        <h3 id={`${id}-h`}>Numbers that fit</h3>
        <p className="muted">The sweep has no two parameters to lay out for this limiter.</p>
      </section>
    );
  }
  const shownPlan = ranFor?.plan ?? plan;
  const nx = shownPlan.x.values.length;
  const ny = shownPlan.y.values.length;
  const total = nx * ny;
  const done = results.filter((r) => r !== undefined).length;

  const start = () => {
    cancelRef.current?.();
    const configs: AlgorithmConfig[] = [];
    for (let xi = 0; xi < plan.x.values.length; xi += 1)
      for (let yi = 0; yi < plan.y.values.length; yi += 1) configs.push(plan.configAt(xi, yi));
    const fresh: Array<CellResult | undefined> = new Array<CellResult | undefined>(
      configs.length,
    ).fill(undefined);
    setResults(fresh);
    setErrors([]);
    setRanFor({ plan, windowMs: p.windowMs });
    setRunning(true);
    let left = configs.length;
    // Results arrive faster than the grid needs redrawing: at most one redraw a frame.
    let pending: Array<[number, CellResult]> = [];
    let scheduled = false;
    const flush = () => {
      scheduled = false;
      const batch = pending;
      pending = [];
      setResults((prev) => {
        const next = prev.slice();
        for (const [i, r] of batch) next[i] = r;
        return next;
      });
      left -= batch.length;
      if (left === 0) {
        setRunning(false);
        cancelRef.current = null;
      }
    };
    const later =
      typeof requestAnimationFrame === 'function'
        ? (f: () => void) => requestAnimationFrame(f)
        : (f: () => void) => setTimeout(f, 16);
    const stop = runSweep(
      replay,
      configs,
      p.windowMs,
      {
        onCell: (i, r) => {
          pending.push([i, r]);
          if (!scheduled) {
            scheduled = true;
            later(flush);
          }
        },
        onError: (i, message) => {
          setErrors((prev) => [...prev, `cell ${i + 1}: ${message}`]);
          left -= 1;
          if (left === 0) {
            setRunning(false);
            cancelRef.current = null;
          }
        },
      },
      emptyOutcome,
      originMs,
    );
    cancelRef.current = () => {
      stop();
      pending = [];
    };
  };
  const cancel = () => {
    cancelRef.current?.();
    cancelRef.current = null;
    setRunning(false);
  };
  const w = ranFor?.windowMs ?? p.windowMs;
  return (
    <section className="trace-sweep" aria-labelledby={`${id}-h`} data-testid="trace-sweep">
      <h3 id={`${id}-h`}>Numbers that fit</h3>
      <p className="hint">
        {shownPlan.x.label} × {shownPlan.y.label}: {total} exact replays of all{' '}
        {plural(replay.timeMs.length, 'request')} (no retries, one instance), in workers.
      </p>
      <SweepStart running={running} total={total} onStart={start} onCancel={cancel}>
        {ranFor !== null &&
          `${done} of ${total} cells${running ? '…' : done < total ? ' (cancelled)' : ''}`}
      </SweepStart>
      <SweepGrid
        plan={shownPlan}
        windowMs={w}
        results={results}
        errors={errors}
        ran={ranFor !== null}
        onPick={(config) => {
          p.setLimiterConfig(p.lane, config);
          if (!replaying) startReplay?.();
          else seek(0);
        }}
      />
    </section>
  );
}

/**
 * The sweep's grid, for a held log's sweep and a streamed one alike: constraints, the heatmap of
 * the share rejected (keyboard: arrows move, Enter picks), the focused cell's numbers, the smallest
 * limit that fits, and the cells that failed. Picking a cell hands its config to `onPick`.
 * Memoised: its hundreds of cells (each with its names written out) are drawn again only when one
 * of its props changes, not whenever the panel around it redraws for a progress message.
 */
export const SweepGrid = memo(function SweepGrid({
  plan,
  windowMs: w,
  results,
  errors,
  ran,
  onPick,
}: {
  plan: SweepPlan;
  /** W of the peak backend load, ms. */
  windowMs: number;
  /** One per cell (x-major: index xi · ny + yi), undefined until computed. */
  results: ReadonlyArray<CellResult | undefined>;
  errors: readonly string[];
  /** Whether a sweep has started: before, only the constraints show. */
  ran: boolean;
  onPick: (config: AlgorithmConfig) => void;
}) {
  const id = useId();
  const [metric, setMetric] = useState<Metric>('overall');
  const [maxBackend, setMaxBackend] = useState<number | null>(null);
  const [maxP99, setMaxP99] = useState<number | null>(1);
  const [active, setActive] = useState(0);
  const [shown, setShown] = useState<number | null>(null);
  const nx = plan.x.values.length;
  const ny = plan.y.values.length;
  const done = results.filter((r) => r !== undefined).length;
  const constraints: SweepConstraints = {
    ...(maxBackend === null ? {} : { maxBackend }),
    ...(maxP99 === null ? {} : { maxRejectedP99: maxP99 / 100 }),
  };
  // The smallest limit that fits: the lowest x, then the lowest y, among satisfying cells.
  let best = -1;
  for (let xi = 0; xi < nx && best < 0; xi += 1) {
    for (let yi = 0; yi < ny; yi += 1) {
      const r = results[xi * ny + yi];
      if (r !== undefined && satisfies(r, constraints)) {
        best = xi * ny + yi;
        break;
      }
    }
  }
  const pick = (i: number) => onPick(plan.configAt(Math.floor(i / ny), i % ny));
  const onKey = (e: KeyboardEvent<SVGSVGElement>) => {
    const xi = Math.floor(active / ny);
    const yi = active % ny;
    let next: number;
    if (e.key === 'ArrowRight') next = Math.min(nx - 1, xi + 1) * ny + yi;
    else if (e.key === 'ArrowLeft') next = Math.max(0, xi - 1) * ny + yi;
    else if (e.key === 'ArrowUp') next = xi * ny + Math.min(ny - 1, yi + 1);
    else if (e.key === 'ArrowDown') next = xi * ny + Math.max(0, yi - 1);
    else if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      if (results[active] !== undefined) pick(active);
      return;
    } else return;
    e.preventDefault();
    setActive(next);
    setShown(next);
  };
  const width = LEFT + nx * CELL + 8;
  const height = TOP + ny * CELL + BOTTOM;
  const detail = shown ?? (best >= 0 ? best : null);
  return (
    <>
      <div className="trace-sweep-constraints">
        <NumberField
          label="backend takes at most"
          unit={`requests per ${w} ms`}
          value={maxBackend ?? 0}
          width="6em"
          check={(v) =>
            Number.isInteger(v) && v >= 0 ? null : 'must be a whole number, 0 for no limit'
          }
          onCommit={(v) => setMaxBackend(v === 0 ? null : v)}
        />
        <NumberField
          label="reject at most"
          unit="% of requests of keys up to the p99"
          value={maxP99 ?? 100}
          width="5em"
          check={(v) => (v >= 0 && v <= 100 ? null : 'must be from 0 to 100')}
          onCommit={(v) => setMaxP99(v >= 100 ? null : v)}
        />
        <label className="field">
          Colour{' '}
          <select value={metric} onChange={(e) => setMetric(e.target.value as Metric)}>
            <option value="overall">share rejected, all requests</option>
            <option value="p99">share rejected, keys up to the p99</option>
          </select>
        </label>
      </div>
      {ran && (
        <>
          <svg
            className="trace-heatmap"
            width={width}
            height={height}
            // Scaled down (never up) to the panel's width by its class: a 20-column grid is wider
            // than the side column and the phone.
            viewBox={`0 0 ${width} ${height}`}
            role="grid"
            aria-label={`Sweep: ${plan.x.label} across, ${plan.y.label} up; arrow keys move, Enter sets the limiter`}
            tabIndex={0}
            aria-activedescendant={`${id}-cell-${active}`}
            onKeyDown={onKey}
            onFocus={() => setShown(active)}
            data-testid="trace-heatmap"
          >
            {/* Rows top to bottom (the largest y first), each a row of cells left to right. */}
            {plan.y.values
              .map((_y, yi) => yi)
              .reverse()
              .map((yi) => (
                <g key={`row${yi}`} role="row">
                  {plan.x.values.map((_x, xi) => {
                    const i = xi * ny + yi;
                    const r = results[i];
                    const v =
                      r === undefined
                        ? null
                        : metric === 'p99'
                          ? r.rejectedShareP99
                          : r.rejectedShare;
                    const ok = r !== undefined && satisfies(r, constraints);
                    const x = LEFT + xi * CELL;
                    const y = TOP + (ny - 1 - yi) * CELL;
                    return (
                      <g
                        key={i}
                        id={`${id}-cell-${i}`}
                        role="gridcell"
                        aria-label={describe(plan, xi, yi, r, w) + (ok ? ', fits' : '')}
                        aria-selected={i === active}
                        data-testid="sweep-cell"
                        data-fits={ok ? 'yes' : 'no'}
                        onMouseEnter={() => setShown(i)}
                        onClick={() => {
                          setActive(i);
                          if (r !== undefined) pick(i);
                        }}
                      >
                        <title>{describe(plan, xi, yi, r, w)}</title>
                        <rect
                          x={x + 0.5}
                          y={y + 0.5}
                          width={CELL - 1}
                          height={CELL - 1}
                          fill={v === null ? 'var(--surface-2)' : color(v)}
                          stroke={
                            i === best ? 'var(--text)' : i === active ? 'var(--focus)' : 'none'
                          }
                          strokeWidth={i === best || i === active ? 2 : 0}
                        />
                        {ok && (
                          <text
                            x={x + CELL / 2}
                            y={y + CELL / 2 + 4}
                            textAnchor="middle"
                            fontSize={11}
                            fill={v !== null && v > 0.45 ? '#ffffff' : '#1b1b1f'}
                            aria-hidden="true"
                          >
                            ✓
                          </text>
                        )}
                      </g>
                    );
                  })}
                </g>
              ))}
            {/* The axes: what each cell's name says already. */}
            <g aria-hidden="true">
              {plan.x.values.map((xv, xi) =>
                xi % 3 === 0 || xi === nx - 1 ? (
                  <text
                    key={`x${xi}`}
                    x={LEFT + xi * CELL + CELL / 2}
                    y={TOP + ny * CELL + 12}
                    textAnchor="middle"
                    fontSize={10}
                    className="axis-label"
                  >
                    {axisText(plan.x, xv)}
                  </text>
                ) : null,
              )}
              <text x={LEFT} y={TOP + ny * CELL + 26} fontSize={10} className="axis-label">
                {plan.x.label} →
              </text>
              {plan.y.values.map((yv, yi) =>
                yi % 3 === 0 || yi === ny - 1 ? (
                  <text
                    key={`y${yi}`}
                    x={LEFT - 4}
                    y={TOP + (ny - 1 - yi) * CELL + CELL / 2 + 3}
                    textAnchor="end"
                    fontSize={10}
                    className="axis-label"
                  >
                    {axisText(plan.y, yv)}
                  </text>
                ) : null,
              )}
            </g>
          </svg>
          <p className="muted">
            ✓ fits the constraints; the outlined cell is the smallest such limit. Up: more{' '}
            {plan.y.label}. Colour: light = nothing rejected, dark red = all rejected.
          </p>
          <p aria-live="polite" data-testid="sweep-detail">
            {detail === null
              ? 'Hover or focus a cell for its numbers.'
              : describe(plan, Math.floor(detail / ny), detail % ny, results[detail], w)}
          </p>
          <p data-testid="sweep-best">
            {best >= 0
              ? `Smallest limit that fits: ${describe(plan, Math.floor(best / ny), best % ny, results[best], w)}.`
              : done > 0
                ? 'No cell computed so far fits the constraints.'
                : ''}
          </p>
          {best >= 0 && (
            <button type="button" onClick={() => pick(best)}>
              Use the smallest limit that fits
            </button>
          )}
          {errors.length > 0 && (
            <ul className="trace-error" role="alert">
              {errors.slice(0, 5).map((e) => (
                <li key={e}>{e}</li>
              ))}
            </ul>
          )}
        </>
      )}
    </>
  );
});

/** Start or cancel a sweep of `total` settings, and its progress in words (`children`). */
export function SweepStart({
  running,
  total,
  onStart,
  onCancel,
  children,
}: {
  running: boolean;
  total: number;
  onStart: () => void;
  onCancel: () => void;
  children: ReactNode;
}) {
  return (
    <div className="fire-row">
      {running ? (
        <button type="button" onClick={onCancel}>
          Cancel sweep
        </button>
      ) : (
        <button type="button" className="primary" onClick={onStart}>
          Sweep {total} settings
        </button>
      )}
      {children !== false && children !== null && children !== undefined && (
        <span role="status" data-testid="sweep-progress">
          {children}
        </span>
      )}
    </div>
  );
}
