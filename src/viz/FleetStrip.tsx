import { useMemo } from 'react';
import { OUTCOME_REJECT } from '../sim';
import type { LaneResult, Outage } from '../sim';
import { replicaColor, replicaLabel } from './replicaColors';
import { plural } from './format';

const WIDTH = 600;
const ROW = 8;
/**
 * The strip stretches to its box's width (preserveAspectRatio none, strokes unscaled) at a fixed
 * height in CSS pixels per replica row, so the replica numbers beside it are HTML text at 11 px at
 * any width (they were 7-unit SVG text, 4 px on a phone). Dense fleets label every other row.
 */
const ROW_PX_FEW = 13;
const ROW_PX_MANY = 8;
const LABEL = 0;

/**
 * Every request of a fleet lane over the whole run, one row per replica in that replica's colour
 * (passed: a tick; rejected: a short dark bar below it), with the store's outages shaded and the
 * current time marked. Rows carry their replica number, so colour is never the only cue.
 */
export function FleetStrip({
  lane,
  untilMs,
  rows,
  outages,
  tMs,
}: {
  lane: LaneResult;
  untilMs: number;
  rows: number;
  outages: readonly Outage[];
  tMs: number;
}) {
  const x = (t: number): number => LABEL + ((WIDTH - LABEL) * t) / Math.max(1, untilMs);
  const paths = useMemo(() => {
    const c = lane.columns;
    const passed: string[] = Array.from({ length: rows }, () => '');
    const rejected: string[] = Array.from({ length: rows }, () => '');
    const one = c.instance.length < c.rows;
    // One mark per pixel column and row: dense runs draw as many marks as there are pixels.
    const seen = new Set<number>();
    for (let r = 0; r < c.rows; r += 1) {
      const slot = one ? 0 : (c.instance[r] as number);
      if (slot >= rows) continue;
      const px = Math.round(x(c.arrivalMs[r] as number) * 2) / 2;
      const rej = c.outcome[r] === OUTCOME_REJECT;
      const k = (px * 2 * 128 + slot) * 2 + (rej ? 1 : 0);
      if (seen.has(k)) continue;
      seen.add(k);
      const y = slot * ROW;
      if (rej) rejected[slot] += `M${px} ${y + ROW - 2}v2`;
      else passed[slot] += `M${px} ${y + 1}v${ROW - 4}`;
    }
    return { passed, rejected };
    // x depends on untilMs only.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [lane, rows, untilMs]);
  const rowPx = rows <= 16 ? ROW_PX_FEW : ROW_PX_MANY;
  const every = rowPx >= 12 ? 1 : 2;
  return (
    <div className="fleet-strip-wrap">
      <div className="fleet-row-labels" aria-hidden="true" style={{ height: rows * rowPx }}>
        {Array.from({ length: rows }, (_, slot) => (
          <span key={slot} style={{ top: slot * rowPx + rowPx / 2 }}>
            {slot % every === 0 ? replicaLabel(slot) : ''}
          </span>
        ))}
      </div>
      <div className="fleet-strip-plot">
        <svg
          className="fleet-strip"
          viewBox={`0 0 ${WIDTH} ${rows * ROW}`}
          preserveAspectRatio="none"
          style={{ height: rows * rowPx }}
          role="img"
          aria-label={`Requests per replica over the run: ${plural(rows, 'row')} (R1 at the top), passed as ticks, rejected as dark bars`}
          data-testid="fleet-strip"
        >
          {outages.map((o, i) => (
            <rect
              key={i}
              className="fleet-outage"
              x={x(o.fromMs)}
              y={0}
              width={Math.max(1, x(Math.min(o.toMs, untilMs)) - x(o.fromMs))}
              height={rows * ROW}
            />
          ))}
          {paths.passed.map((d, slot) => (
            <g key={slot}>
              <path
                d={d}
                stroke={replicaColor(slot)}
                strokeWidth={1}
                fill="none"
                vectorEffect="non-scaling-stroke"
              />
              <path
                d={paths.rejected[slot]}
                className="fleet-rejected"
                strokeWidth={1.5}
                fill="none"
                vectorEffect="non-scaling-stroke"
              />
            </g>
          ))}
          <line
            className="fleet-now"
            x1={x(tMs)}
            x2={x(tMs)}
            y1={0}
            y2={rows * ROW}
            vectorEffect="non-scaling-stroke"
          />
        </svg>
        {outages.map((o, i) => (
          <span
            key={i}
            className="fleet-outage-label"
            style={{ left: `${(100 * x(o.fromMs)) / WIDTH}%` }}
          >
            store down
          </span>
        ))}
      </div>
    </div>
  );
}
