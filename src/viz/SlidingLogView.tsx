import { memo, useMemo } from 'react';
import { linearScale } from './linear';
import { StackedMarks } from './DenseMarks';
import { TimeAxis } from './TimeAxis';
import { VizSvg } from './VizSvg';
import {
  clamp,
  finite,
  formatBytes,
  formatCount,
  formatDuration,
  formatOffset,
  plural,
  px,
} from './format';
import { ColumnLevels, requestsOfKey, stackColumns } from './requests';
import { slide } from './slide';
import type { AlgorithmViewProps } from './types';

const HEIGHT = 220;
const LOG_BOTTOM = 100;
const ENTRY = 7;
const STACK = 7;
const ARRIVALS_Y = 120;
const AXIS_Y = 136;
const MEMORY_Y = 184;

/** One stored timestamp as drawn: its x in the sliding group and its level in its 3 px column. */
interface LogEntry {
  id: string;
  e: number;
  /** Its rank among entries of the same time. */
  rank: number;
  x: number;
  level: number;
}

/** The entries each view drew last, by its axis (one per view while its size stays the same). */
const entriesBefore = new WeakMap<object, LogEntry[]>();

/** Width of the pieces the entries are drawn in, px (see `LogEntries`). */
const PIECE_PX = 64;

function sameEntries(a: readonly LogEntry[], b: readonly LogEntry[]): boolean {
  if (a.length !== b.length) return false;
  for (let k = 0; k < a.length; k += 1) {
    const m = a[k] as LogEntry;
    const n = b[k] as LogEntry;
    if (m.id !== n.id || m.x !== n.x || m.level !== n.level) return false;
  }
  return true;
}

/**
 * The entries of one piece of the log. The entries sit still in their sliding group, and at
 * 200 r/s only the newest piece (and the oldest, as entries leave) changes in a frame: the other
 * pieces are not rendered again (about a hundred circles re-rendered and re-committed
 * every frame). Fragments: the DOM is the same list of circles as one map would write.
 */
const LogEntries = memo(
  function LogEntries({ entries }: { entries: readonly LogEntry[] }) {
    return (
      <>
        {entries.map((e) => (
          <circle
            key={e.id}
            className="rl-entry"
            data-testid="log-entry"
            data-time={e.e}
            cx={e.x}
            cy={px(LOG_BOTTOM - 2 - e.level * (ENTRY + 2))}
            r={ENTRY / 2}
          />
        ))}
      </>
    );
  },
  (a, b) => sameEntries(a.entries, b.entries),
);

/** "Sliding log: 7 of 10 in the last 1 s; 14 entries stored; the oldest leaves the window in 200 ms." */
export function describeSlidingLog(i: AlgorithmViewProps<'sliding-log'>['inspection']): string {
  const oldest = i.entries[0];
  return (
    `Sliding log: ${formatCount(i.entries.length)} of ${formatCount(i.limit)} in the last ` +
    `${formatDuration(i.windowMs)}; ${plural(i.stored, 'entry', 'entries')} stored` +
    `${i.logRejected ? ' (rejected requests are logged too)' : ''}` +
    (oldest === undefined
      ? '.'
      : `; the oldest leaves the window in ${formatDuration(oldest + i.windowMs - i.effectiveNowMs)}.`)
  );
}

/**
 * Sliding log: the stored timestamps on a time axis with the window bracket [t − window, t] sliding
 * over them, the arrivals below (● admitted, ✕ rejected), and the memory the log takes, which grows
 * with offered load when `logRejected` is on.
 */
export function SlidingLogView({
  inspection: i,
  nowMs,
  requests,
  width = 480,
  stateSize,
  onSelectRequest,
}: AlgorithmViewProps<'sliding-log'>) {
  const w = Math.max(300, width);
  const W = Math.max(1, i.windowMs);
  const x0 = 12;
  const x1 = w - 12;
  const t = finite(i.effectiveNowMs, nowMs);

  // The axis is in ms relative to now: the bracket stays put and the entries slide left. It is
  // the same from frame to frame, and so is its drawing (not rendered again while playing).
  const axis = useMemo(() => {
    const offset = linearScale([-1.3 * W, 0.12 * W], [x0, x1], true);
    const ticks = offset.ticks(w < 420 ? 3 : 5);
    return {
      offset,
      drawn: <TimeAxis scale={offset} y={AXIS_Y} ticks={ticks} format={formatOffset} />,
    };
  }, [W, w, x1]);

  const model = useMemo(() => {
    const { offset } = axis;
    const xOf = (ms: number) => offset(ms - nowMs);
    // Entries and arrivals slide left in a group of their own (see slide.ts); one outside the
    // axis (after a clock jump) is pinned to its edge, drawn where the axis puts it.
    const sliding = slide(nowMs, offset(0), (x1 - x0) / (0.12 * W + 1.3 * W), 10 * W);
    const inGroup = (ms: number) =>
      ms - nowMs >= -1.3 * W && ms - nowMs <= 0.12 * W
        ? sliding.at(ms)
        : px(xOf(ms) - sliding.shiftPx);
    // Entries at the same pixel stack upwards (3 px columns that slide with them). In time order
    // they are in x order, and fill one column after another: a running count (a count per
    // column once one lands left of the one before, as when the clock jumped).
    const levels = new ColumnLevels();
    const entryBin = (placed: LogEntry) => Math.round((placed.x - sliding.zeroPx) / 3);
    const before = entriesBefore.get(axis) ?? [];
    const entries: LogEntry[] = [];
    for (let k = 0, rank = 0, j = 0; k < i.entries.length; k += 1) {
      const e = i.entries[k] as number;
      rank = k > 0 && i.entries[k - 1] === e ? rank + 1 : 0;
      const ex = inGroup(e);
      const level = levels.next(Math.round((ex - sliding.zeroPx) / 3), entries, entryBin);
      while (
        j < before.length &&
        ((before[j] as LogEntry).e < e ||
          ((before[j] as LogEntry).e === e && (before[j] as LogEntry).rank < rank))
      )
        j += 1;
      const same = before[j];
      if (
        same !== undefined &&
        same.e === e &&
        same.rank === rank &&
        same.x === ex &&
        same.level === level
      )
        entries.push(same);
      else entries.push({ id: `${e}:${rank}`, e, rank, x: ex, level });
    }
    entriesBefore.set(axis, entries);
    const d0 = nowMs - 1.3 * W;
    const arrivals = requestsOfKey(requests, i.key).filter(
      (r) => r.arrivalMs >= d0 && r.arrivalMs <= nowMs,
    );
    const marks = stackColumns(arrivals, (r) => sliding.at(r.arrivalMs), 7, sliding.zeroPx);
    // The drawn entries in pieces PIECE_PX wide (by their x in the sliding group), in time order.
    const pieces: Array<{ key: number; entries: LogEntry[] }> = [];
    for (let n = 0; n < entries.length; n += 1) {
      const entry = entries[n] as LogEntry;
      if (entry.level >= STACK) continue;
      const key = Math.floor(entry.x / PIECE_PX);
      const last = pieces.at(-1);
      if (last !== undefined && last.key === key) last.entries.push(entry);
      else pieces.push({ key, entries: [entry] });
    }
    return { xOf, sliding, entries, pieces, marks };
  }, [axis, W, x1, nowMs, i.entries, requests, i.key]);

  const label = describeSlidingLog(i);
  const bx0 = model.xOf(t - W);
  const bx1 = model.xOf(t);
  const memMax = Math.max(i.limit, i.stored, 1) * 1.1;
  const mem = (n: number) => x0 + (clamp(n, 0, memMax) / memMax) * (x1 - x0);
  const overflow = model.entries.filter((e) => e.level >= STACK).length;

  return (
    <VizSvg
      className="rl-sliding-log"
      width={w}
      height={HEIGHT}
      label={label}
      interactive={onSelectRequest !== undefined}
      testId="sliding-log-view"
    >
      <text className="rl-big" x={x0} y={22} data-testid="log-count">
        {formatCount(i.entries.length)}
        <tspan className="rl-muted rl-unit">{` / ${formatCount(i.limit)} in the window`}</tspan>
      </text>
      <text className="rl-small rl-muted" x={x1} y={22} textAnchor="end">
        window {formatDuration(W)}
      </text>

      <g className="rl-bracket" data-testid="window-bracket">
        <rect
          className="rl-bracket-band"
          x={px(bx0)}
          y={34}
          width={px(Math.max(0, bx1 - bx0))}
          height={LOG_BOTTOM - 34 + 6}
        />
        <path
          className="rl-bracket-line"
          d={`M${px(bx0 + 5)},34H${px(bx0)}V${LOG_BOTTOM + 6}H${px(bx0 + 5)}M${px(bx1 - 5)},34H${px(bx1)}V${LOG_BOTTOM + 6}H${px(bx1 - 5)}`}
        />
        <text className="rl-small rl-muted" x={px(bx0 + 8)} y={46}>
          t − {formatDuration(W)}
        </text>
      </g>

      <g className="rl-log" transform={`translate(${model.sliding.shiftPx},0)`}>
        {model.pieces.map((piece) => (
          <LogEntries key={piece.key} entries={piece.entries} />
        ))}
      </g>
      {overflow > 0 && (
        <text className="rl-small" x={px(bx1 - 8)} y={46} textAnchor="end">
          {`+${formatCount(overflow)} stacked`}
        </text>
      )}

      <g className="rl-arrivals" transform={`translate(${model.sliding.shiftPx},0)`}>
        <StackedMarks
          marks={model.marks}
          baseY={ARRIVALS_Y + 4}
          maxLevel={2}
          onSelect={onSelectRequest}
        />
      </g>
      {axis.drawn}

      <g className="rl-memory" data-testid="log-size">
        <text className="rl-small" x={x0} y={MEMORY_Y - 10}>
          memory: {plural(i.stored, 'entry', 'entries')}
          {stateSize !== undefined ? ` · ${formatBytes(stateSize.bytes)}` : ''}
        </text>
        {i.logRejected && (
          <text className="rl-small rl-muted" x={x1} y={MEMORY_Y - 10} textAnchor="end">
            logRejected: rejections stored too
          </text>
        )}
        <rect
          className="rl-memory-track"
          x={x0}
          y={MEMORY_Y}
          width={px(x1 - x0)}
          height={10}
          rx={2}
        />
        <rect
          className={i.stored > i.limit ? 'rl-memory-bar rl-memory-bar--over' : 'rl-memory-bar'}
          data-testid="log-size-bar"
          x={x0}
          y={MEMORY_Y}
          width={px(mem(i.stored) - x0)}
          height={10}
          rx={2}
        />
        <path className="rl-limit-line" d={`M${px(mem(i.limit))},${MEMORY_Y - 3}v16`} />
        <text
          className="rl-small rl-muted"
          x={px(mem(i.limit))}
          y={MEMORY_Y + 26}
          textAnchor="middle"
        >
          limit {formatCount(i.limit)}
        </text>
      </g>
    </VizSvg>
  );
}
