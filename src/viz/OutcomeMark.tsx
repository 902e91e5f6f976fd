import type { Outcome } from '../core';
import { px } from './format';

/** Props of `<OutcomeMark>`. */
export interface OutcomeMarkProps {
  outcome: Outcome;
  /** Centre, px. */
  x: number;
  y: number;
  /** Width of the mark, px. Default 10. */
  size?: number;
  /** Drawn hollow (dashed outline): a mark that is only planned or reserved, not there yet. */
  hollow?: boolean;
  /** A colour in place of the outcome's (the shape still tells the outcome). Default: none. */
  color?: string | undefined;
}

/**
 * The outcome shape, never colour alone: admit ● circle, delay ■ square, reject ✕ cross
 * (src/ui/app/styles.css). A plain mark for use inside a labelled group.
 */
export function OutcomeMark({ outcome, x, y, size = 10, hollow = false, color }: OutcomeMarkProps) {
  const h = size / 2;
  const cls = `rl-mark rl-mark--${outcome}${hollow ? ' rl-mark--hollow' : ''}`;
  // A cross is stroked, the others filled (and outlined when hollow).
  const style =
    color === undefined
      ? undefined
      : outcome === 'reject' || hollow
        ? { stroke: color }
        : { fill: color };
  if (outcome === 'admit')
    return <circle className={cls} cx={px(x)} cy={px(y)} r={px(h)} style={style} />;
  if (outcome === 'delay') {
    // A square of the same visual weight as the circle (slightly smaller side).
    const s = size * 0.9;
    return (
      <rect
        className={cls}
        x={px(x - s / 2)}
        y={px(y - s / 2)}
        width={px(s)}
        height={px(s)}
        style={style}
      />
    );
  }
  const d = h * 0.85;
  return (
    <path
      className={cls}
      style={style}
      d={`M${px(x - d)},${px(y - d)}L${px(x + d)},${px(y + d)}M${px(x - d)},${px(y + d)}L${px(x + d)},${px(y - d)}`}
    />
  );
}
