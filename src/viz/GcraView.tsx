import { useMemo } from 'react';
import { linearScale } from './linear';
import { OutcomeMark } from './OutcomeMark';
import { StackedMarks } from './DenseMarks';
import { TimeAxis } from './TimeAxis';
import { VizSvg } from './VizSvg';
import { clamp, finite, formatDuration, formatOffset, formatTokens, px } from './format';
import { requestsOfKey, stackColumns } from './requests';
import { slide } from './slide';
import type { AlgorithmViewProps } from './types';

type Inspection = AlgorithmViewProps<'gcra'>['inspection'];

const HEIGHT = 200;
const BAND_TOP = 50;
const BAND_BOTTOM = 84;
const T_Y = 100;
const ARRIVALS_Y = 120;
const AXIS_Y = 134;
/** Tolerances up to this many emission intervals draw one cell per interval. */
const MAX_CELLS = 40;

/**
 * True when a request at `nowMs` passes: now ≥ allow-at. The inspection's times are floats for
 * drawing; the exact ones are multiples of 1/count ms (≥ 1e-6 ms apart), so a margin of a few float
 * steps at these magnitudes separates rounding noise from a real difference.
 */
export function gcraAdmits(i: Inspection): boolean {
  const magnitude = Math.max(1, Math.abs(i.nowMs), Math.abs(i.tatMs), i.toleranceMs);
  return i.allowAtMs - i.nowMs <= magnitude * 16 * Number.EPSILON;
}

/** "GCRA: TAT 350 ms ahead of now; τ 1 s, T 100 ms; the next request is admitted." */
export function describeGcra(i: Inspection): string {
  const ahead = finite(i.tatMs - i.nowMs);
  const admit = gcraAdmits(i);
  return (
    `GCRA: ${ahead > 0 ? `TAT ${formatDuration(ahead)} ahead of now` : 'TAT not ahead of now (idle)'}; ` +
    `tolerance τ ${formatDuration(i.toleranceMs)}, emission interval T ${formatDuration(i.emissionIntervalMs)}; ` +
    (admit
      ? 'the next request is admitted.'
      : `the next request is rejected until ${formatOffset(i.allowAtMs - i.nowMs)}.`)
  );
}

/**
 * GCRA (redis-cell): a time axis relative to now with the tolerance band [now, now + τ] cut into
 * emission intervals T, the theoretical arrival time (TAT) running ahead of the clock, where the next
 * request would push it (TAT + T), and allow-at, the earliest time that request passes.
 */
export function GcraView({
  inspection: i,
  nowMs,
  requests,
  width = 480,
  onSelectRequest,
}: AlgorithmViewProps<'gcra'>) {
  const w = Math.max(300, width);
  const T = Math.max(1e-6, finite(i.emissionIntervalMs, 1));
  const tau = Math.max(T, finite(i.toleranceMs, T));
  const ahead = clamp(finite(i.tatMs - nowMs), 0, tau + T);
  const x0 = 12;
  const x1 = w - 12;

  const model = useMemo(() => {
    const span = tau + T;
    const x = linearScale([-0.22 * span, 1.08 * span], [x0, x1], true);
    const cells = Math.round(tau / T);
    const dividers =
      cells <= MAX_CELLS
        ? Array.from({ length: Math.max(0, cells - 1) }, (_, k) => (k + 1) * T)
        : [];
    const d0 = nowMs - 0.22 * span;
    const arrivals = requestsOfKey(requests, i.key).filter(
      (r) => r.arrivalMs >= d0 && r.arrivalMs <= nowMs,
    );
    // The arrivals slide left in a group of their own (see slide.ts).
    const sliding = slide(nowMs, x(0), (x1 - x0) / (1.08 * span + 0.22 * span), 10 * span);
    const marks = stackColumns(arrivals, (r) => sliding.at(r.arrivalMs), 7, sliding.zeroPx);
    return { x, dividers, marks, sliding, ticks: x.ticks(w < 420 ? 3 : 5) };
  }, [tau, T, x1, nowMs, requests, i.key, w]);

  const { x } = model;
  const admit = gcraAdmits(i);
  const label = describeGcra(i);
  const nextOffset = ahead + T;
  const allowOffset = finite(i.allowAtMs - nowMs);
  const nowX = px(x(0));
  const tatX = px(x(ahead));
  const nextX = px(x(nextOffset));
  const allowX = px(x(Math.max(0, allowOffset)));

  return (
    <VizSvg
      className="rl-gcra"
      width={w}
      height={HEIGHT}
      label={label}
      interactive={onSelectRequest !== undefined}
      testId="gcra-view"
    >
      <text className="rl-big" x={x0} y={22} data-testid="tat-ahead">
        {ahead > 0 ? `+${formatDuration(ahead)}` : 'idle'}
        <tspan className="rl-muted rl-unit">
          {ahead > 0
            ? ` TAT ahead of now · ${formatTokens(ahead / T)} of ${formatTokens(tau / T)} T used`
            : ' TAT is not ahead of now'}
        </tspan>
      </text>

      <g data-testid="tolerance-band">
        <rect
          className="rl-tolerance"
          x={nowX}
          y={BAND_TOP}
          width={px(x(tau) - x(0))}
          height={BAND_BOTTOM - BAND_TOP}
        />
        {ahead > 0 && (
          <rect
            className="rl-tolerance-used"
            data-testid="tolerance-used"
            x={nowX}
            y={BAND_TOP}
            width={px(tatX - nowX)}
            height={BAND_BOTTOM - BAND_TOP}
          />
        )}
        {model.dividers.map((d) => (
          <path key={d} className="rl-slot-divider" d={`M${px(x(d))},${BAND_TOP}V${BAND_BOTTOM}`} />
        ))}
        {/* τ as a bracket over the band: now … now + τ. */}
        <path className="rl-interval" d={`M${nowX},${BAND_TOP - 4}v-4H${px(x(tau))}v4`} />
        <text
          className="rl-small rl-muted"
          x={px((x(0) + x(tau)) / 2)}
          y={BAND_TOP - 12}
          textAnchor="middle"
        >
          tolerance τ = {formatDuration(tau)}
        </text>
      </g>

      {/* Where the next request would push the TAT, and T as a bracket. */}
      <g data-testid="emission-interval">
        <path className="rl-interval" d={`M${tatX},${T_Y - 4}v4H${nextX}v-4`} />
        <text className="rl-small" x={px((tatX + nextX) / 2)} y={T_Y + 12} textAnchor="middle">
          T = {formatDuration(T)}
        </text>
      </g>
      <g data-testid="next-request">
        <OutcomeMark
          outcome={admit ? 'admit' : 'reject'}
          x={nextX}
          y={(BAND_TOP + BAND_BOTTOM) / 2}
          size={11}
          hollow
        />
      </g>

      <g data-testid="tat">
        <path className="rl-tat" d={`M${tatX},${BAND_TOP}V${BAND_BOTTOM + 6}`} />
        <text
          className="rl-small rl-strong"
          x={px(tatX + (ahead > 0 ? -4 : 4))}
          y={BAND_BOTTOM + 12}
          textAnchor={ahead > 0 ? 'end' : 'start'}
        >
          TAT
        </text>
      </g>

      {/* The now line goes under the marks: a request decided at this instant stays visible. */}
      <path className="rl-now" data-testid="now-line" d={`M${nowX},${BAND_TOP}V${AXIS_Y}`} />
      <g className="rl-arrivals" transform={`translate(${model.sliding.shiftPx},0)`}>
        <StackedMarks
          marks={model.marks}
          baseY={ARRIVALS_Y + 6}
          maxLevel={3}
          onSelect={onSelectRequest}
        />
      </g>

      <TimeAxis scale={x} y={AXIS_Y} ticks={model.ticks} format={formatOffset} />

      <g data-testid="allow-at">
        <path className="rl-allow" d={`M${allowX},${AXIS_Y + 20}l-5,8h10z`} />
        <text
          className="rl-small"
          x={allowX}
          y={AXIS_Y + 42}
          textAnchor={allowOffset <= 0 ? 'start' : 'middle'}
        >
          allow at {allowOffset <= 0 ? 'now' : formatOffset(allowOffset)}
        </text>
      </g>

      <g transform={`translate(${x0},${HEIGHT - 10})`}>
        <OutcomeMark outcome={admit ? 'admit' : 'reject'} x={5} y={0} size={9} />
        <text className="rl-small" x={16} y={0} dy="0.35em" data-testid="gcra-verdict">
          next request: {admit ? 'admit (TAT + T ≤ now + τ)' : 'reject (TAT + T > now + τ)'}
        </text>
      </g>
    </VizSvg>
  );
}
