import { memo, useMemo } from 'react';
import type { MouseEvent } from 'react';
import type { Observation, Plan, Verdict } from '../../probe';
import { plural } from '../../core';

/** The drawing's size in its own units (it scales to the width it is given). */
const W = 760;
const GUTTER = 78;
const LANE_H = 64;
const TOP = 22;
const AXIS_H = 22;
const HEIGHT = TOP + 2 * LANE_H + 10 + AXIS_H;

/** What one request shows in a lane, in the order a limiter hands a burst out. */
type Mark = 'pass' | 'held' | 'reject' | 'none';
const ORDER: readonly Mark[] = ['pass', 'held', 'reject', 'none'];

interface Column {
  /** The group's requests (plan indices) in the order their marks are stacked, per lane. */
  model: number[];
  observed: number[];
  x: number;
  /** Some request of the group got another decision than the model's. */
  differs: boolean;
}

function observedMark(o: Observation): Mark {
  if (o.kind === 'reject') return 'reject';
  if (o.kind === 'pass' || o.kind === 'redirect') return o.delayed ? 'held' : 'pass';
  return 'none';
}

/** Nice tick steps in ms: at most 8 ticks over `span`. */
function tickStep(span: number): number {
  for (const step of [100, 200, 250, 500, 1000, 2000, 5000, 10_000, 15_000, 30_000, 60_000]) {
    if (span / step <= 8) return step;
  }
  return 120_000;
}

export interface ProbeLanesProps {
  plan: Plan;
  verdict: Verdict;
  /** The selected request (plan index), or null. */
  selected: number | null;
  onSelect: (i: number) => void;
}

/**
 * The model's lane and the observed lane on the run's own clock: one column per group of requests
 * sent together (a burst is one column), its requests stacked as a limiter hands them out — passed
 * at once (solid), held (solid, lighter, with a notch), rejected (outlined), no answer (dashed) —
 * so the two lanes' columns compare at a glance, with shape as well as colour. A column whose
 * requests got other decisions than the model's is marked ▼ above the observed lane.
 */
export const ProbeLanes = memo(function ProbeLanes({
  plan,
  verdict,
  selected,
  onSelect,
}: ProbeLanesProps) {
  const layout = useMemo(() => {
    const obs = verdict.observations;
    const span = Math.max(1, plan.durationMs);
    const x = (t: number) => GUTTER + (Math.max(0, Math.min(span, t)) / span) * (W - GUTTER - 8);
    const groups = new Map<number, number[]>();
    for (const q of plan.requests) {
      const list = groups.get(q.group);
      if (list === undefined) groups.set(q.group, [q.i]);
      else list.push(q.i);
    }
    let biggest = 1;
    const columns: Column[] = [];
    const modelMark = (i: number): Mark => {
      const e = verdict.expected[i];
      if (e === null || e === undefined) return 'none';
      if (e.decision.outcome === 'reject') return 'reject';
      return e.decision.delayMs > 0 ? 'held' : 'pass';
    };
    const sortBy = (mark: (i: number) => Mark) => (a: number, b: number) =>
      ORDER.indexOf(mark(a)) - ORDER.indexOf(mark(b)) || a - b;
    for (const members of groups.values()) {
      biggest = Math.max(biggest, members.length);
      const at = members.reduce((sum, i) => sum + (obs[i]?.sentMs ?? 0), 0) / members.length;
      columns.push({
        model: members.slice().sort(sortBy(modelMark)),
        observed: members.slice().sort(sortBy((i) => observedMark(obs[i] as Observation))),
        x: x(at),
        differs: members.some((i) => verdict.expected[i]?.fit === false),
      });
    }
    // Columns as wide as the space between the closest two allows, 2 – 7 units.
    const xs = columns.map((c) => c.x).sort((a, b) => a - b);
    let gap = Number.POSITIVE_INFINITY;
    for (let k = 1; k < xs.length; k += 1) {
      const d = (xs[k] as number) - (xs[k - 1] as number);
      if (d > 0.5) gap = Math.min(gap, d);
    }
    const width = Math.max(2, Math.min(7, gap - 1));
    // Groups sent at the same moment (the keys check's bursts) stand side by side.
    const atX = new Map<number, Column[]>();
    for (const c of columns) {
      const k = Math.round(c.x);
      const list = atX.get(k);
      if (list === undefined) atX.set(k, [c]);
      else list.push(c);
    }
    for (const list of atX.values()) {
      list.forEach((c, k) => (c.x += (k - (list.length - 1) / 2) * (width + 1)));
    }
    const unit = (LANE_H - 8) / biggest;
    const step = tickStep(span);
    const ticks: number[] = [];
    for (let t = 0; t <= span; t += step) ticks.push(t);
    // Phase labels: those starting together share one ("refill + keys"), and a label that would
    // run into the one before it moves right of it (about 6 units per character).
    const phases: Array<{ id: string; label: string; x: number; textX: number }> = [];
    for (const p of plan.phases) {
      const at = x(obs[p.first]?.sentMs ?? p.fromMs);
      const word = p.id === 'boundary' ? 'edge' : p.id;
      const last = phases[phases.length - 1];
      if (last !== undefined && Math.abs(last.x - at) < 1) {
        last.label = `${last.label} + ${word}`;
        continue;
      }
      const free = last === undefined ? 0 : last.textX + last.label.length * 6 + 6;
      phases.push({ id: p.id, label: word, x: at, textX: Math.max(at + 3, free) });
    }
    return { columns, width, unit, ticks, x, phases, modelMark };
  }, [plan, verdict]);

  const { columns, width, unit, ticks, x, phases, modelMark } = layout;
  const laneTop = [TOP, TOP + LANE_H + 10];

  /** The marks of one column in one lane, as runs of one kind. */
  const stack = (c: Column, lane: 0 | 1) => {
    const members = lane === 0 ? c.model : c.observed;
    const markOf = (i: number) =>
      lane === 0 ? modelMark(i) : observedMark(verdict.observations[i] as Observation);
    const bottom = (laneTop[lane] as number) + LANE_H - 4;
    const out = [];
    let k = 0;
    while (k < members.length) {
      const mark = markOf(members[k] as number);
      let n = 1;
      while (k + n < members.length && markOf(members[k + n] as number) === mark) n += 1;
      const y = bottom - (k + n) * unit;
      const h = Math.max(1.5, n * unit - (n * unit > 3 ? 0.5 : 0));
      out.push(
        <rect
          key={`${lane}:${k}`}
          className={`probe-mark is-${mark}`}
          x={c.x - width / 2}
          y={y}
          width={width}
          height={h}
        />,
      );
      k += n;
    }
    return out;
  };

  /** The selected request's place in a lane. */
  const highlight = (lane: 0 | 1) => {
    if (selected === null) return null;
    const c = columns.find((col) => col.model.includes(selected));
    if (c === undefined) return null;
    const k = (lane === 0 ? c.model : c.observed).indexOf(selected);
    const bottom = (laneTop[lane] as number) + LANE_H - 4;
    const h = Math.max(3, unit);
    return (
      <rect
        className="probe-selected"
        x={c.x - width / 2 - 2}
        y={bottom - (k + 1) * unit - (h - unit) / 2 - 1}
        width={width + 4}
        height={h + 2}
      />
    );
  };

  const onClick = (event: MouseEvent<SVGSVGElement>) => {
    const svg = event.currentTarget;
    const box = svg.getBoundingClientRect();
    if (box.width === 0) return;
    const px = ((event.clientX - box.left) / box.width) * W;
    const py = ((event.clientY - box.top) / box.height) * HEIGHT;
    let best: Column | null = null;
    for (const c of columns) {
      if (
        Math.abs(c.x - px) <= Math.max(4, width) &&
        (best === null || Math.abs(c.x - px) < Math.abs(best.x - px))
      )
        best = c;
    }
    if (best === null) return;
    const lane = py > (laneTop[1] as number) - 5 ? 1 : 0;
    const bottom = (laneTop[lane] as number) + LANE_H - 4;
    const members = lane === 0 ? best.model : best.observed;
    const k = Math.max(0, Math.min(members.length - 1, Math.floor((bottom - py) / unit)));
    onSelect(members[k] as number);
  };

  const differing = columns.filter((c) => c.differs).length;
  const passes = (lane: 'model' | 'observed') =>
    plan.requests.filter((q) =>
      lane === 'model'
        ? verdict.expected[q.i]?.decision.outcome !== undefined &&
          verdict.expected[q.i]?.decision.outcome !== 'reject'
        : ['pass', 'redirect'].includes(verdict.observations[q.i]?.kind ?? ''),
    ).length;

  return (
    <svg
      className="probe-lanes"
      viewBox={`0 0 ${W} ${HEIGHT}`}
      role="img"
      aria-label={`The model and what the gateway did, on the run's clock: ${plural(plan.requests.length, 'request')} over ${(plan.durationMs / 1000).toFixed(1)} s; the model passes ${passes('model')}, the gateway passed ${passes('observed')}; ${differing === 0 ? 'no group differs' : `${differing} ${differing === 1 ? 'group differs' : 'groups differ'}`}. Choose a request with the buttons below.`}
      onClick={onClick}
    >
      {phases.map((p) => (
        <g key={p.id} className="probe-phase">
          <line x1={p.x} x2={p.x} y1={TOP - 6} y2={TOP + 2 * LANE_H + 10} />
          <text x={p.textX} y={TOP - 8}>
            {p.label}
          </text>
        </g>
      ))}
      {(['Model', 'Observed'] as const).map((label, lane) => (
        <g key={label}>
          <rect
            className="probe-lane"
            x={GUTTER - 4}
            y={laneTop[lane]}
            width={W - GUTTER}
            height={LANE_H}
          />
          <text className="probe-lane-label" x={8} y={(laneTop[lane] as number) + LANE_H / 2 + 4}>
            {label}
          </text>
        </g>
      ))}
      {columns.map((c, n) => (
        <g key={n}>
          {stack(c, 0)}
          {stack(c, 1)}
          {c.differs && (
            <path
              className="probe-differs"
              d={`M${c.x} ${(laneTop[1] as number) - 2} l-3.5 -6 h7 z`}
            />
          )}
        </g>
      ))}
      {highlight(0)}
      {highlight(1)}
      <g className="probe-axis">
        {ticks.map((t) => (
          <g key={t}>
            <line x1={x(t)} x2={x(t)} y1={HEIGHT - AXIS_H} y2={HEIGHT - AXIS_H + 4} />
            <text x={x(t)} y={HEIGHT - 4} textAnchor="middle">
              {`${t / 1000} s`}
            </text>
          </g>
        ))}
      </g>
    </svg>
  );
});
