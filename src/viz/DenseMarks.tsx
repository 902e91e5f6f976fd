import { memo, useContext } from 'react';
import { AnimatingContext } from './animating';
import type { Outcome } from '../core';
import { finite, px } from './format';
import { RequestMark } from './RequestMark';
import type { VizRequest } from './types';

/** Above this many marks a view draws them as one path per outcome (see `DenseMarks`). */
export const DENSE_MARKS = 120;

export interface DenseMark {
  outcome: Outcome;
  x: number;
  y: number;
}

/** One mark's shape as path commands: ● circle, ■ square, ✕ cross, centred on (x, y). */
function segmentOf(outcome: Outcome, x: number, y: number, size: number): string {
  const h = size / 2;
  const s = (size * 0.9) / 2;
  const d = h * 0.85;
  if (outcome === 'admit')
    return `M${px(x - h)},${y}a${h},${h} 0 1,0 ${2 * h},0a${h},${h} 0 1,0 ${-2 * h},0`;
  if (outcome === 'delay')
    return `M${px(x - s)},${px(y - s)}h${px(2 * s)}v${px(2 * s)}h${px(-2 * s)}z`;
  return `M${px(x - d)},${px(y - d)}l${px(2 * d)},${px(2 * d)}m0,${px(-2 * d)}l${px(-2 * d)},${px(2 * d)}`;
}

/**
 * Segments already written, by outcome, size, x and y (tenths of a px). On a sliding axis a mark
 * keeps its place in its group from frame to frame, so each frame's paths are mostly segments of
 * the frame before: building them again was the largest allocation of a playing page (about 150
 * kB a frame scrolled to lanes 3–4, feeding the garbage collections in its slowest frames). Cleared when it grows past SEGMENTS_KEPT.
 */
const segments = new Map<string, Map<number, string>>();
let segmentCount = 0;
const SEGMENTS_KEPT = 20_000;

function cachedSegment(outcome: Outcome, x: number, y: number, size: number): string {
  const group = `${outcome}${size}`;
  let byPlace = segments.get(group);
  if (byPlace === undefined) segments.set(group, (byPlace = new Map<number, string>()));
  // x and y are whole tenths of a px (px), well inside ±100,000 px: one number for both.
  const place = Math.round(x * 10) * 4_000_003 + Math.round(y * 10);
  let segment = byPlace.get(place);
  if (segment === undefined) {
    if (segmentCount >= SEGMENTS_KEPT) {
      segments.clear();
      segmentCount = 0;
      segments.set(group, (byPlace = new Map<number, string>()));
    }
    segment = segmentOf(outcome, x, y, size);
    byPlace.set(place, segment);
    segmentCount += 1;
  }
  return segment;
}

/** The shapes of `marks` of one outcome as one path: ● circles, ■ squares, ✕ crosses. */
function pathOf(marks: readonly DenseMark[], outcome: Outcome, size: number): string {
  let out = '';
  for (let k = 0; k < marks.length; k += 1) {
    const m = marks[k] as DenseMark;
    if (m.outcome !== outcome) continue;
    out += cachedSegment(outcome, px(m.x), px(m.y), size);
  }
  return out;
}

/** Width of the pieces a playing view's dense marks are split into, px (see `ChunkedMarks`). */
const CHUNK_PX = 64;

/** Whether two lists of marks draw the same: same outcomes at the same places, in order. */
function sameMarks(a: readonly DenseMark[], b: readonly DenseMark[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let k = 0; k < a.length; k += 1) {
    const m = a[k] as DenseMark;
    const n = b[k] as DenseMark;
    if (m.outcome !== n.outcome || m.x !== n.x || m.y !== n.y) return false;
  }
  return true;
}

/** The marks of one outcome in one piece, as one path; drawn again only when the piece changed. */
const DenseChunk = memo(
  function DenseChunk({
    marks,
    outcome,
    size,
  }: {
    marks: readonly DenseMark[];
    outcome: Outcome;
    size: number;
  }) {
    const d = pathOf(marks, outcome, size);
    return d === '' ? null : <path className={`rl-mark rl-mark--${outcome}`} d={d} />;
  },
  (a, b) => a.outcome === b.outcome && a.size === b.size && sameMarks(a.marks, b.marks),
);

/**
 * While the clock plays: the marks in pieces CHUNK_PX wide (by x in their sliding group), one path
 * per outcome and piece, all admitted pieces first, then delayed, then rejected (the still
 * drawing's order). On a sliding axis a mark keeps its place in its group from frame to frame, so
 * a frame rewrites the newest piece (and the oldest, as marks leave) instead of three paths of
 * hundreds of marks each: the browser parses, lays out and paints a few dozen marks, not all of
 * them.
 */
function ChunkedMarks({ marks, size }: { marks: readonly DenseMark[]; size: number }) {
  const pieces = new Map<number, DenseMark[]>();
  // The outcomes each piece holds: a piece without marks of an outcome draws no path for it, so
  // it gets no DenseChunk either (a DenseChunk of no marks was compared and skipped every frame:
  // the compare page at 200 r/s scrolled to lanes 3–4 visited 74 memo components a frame, 34
  // without them, counted in a React commit hook).
  const held = new Map<number, number>();
  for (let n = 0; n < marks.length; n += 1) {
    const m = marks[n] as DenseMark;
    const k = Math.floor(m.x / CHUNK_PX);
    const piece = pieces.get(k);
    if (piece === undefined) pieces.set(k, [m]);
    else piece.push(m);
    held.set(k, (held.get(k) ?? 0) | OUTCOME_BIT[m.outcome]);
  }
  const keys = [...pieces.keys()].sort((a, b) => a - b);
  return (
    <>
      {(['admit', 'delay', 'reject'] as const).map((o) =>
        keys.map((k) =>
          ((held.get(k) ?? 0) & OUTCOME_BIT[o]) === 0 ? null : (
            <DenseChunk key={`${o}${k}`} marks={pieces.get(k) ?? []} outcome={o} size={size} />
          ),
        ),
      )}
    </>
  );
}

const OUTCOME_BIT: Record<Outcome, number> = { admit: 1, delay: 2, reject: 4 };

/**
 * Many request marks at once, as three paths (one per outcome, same shapes and classes as
 * `OutcomeMark`): a fast stream puts hundreds of marks on a time axis, and hundreds of elements
 * cost a repaint every frame where three paths do not. While the clock plays (`AnimatingContext`)
 * the paths are split into pieces that stay the same from frame to frame (`ChunkedMarks`). Single
 * marks are not clickable here (the timeline selects them).
 */
export const DenseMarks = memo(function DenseMarks({
  marks,
  size = 7,
}: {
  marks: readonly DenseMark[];
  size?: number;
}) {
  const animating = useContext(AnimatingContext);
  return (
    <g className="rl-dense-marks" data-testid="dense-marks" data-count={marks.length}>
      {animating ? (
        <ChunkedMarks marks={marks} size={size} />
      ) : (
        (['admit', 'delay', 'reject'] as const).map((o) => {
          const d = pathOf(marks, o, size);
          return d === '' ? null : <path key={o} className={`rl-mark rl-mark--${o}`} d={d} />;
        })
      )}
    </g>
  );
});

type Placed = { item: VizRequest; x: number; level: number };

/**
 * The dense mark last made from each placed mark (`stackColumns` hands an unmoved mark the same
 * entry from frame to frame): made again only when it would differ, so a playing view allocates
 * nothing per frame for the marks that stayed put.
 */
const denseBefore = new WeakMap<Placed, DenseMark>();

function denseMarkOf(placed: Placed, baseY: number): DenseMark {
  const x = finite(placed.x);
  const y = baseY - placed.level * 8;
  const outcome = placed.item.outcome;
  const before = denseBefore.get(placed);
  if (before !== undefined && before.x === x && before.y === y && before.outcome === outcome)
    return before;
  const mark = { outcome, x, y };
  denseBefore.set(placed, mark);
  return mark;
}

/**
 * Request marks stacked in columns on a sliding time axis (`stackColumns` output): single,
 * clickable marks, or `DenseMarks` when there are more than DENSE_MARKS of them. `baseY` is the
 * bottom mark's centre; each level sits 8 px higher; levels from `maxLevel` up are not drawn.
 */
export function StackedMarks({
  marks,
  baseY,
  maxLevel,
  onSelect,
}: {
  marks: readonly Placed[];
  baseY: number;
  maxLevel: number;
  onSelect?: ((id: number) => void) | undefined;
}) {
  const shown = marks.filter((m) => m.level < maxLevel);
  if (shown.length > DENSE_MARKS) {
    const dense: DenseMark[] = [];
    for (let k = 0; k < shown.length; k += 1) dense.push(denseMarkOf(shown[k] as Placed, baseY));
    return <DenseMarks marks={dense} />;
  }
  return (
    <>
      {shown.map(({ item: r, x, level }) => (
        <RequestMark
          key={r.id}
          request={r}
          x={finite(x)}
          y={baseY - level * 8}
          size={7}
          onSelect={onSelect}
        />
      ))}
    </>
  );
}
