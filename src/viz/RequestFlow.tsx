// Long file on purpose: one strip whose layout, motion, marks and counts read as one drawing; its
// moving marks' paths are split out already (MovingMarks.tsx), the pure helpers are in requests.ts.
import type { MouseEvent, ReactNode } from 'react';
import {
  Fragment,
  useCallback,
  useEffect,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
} from 'react';
import { RequestMark } from './RequestMark';
import { markAt, nearestMark } from './markAt';
import { attachFlow, detachFlow, drawFlow, offscreenPaintable } from './flowPainter';
import { packMarks } from './flowScene';
import type { FlowScene, FlowStation, FlowStill, FlowText } from './flowScene';
import type { MovingMark, MovingMarks as MovingMarksType } from './MovingMarks';
import { OutcomeMark } from './OutcomeMark';
import { VizSvg } from './VizSvg';
import { clamp, formatCount, formatDuration, plural, px, textWidth } from './format';
import {
  FLOW_LINGER_MS,
  MAX_INCOMING,
  byArrival,
  flowPhase,
  laneOf,
  responseLabel,
} from './requests';
import type { FlowPhase } from './requests';
import type { CommonViewProps, FlowCounts, VizRequest } from './types';

/** Props of `<RequestFlow>`. */
export interface RequestFlowProps extends CommonViewProps {
  /** Virtual ms per leg (client → limiter, limiter → backend, and back). Default 400. */
  travelMs?: number;
  /** Virtual ms a request stays drawn at the client or the backend after it got there. Default 300. */
  lingerMs?: number;
  /**
   * The counts to show, for this `nowMs`, `travelMs` and `lingerMs`, when `requests` holds only
   * some of the requests they count (a fast stream: the page hands the strip the newest past rows
   * and only the `MAX_INCOMING` nearest incoming ones). Default: counted from `requests`.
   */
  counts?: FlowCounts;
  /** Most request marks drawn (waiting ones first, then the newest). Default 80. */
  maxMarks?: number;
  /**
   * The clock is playing: the marks on their way (every one moves every frame) are drawn as a few
   * paths, one per outcome and opacity, instead of one SVG element each (`MovingMarks`).
   * A still frame (paused, or `reducedMotion`) draws them as single marks: focusable, clickable,
   * and what screenshots and tests read. Default false.
   */
  animating?: boolean;
}

const HEIGHT = 168;
/** Line height of the counts under the strip, px. */
const SUMMARY_LINE = 18;
const TOP = 30;
const LANES = 4;
const LANE_GAP = 13;
const MARK = 9;
const CELL = 13;
/** Bottom of the client and backend boxes; the limiter box goes on to hold its waiting requests. */
const BOX_BOTTOM = TOP + LANES * LANE_GAP + 6;
const HOLD_TOP = BOX_BOTTOM + 4;
const HOLD_ROWS = 2;
const LIMITER_BOTTOM = HOLD_TOP + HOLD_ROWS * CELL + 4;

interface Placed {
  request: VizRequest;
  phase: FlowPhase;
}

interface SummaryItem {
  key: string;
  outcome: 'admit' | 'delay' | 'reject';
  text: string;
}

/** The counts' places: a mark, its words, a gap; a new line when the next one would not fit. */
function layoutSummary(items: readonly SummaryItem[], width: number) {
  let x = 0;
  let line = 0;
  const placed = items.map((item) => {
    const w = 14 + textWidth(item.text);
    if (x > 0 && x + w > width) {
      x = 0;
      line += 1;
    }
    const at = { ...item, x, line };
    x += w + 14;
    return at;
  });
  return { items: placed, lines: line + 1 };
}

/** Marks in a grid from (x0, y0), in the order given; returns the ones that fit and the overflow. */
function grid(items: Placed[], x0: number, y0: number, width: number, rows: number) {
  const cols = Math.max(1, Math.floor(width / CELL));
  const fit = items.slice(0, cols * rows);
  return {
    cells: fit.map((p, i) => ({
      placed: p,
      x: x0 + CELL / 2 + (i % cols) * CELL,
      y: y0 + CELL / 2 + Math.floor(i / cols) * CELL,
    })),
    overflow: items.length - fit.length,
  };
}

/**
 * The request-flow strip shared by every algorithm: requests travel client → limiter → backend as a
 * function of (nowMs − arrivalMs) only. Admitted requests pass through, delayed ones wait inside the
 * limiter until their release, rejected ones bounce back to the client with their status and
 * `Retry-After`. With `reducedMotion` nothing travels: each request sits in the box it is in.
 */

/**
 * The moving marks' paths are a chunk of their own (initial JavaScript ≤ 160 kB),
 * fetched when a strip first plays; until it has arrived the strip draws its moving marks as single
 * SVG marks, as a still frame does (the next frame, a moment later, draws the paths).
 */
let MovingMarks: typeof MovingMarksType | null = null;
let movingMarksFetch: Promise<void> | null = null;

/** Fetches the moving marks' chunk (once); resolves when strips can draw them as paths. */
export function preloadMovingMarks(): Promise<void> {
  movingMarksFetch ??= import('./MovingMarks').then(
    (m) => {
      MovingMarks = m.MovingMarks;
    },
    () => {
      // Offline or the site was updated: the strips go on drawing single SVG marks.
    },
  );
  return movingMarksFetch;
}

export function RequestFlow({
  nowMs,
  requests,
  reducedMotion,
  width = 480,
  onSelectRequest,
  travelMs = 400,
  lingerMs = FLOW_LINGER_MS,
  maxMarks = 80,
  animating = false,
  counts,
}: RequestFlowProps) {
  if (animating && MovingMarks === null) void preloadMovingMarks();
  // A strip that drew single marks while the chunk was on its way draws again when it arrives,
  // with the props it has: a lane off screen does not re-render while the clock plays, and its
  // frozen strip kept ~50 transformed marks each, which Chrome layerized every frame.
  const [, setPathsArrived] = useState(false);
  useEffect(() => {
    if (!animating || MovingMarks !== null) return;
    let live = true;
    void preloadMovingMarks().then(() => {
      if (live && MovingMarks !== null) setPathsArrived(true);
    });
    return () => {
      live = false;
    };
  }, [animating]);
  const Paths = animating ? MovingMarks : null;
  // A playing strip is painted by a worker on a canvas of its own (flowPainter): the page only
  // lays it out. Where a browser cannot, and for a still frame, it is SVG.
  const painted = animating && !reducedMotion && offscreenPaintable();
  // The worker has put the canvas's first frame on it: until then the SVG stays (a blank strip
  // for a frame or two each time the clock starts would flicker).
  const [firstFrameShown, setFirstFrameShown] = useState(false);
  const canvasOnly = painted && firstFrameShown;
  const w = Math.max(240, width);
  const boxW = clamp(w * 0.16, 52, 96);
  const limW = clamp(w * 0.3, 96, 200);
  const client = { x0: 8, x1: 8 + boxW };
  const backend = { x0: w - 8 - boxW, x1: w - 8 };
  const limiter = { x0: w / 2 - limW / 2, x1: w / 2 + limW / 2 };

  const model = useMemo(() => {
    const placed: Placed[] = [];
    let incomingTotal = 0;
    // Index loops: a for…of here allocated an iterator result per request and frame.
    for (let k = 0; k < requests.length; k += 1) {
      const r = requests[k] as VizRequest;
      const phase = flowPhase(r, nowMs, travelMs, lingerMs);
      if (phase === null) continue;
      placed.push({ request: r, phase });
      if (phase.phase === 'incoming') incomingTotal += 1;
    }
    // Waiting requests first, so the queue is never cut; then the decided ones, newest first; then
    // those on their way in, nearest to the limiter first and at most MAX_INCOMING of them, so a
    // fast stream still leaves room to see what the limiter decided (and fewer marks move per frame).
    const rank = (p: Placed) =>
      p.phase.phase === 'waiting' ? 0 : p.phase.phase === 'incoming' ? 2 : 1;
    placed.sort(
      (a, b) =>
        rank(a) - rank(b) ||
        (rank(a) === 2 ? byArrival(a.request, b.request) : byArrival(b.request, a.request)),
    );
    const firstIncoming = placed.findIndex((p) => rank(p) === 2);
    if (firstIncoming >= 0) placed.splice(firstIncoming + MAX_INCOMING);
    // One pass for the counts and the queue (a filter per count made a list per frame each).
    let passed = 0;
    let rejected = 0;
    let latestRejected: VizRequest | undefined;
    const waiting: Placed[] = [];
    for (let k = 0; k < placed.length; k += 1) {
      const p = placed[k] as Placed;
      switch (p.phase.phase) {
        case 'to-backend':
        case 'at-backend':
          passed += 1;
          break;
        case 'bounce':
        case 'at-client':
          if (rejected === 0) latestRejected = p.request;
          rejected += 1;
          break;
        case 'waiting':
          waiting.push(p);
          break;
        case 'incoming':
          break;
      }
    }
    waiting.sort(
      (a, b) => a.request.releaseMs - b.request.releaseMs || a.request.id - b.request.id,
    );
    return {
      shown: placed.slice(0, Math.max(0, maxMarks)),
      waiting,
      passed,
      rejected,
      incoming: incomingTotal,
      latestRejected,
    };
  }, [requests, nowMs, travelMs, lingerMs, maxMarks]);
  // What the counts say: the exact ones given, or the rows' own.
  const passed = counts?.passed ?? model.passed;
  const rejected = counts?.rejected ?? model.rejected;
  const waiting = counts?.waiting ?? model.waiting.length;
  const incoming = counts?.incoming ?? model.incoming;

  const recentMs = travelMs + lingerMs;
  const label =
    `Request flow: ${plural(waiting, 'request')} waiting in the limiter; ` +
    `in the last ${formatDuration(recentMs)} ${passed} passed to the backend and ` +
    `${rejected} rejected` +
    (model.latestRejected === undefined
      ? '.'
      : `; latest rejection ${responseLabel(model.latestRejected)}.`);

  const laneY = (id: number) => TOP + 10 + laneOf(id, LANES) * LANE_GAP;
  const interactive = onSelectRequest !== undefined;

  // Waiting requests always sit in the limiter's grid, in release order.
  const queue = grid(model.waiting, limiter.x0 + 4, HOLD_TOP, limW - 8, HOLD_ROWS);
  // Focusable and clickable marks, also over a painted strip's canvas (they move only when the
  // queue does; RequestMark is memoised). Made where they are drawn: a painted strip makes them
  // only when the queue changes (below), not every frame.
  const queueMarks = () =>
    queue.cells.map(({ placed, x, y }) => (
      <RequestMark
        key={placed.request.id}
        request={placed.request}
        x={x}
        y={y}
        size={MARK}
        phase="waiting"
        onSelect={onSelectRequest}
      />
    ));
  const others = model.shown.filter((p) => p.phase.phase !== 'waiting');

  let moving: ReactNode[] = [];
  let movingMarks: MovingMark[] | null = null;
  let overflowText: ReactNode[] = [];
  if (reducedMotion) {
    // Static lanes: each request in the box it is in, newest first, no positions that depend on time.
    const atClient = others.filter((p) =>
      ['incoming', 'bounce', 'at-client'].includes(p.phase.phase),
    );
    const atBackend = others.filter((p) => ['to-backend', 'at-backend'].includes(p.phase.phase));
    const c = grid(atClient, client.x0 + 2, TOP + 3, boxW - 4, LANES);
    const b = grid(atBackend, backend.x0 + 2, TOP + 3, boxW - 4, LANES);
    moving = [...c.cells, ...b.cells].map(({ placed, x, y }) => (
      <RequestMark
        key={placed.request.id}
        request={placed.request}
        x={x}
        y={y}
        size={MARK}
        phase={placed.phase.phase}
        onSelect={onSelectRequest}
        pending={placed.phase.phase === 'incoming'}
      />
    ));
    overflowText = [
      [c.overflow, client.x1 - 2],
      [b.overflow, backend.x1 - 2],
    ]
      .filter(([n]) => (n as number) > 0)
      .map(([n, x]) => (
        <text
          key={`o${x}`}
          className="rl-small"
          x={px(x as number)}
          y={BOX_BOTTOM + 12}
          textAnchor="end"
        >
          +{n}
        </text>
      ));
  } else {
    // Where each moving request is now (one object per mark and frame: they are made anew every
    // frame, so no intermediate list).
    const place = ({ request: r, phase }: Placed) => {
      let x = 0;
      let y = laneY(r.id);
      let opacity = 1;
      switch (phase.phase) {
        case 'incoming':
          x = client.x1 + (limiter.x0 + 6 - client.x1) * phase.progress;
          break;
        case 'to-backend': {
          // Admitted requests cross the limiter; released ones leave from its right edge.
          const from = r.outcome === 'delay' ? limiter.x1 : limiter.x0 + 6;
          x = from + (backend.x0 + 6 - from) * phase.progress;
          break;
        }
        case 'at-backend':
          x = backend.x0 + 6 + (boxW - 12) * phase.progress;
          opacity = 1 - 0.7 * phase.progress;
          break;
        case 'bounce':
          x = limiter.x0 + 6 - (limiter.x0 + 6 - client.x1 - 6) * phase.progress;
          // A small hop on the way back: reads as "bounced", not "sent".
          y -= Math.sin(Math.PI * phase.progress) * 10;
          break;
        case 'at-client':
          x = client.x1 - 6 - (boxW - 12) * phase.progress;
          opacity = 1 - 0.7 * phase.progress;
          break;
        case 'waiting':
          break;
      }
      return { x, y, opacity };
    };
    if (Paths !== null || painted) {
      // Opacity in steps of 0.1 (a fading mark is within 0.05 of RequestMark's): the marks of one
      // outcome and step share a path, so a frame writes a handful of paths.
      movingMarks = others.map((p) => {
        const { x, y, opacity } = place(p);
        return {
          outcome: p.phase.phase === 'incoming' ? 'pending' : p.request.outcome,
          x: px(x),
          y: px(y),
          size: MARK,
          opacity: opacity < 1 ? Math.round(opacity * 10) / 10 : 1,
        };
      });
    }
    if (Paths === null && !canvasOnly) {
      moving = others.map((p) => {
        const { x, y, opacity } = place(p);
        return (
          <RequestMark
            key={p.request.id}
            request={p.request}
            x={x}
            y={y}
            size={MARK}
            phase={p.phase.phase}
            opacity={opacity}
            onSelect={onSelectRequest}
            pending={p.phase.phase === 'incoming'}
          />
        );
      });
    }
  }

  /** A click on the marks' band selects the mark within 12 px of it (the SVG marks' hit radius). */
  const onBandClick = (e: MouseEvent<SVGRectElement>) => {
    if (movingMarks === null || onSelectRequest === undefined) return;
    const id = others[markAt(movingMarks, e)]?.request.id;
    if (id !== undefined) onSelectRequest(id);
  };

  // The boxes, the hold line and the arrows depend on the width only: made once per width, so a
  // playing strip's frame does not render and diff their ~15 elements again.
  const still = useMemo(() => {
    const arrowY = BOX_BOTTOM + 8;
    const station = (kind: FlowStation['kind'], x0: number, x1: number, bottom: number) => ({
      kind,
      name: kind,
      x: px(x0),
      width: px(x1 - x0),
      cx: px((x0 + x1) / 2),
      top: TOP,
      bottom,
    });
    const geometry: FlowStill = {
      stations: [
        station('client', client.x0, client.x1, BOX_BOTTOM),
        station('limiter', limiter.x0, limiter.x1, LIMITER_BOTTOM),
        station('backend', backend.x0, backend.x1, BOX_BOTTOM),
      ],
      holdLine: { x0: px(limiter.x0), x1: px(limiter.x1), y: HOLD_TOP - 2 },
      arrows: [
        { x0: px(client.x1 + 4), x1: px(limiter.x0 - 4), y: arrowY },
        { x0: px(limiter.x1 + 4), x1: px(backend.x0 - 4), y: arrowY },
      ],
    };
    return {
      geometry,
      stations: (
        <>
          {geometry.stations.map((s) => (
            <g key={s.kind} className={`rl-station rl-station--${s.kind}`}>
              <rect x={s.x} y={s.top} width={s.width} height={px(s.bottom - s.top)} rx={6} />
              <text className="rl-label" x={s.cx} y={s.top - 8} textAnchor="middle">
                {s.name}
              </text>
            </g>
          ))}
          <path
            className="rl-hold-line"
            d={`M${geometry.holdLine.x0},${geometry.holdLine.y}H${geometry.holdLine.x1}`}
          />
        </>
      ),
      arrows: (
        <g className="rl-flow-arrows" aria-hidden="true">
          {geometry.arrows.map((a) => (
            <Fragment key={a.x0}>
              <path className="rl-arrow" d={`M${a.x0},${a.y}H${a.x1}`} />
              <path className="rl-arrow-head" d={`M${a.x1},${a.y}l-5,-3v6z`} />
            </Fragment>
          ))}
        </g>
      ),
    };
  }, [client.x0, client.x1, limiter.x0, limiter.x1, backend.x0, backend.x1]);

  // The newest bouncing request's status, over the client ← limiter gap where no mark travels
  // (a label riding on a moving mark ran over the marks in the lanes next to it).
  const bouncing = reducedMotion
    ? undefined
    : others.find((p) => p.phase.phase === 'bounce')?.request;
  const bounceText = bouncing === undefined ? '' : `← ${bouncing.status}`;
  const gapX0 = client.x1 + 4;
  const gapX1 = limiter.x0 - 4;
  const showBounce = bounceText !== '' && textWidth(bounceText) <= gapX1 - gapX0;

  // The counts, left to right, wrapping onto a second line when the strip is narrow: each entry is
  // as wide as its words (three-digit counts ran "130 rejected" into "○ 10 on the way").
  const summary = layoutSummary(
    [
      { key: 'passed', outcome: 'admit', text: `${formatCount(passed)} passed` },
      { key: 'waiting', outcome: 'delay', text: `${formatCount(waiting)} waiting` },
      { key: 'rejected', outcome: 'reject', text: `${formatCount(rejected)} rejected` },
      ...(incoming > 0
        ? [
            {
              key: 'incoming',
              outcome: 'admit' as const,
              text: `${formatCount(incoming)} on the way`,
            },
          ]
        : []),
    ],
    w - 16,
  );
  const summaryY = LIMITER_BOTTOM + 18;
  const detailY = summaryY + summary.lines * SUMMARY_LINE;
  const height = HEIGHT + (summary.lines - 1) * SUMMARY_LINE;
  const nextOut = model.waiting[0];
  const nextOutInMs =
    counts !== undefined
      ? counts.nextOutInMs
      : nextOut !== undefined && nextOut.phase.phase === 'waiting'
        ? nextOut.phase.leftMs
        : null;
  // Waiting requests not drawn, also those not handed to the strip.
  const notDrawn = Math.max(queue.overflow, waiting - queue.cells.length);
  const holdOverflow = notDrawn > 0 ? `+${notDrawn}` : '';
  const detailRejection =
    model.latestRejected !== undefined
      ? `last rejection: ${responseLabel(model.latestRejected)}`
      : '';
  const detailJoin = model.latestRejected !== undefined && nextOutInMs !== null ? ' · ' : '';
  const detailNext = nextOutInMs !== null ? `next out in ${formatDuration(nextOutInMs)}` : '';
  const detail = detailRejection + detailJoin + detailNext;

  // A painted strip: this frame as data for the worker, and which request each mark is (a click
  // on the canvas selects the one under it, as on the SVG marks).
  let scene: FlowScene | null = null;
  let sceneIds: number[] = [];
  let sceneMarks: MovingMark[] = [];
  if (painted && movingMarks !== null) {
    // The waiting requests are SVG marks over the canvas (focusable): not painted.
    const marks: MovingMark[] = [...movingMarks];
    sceneIds = others.map((p) => p.request.id);
    const texts: FlowText[] = [];
    const small = (text: string, x: number, y: number, muted: boolean, centred = true) =>
      texts.push({ text, x, y, label: false, muted, anchor: 'start', centred });
    if (holdOverflow !== '') small(holdOverflow, px(limiter.x1 + 4), HOLD_TOP + CELL, true);
    if (showBounce) {
      texts.push({
        text: bounceText,
        x: px((gapX0 + gapX1) / 2),
        y: TOP - 8,
        label: false,
        muted: false,
        anchor: 'middle',
        centred: false,
      });
    }
    for (const item of summary.items) {
      const x = 8 + px(item.x);
      const y = summaryY + item.line * SUMMARY_LINE;
      marks.push({
        outcome: item.key === 'incoming' ? 'pending' : item.outcome,
        x: x + 5,
        y,
        size: 8,
        opacity: 1,
      });
      small(item.text, x + 14, y, false);
    }
    if (detail !== '') small(detail, 8, detailY, true);
    scene = { width: w, height, still: still.geometry, marks: packMarks(marks), texts };
    sceneMarks = marks;
  }
  const paintedRef = useRef<HTMLDivElement>(null);
  const slotRef = useRef<HTMLDivElement>(null);
  const stripId = useRef<number | null>(null);
  const hits = useRef<{
    width: number;
    marks: readonly MovingMark[];
    ids: readonly number[];
  } | null>(null);
  useLayoutEffect(() => {
    const slot = slotRef.current;
    if (!painted || slot === null) return;
    // A canvas of its own for each hand-over: a canvas is handed to a worker once, and a strip's
    // effect may run twice on one element (React's StrictMode, in development).
    const canvas = document.createElement('canvas');
    canvas.style.cssText = 'display:block;width:100%;height:100%';
    slot.appendChild(canvas);
    const id = attachFlow(canvas, () => setFirstFrameShown(true));
    stripId.current = id;
    return () => {
      detachFlow(id);
      canvas.remove();
      stripId.current = null;
      hits.current = null;
      setFirstFrameShown(false);
    };
  }, [painted]);
  useLayoutEffect(() => {
    const box = paintedRef.current;
    const id = stripId.current;
    if (scene === null || box === null || id === null) return;
    hits.current = { width: scene.width, marks: sceneMarks, ids: sceneIds };
    drawFlow(id, scene);
    // The label (and tooltip) says what the strip shows now, as the SVG's does: written only when
    // it changes.
    if (box.getAttribute('aria-label') !== label) {
      box.setAttribute('aria-label', label);
      box.title = label;
    }
  });
  const onCanvasClick = useCallback(
    (e: MouseEvent<HTMLDivElement>) => {
      const hit = hits.current;
      if (hit === null || onSelectRequest === undefined) return;
      // A waiting request's own mark took it.
      if (e.target instanceof Element && e.target.closest('.rl-request') !== null) return;
      const box = e.currentTarget.getBoundingClientRect();
      const scale = box.width > 0 ? hit.width / box.width : 1;
      const i = nearestMark(
        hit.marks.slice(0, hit.ids.length),
        (e.clientX - box.left) * scale,
        (e.clientY - box.top) * scale,
      );
      const id = hit.ids[i];
      if (id !== undefined) onSelectRequest(id);
    },
    [onSelectRequest],
  );
  // The painted strip: the canvas (made by the effect above, in its slot) and, over it, the
  // waiting requests' marks. React renders the marks when the queue changes, and otherwise
  // nothing: each frame only posts the layout (above).
  // Memoised on which requests wait, at which width: the same ones are the same marks in the same
  // cells (the handler is the lane's, the same from frame to frame).
  const queueKey = canvasOnly ? queue.cells.map((c) => c.placed.request.id).join(',') : '';
  const overlay = useMemo(
    () => (canvasOnly ? queueMarks() : null),
    // eslint-disable-next-line react-hooks/exhaustive-deps -- queueKey and w stand for queueMarks
    [canvasOnly, queueKey, w, onSelectRequest],
  );
  const canvas = useMemo(
    () => (
      <div
        ref={paintedRef}
        className="rl-flow--painted"
        role={interactive ? 'group' : 'img'}
        data-testid="request-flow-painted"
        style={{
          position: firstFrameShown ? 'relative' : 'absolute',
          width: w,
          maxWidth: '100%',
          aspectRatio: `${w} / ${height}`,
          // Laid out and painted to, not shown, until its first frame is there (beside the SVG).
          ...(firstFrameShown ? {} : { visibility: 'hidden' }),
        }}
        onClick={interactive ? onCanvasClick : undefined}
      >
        <div ref={slotRef} className="rl-flow-canvas" />
        <svg
          className="rl-viz rl-flow-overlay"
          viewBox={`0 0 ${px(w)} ${px(height)}`}
          width={px(w)}
          height={px(height)}
        >
          {overlay}
        </svg>
      </div>
    ),
    [w, height, interactive, onCanvasClick, firstFrameShown, overlay],
  );
  // The same two places every time (the SVG, then the canvas), so neither is made anew when the
  // other comes or goes.
  const svg = canvasOnly ? null : (
    <VizSvg
      className="rl-flow"
      width={w}
      height={height}
      label={label}
      interactive={interactive}
      testId="request-flow"
    >
      {still.stations}
      <text className="rl-small rl-muted" x={px(limiter.x1 + 4)} y={HOLD_TOP + CELL} dy="0.35em">
        {holdOverflow}
      </text>
      {still.arrows}
      {overflowText}
      {showBounce && (
        <text
          className="rl-request-label"
          x={px((gapX0 + gapX1) / 2)}
          y={TOP - 8}
          textAnchor="middle"
          data-testid="flow-bounce-status"
        >
          {bounceText}
        </text>
      )}
      <g className="rl-flow-marks">
        {movingMarks !== null && interactive && (
          <rect
            className="rl-hit"
            x={px(client.x0)}
            y={TOP - 2}
            width={px(backend.x1 - client.x0)}
            height={px(BOX_BOTTOM - TOP + 4)}
            onClick={onBandClick}
            style={{ cursor: 'pointer' }}
          />
        )}
        {movingMarks !== null && Paths !== null && <Paths marks={movingMarks} />}
        {moving}
        {queueMarks()}
      </g>
      <g className="rl-flow-summary" transform={`translate(8,${summaryY})`}>
        {summary.items.map((item) => (
          <g key={item.key} transform={`translate(${px(item.x)},${item.line * SUMMARY_LINE})`}>
            {item.key === 'incoming' ? (
              <circle className="rl-mark rl-mark--pending" cx={5} cy={0} r={3.5} />
            ) : (
              <OutcomeMark outcome={item.outcome} x={5} y={0} size={8} />
            )}
            <text className="rl-small" x={14} y={0} dy="0.35em" data-testid={`flow-${item.key}`}>
              {item.text}
            </text>
          </g>
        ))}
      </g>
      <text className="rl-small rl-muted" x={8} y={detailY} dy="0.35em" data-testid="flow-detail">
        {/* Three text nodes, as they always were: the screenshots' pixels stay the same. */}
        {detailRejection}
        {detailJoin}
        {detailNext}
      </text>
    </VizSvg>
  );
  return (
    <>
      {svg}
      {painted ? canvas : null}
    </>
  );
}
