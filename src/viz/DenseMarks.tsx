import { memo } from 'react';
import type { Outcome } from '../core';
import { px } from './format';

/** Above this many marks a view draws them as one path per outcome (see `DenseMarks`). */
export const DENSE_MARKS = 120;

export interface DenseMark {
  outcome: Outcome;
  x: number;
  y: number;
}

/** The shapes of `marks` of one outcome as one path: ● circles, ■ squares, ✕ crosses. */
function pathOf(marks: readonly DenseMark[], outcome: Outcome, size: number): string {
  const h = size / 2;
  const s = (size * 0.9) / 2;
  const d = h * 0.85;
  let out = '';
  for (const m of marks) {
    if (m.outcome !== outcome) continue;
    const x = px(m.x);
    const y = px(m.y);
    if (outcome === 'admit')
      out += `M${px(x - h)},${y}a${h},${h} 0 1,0 ${2 * h},0a${h},${h} 0 1,0 ${-2 * h},0`;
    else if (outcome === 'delay')
      out += `M${px(x - s)},${px(y - s)}h${px(2 * s)}v${px(2 * s)}h${px(-2 * s)}z`;
    else
      out += `M${px(x - d)},${px(y - d)}l${px(2 * d)},${px(2 * d)}m0,${px(-2 * d)}l${px(-2 * d)},${px(2 * d)}`;
  }
  return out;
}

/**
 * Many request marks at once, as three paths (one per outcome, same shapes and classes as
 * `OutcomeMark`): a fast stream puts hundreds of marks on a time axis, and hundreds of elements
 * cost a repaint every frame where three paths do not. Single marks are not clickable here (the
 * timeline selects them).
 */
export const DenseMarks = memo(function DenseMarks({
  marks,
  size = 7,
}: {
  marks: readonly DenseMark[];
  size?: number;
}) {
  return (
    <g className="rl-dense-marks" data-testid="dense-marks" data-count={marks.length}>
      {(['admit', 'delay', 'reject'] as const).map((o) => {
        const d = pathOf(marks, o, size);
        return d === '' ? null : <path key={o} className={`rl-mark rl-mark--${o}`} d={d} />;
      })}
    </g>
  );
});
