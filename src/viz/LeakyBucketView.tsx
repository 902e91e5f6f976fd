import { useContext, useMemo } from 'react';
import { linearScale } from './linear';
import { rejectStatus } from '../core';
import { AnimatingContext } from './animating';
import { MovingMarks } from './MovingMarks';
import type { MovingMark } from './MovingMarks';
import { OutcomeMark } from './OutcomeMark';
import { RequestMark } from './RequestMark';
import { VizSvg } from './VizSvg';
import { markAt } from './markAt';
import { clamp, finite, formatCount, formatDuration, formatTokens, plural, px } from './format';
import { matchReleases, requestsOfKey, responseLabel } from './requests';
import type { AlgorithmViewProps, VizRequest } from './types';

const HEIGHT = 200;
const METER_Y = 42;
const METER_H = 22;
const QUEUE_Y = 130;
/** The width of a rejected request's mark as it bounces off the reject zone, px. */
const BOUNCE_SIZE = 10;
/** Burst sizes up to this draw one slot per request. */
const MAX_SLOTS = 30;

/** "nginx limit_req: excess 2.4 of burst=5; delay=2; 3 requests queued, next leaves in 40 ms." */
export function describeLeakyBucket(
  i: AlgorithmViewProps<'leaky-bucket'>['inspection'],
  nowMs: number,
  rejectedRecently: number,
  /** `rejectedRecently` counts only some of them (the requests were cut): say "at least". */
  atLeast = false,
): string {
  const excess = finite(i.excessNowMilli) / 1000;
  const parts = [
    `excess ${formatTokens(excess)} of burst=${formatCount(i.burst)}`,
    i.delay === null ? 'nodelay' : `delay=${formatCount(i.delay)}`,
  ];
  const first = i.releases[0];
  parts.push(
    first === undefined
      ? 'queue empty'
      : `${plural(i.releases.length, 'request')} queued, next leaves in ${formatDuration(first - nowMs)}`,
  );
  if (rejectedRecently > 0) {
    parts.push(`${atLeast ? 'at least ' : ''}${formatCount(rejectedRecently)} rejected just now`);
  }
  return `nginx limit_req: ${parts.join('; ')}.`;
}

/**
 * nginx `limit_req`: the excess meter in requests with the `delay=` threshold and the `burst` slots
 * (the dashed box is what one more request would add), the queue of delayed requests moving towards
 * the outlet as their release times come, and rejected requests bouncing off with their status.
 */
export function LeakyBucketView({
  config,
  inspection: i,
  nowMs,
  requests,
  reducedMotion,
  width = 480,
  travelMs = 400,
  onSelectRequest,
  requestsFromMs = Number.NEGATIVE_INFINITY,
  countRequests,
}: AlgorithmViewProps<'leaky-bucket'>) {
  const w = Math.max(300, width);
  const mx0 = 16;
  const rejectW = 44;
  const mx1 = w - 16 - rejectW;
  const burst = Math.max(0, i.burst);
  const delay = i.delay === null ? burst : clamp(i.delay, 0, burst);
  const excess = clamp(finite(i.excessNowMilli) / 1000, 0, burst + 1);
  const rateMilli = Math.max(1, i.rateMilli);
  const status = rejectStatus(config);

  const x = useMemo(() => linearScale([0, Math.max(1, burst)], [mx0, mx1], true), [burst, mx1]);
  const slotTicks = useMemo(
    () =>
      burst <= MAX_SLOTS
        ? Array.from({ length: Math.max(0, burst - 1) }, (_, k) => k + 1)
        : x.ticks(5).filter((t) => t > 0 && t < burst),
    [burst, x],
  );

  // The queue's scale: the longest possible wait, so items move at a steady speed as t advances.
  const maxWaitMs = Math.max(1, ((burst - delay) * 1_000_000) / rateMilli);
  const qx0 = 16;
  const qx1 = w - 112;
  const queue = useMemo(
    () => matchReleases(i.releases, requests, i.key),
    [i.releases, requests, i.key],
  );
  const queueX = (releaseMs: number) =>
    qx1 - 8 - (clamp(releaseMs - nowMs, 0, maxWaitMs) / maxWaitMs) * (qx1 - qx0 - 16);

  const recentRejects = useMemo(
    () =>
      requestsOfKey(requests, i.key).filter(
        (r) => r.outcome === 'reject' && nowMs >= r.arrivalMs && nowMs - r.arrivalMs < travelMs,
      ),
    [requests, i.key, nowMs, travelMs],
  );
  const latestReject = recentRejects[recentRejects.length - 1];
  // Where a rejected request is as it bounces up and away from the reject zone, fading as it goes.
  const bounce = (r: VizRequest) => {
    const p = clamp((nowMs - r.arrivalMs) / Math.max(1, travelMs), 0, 1);
    return {
      x: mx1 + rejectW / 2 - 30 * p,
      y: METER_Y - 4 - 26 * Math.sin(Math.PI * Math.min(1, p * 0.8)),
      opacity: 1 - 0.6 * p,
    };
  };
  const animating = useContext(AnimatingContext);
  const bouncing = animating
    ? recentRejects.map((r): MovingMark => ({ outcome: 'reject', size: BOUNCE_SIZE, ...bounce(r) }))
    : [];

  // The requests given may not reach back travelMs (a fast stream): then the count is a lower
  // bound. Arrivals are whole ms: those just now are from ⌊nowMs − travelMs⌋ + 1 on.
  const justNowMs = Math.floor(nowMs - travelMs) + 1;
  const cut = requestsFromMs > justNowMs;
  // Where they were cut, the exact count from the whole run when the page can give it.
  const exact = cut ? countRequests?.(i.key, justNowMs, Math.floor(nowMs) + 1) : undefined;
  const rejectsAtLeast = cut && (exact ?? null) === null;
  const rejectedRecently = exact?.rejected ?? recentRejects.length;
  const label = describeLeakyBucket(i, nowMs, rejectedRecently, rejectsAtLeast);
  const perRequestMs = 1_000_000 / rateMilli;
  const ghostEnd = excess + 1;
  const ghostX1 = ghostEnd > burst ? mx1 + rejectW * 0.6 : x(ghostEnd);

  return (
    <VizSvg
      className="rl-leaky-bucket"
      width={w}
      height={HEIGHT}
      label={label}
      interactive={onSelectRequest !== undefined}
      testId="leaky-bucket-view"
    >
      <text className="rl-label" x={mx0} y={METER_Y - 12}>
        excess{' '}
        <tspan className="rl-strong" data-testid="excess-value">
          {formatTokens(excess)}
        </tspan>{' '}
        <tspan className="rl-muted">requests ({formatCount(i.excessNowMilli)} milli)</tspan>
      </text>

      <g className="rl-meter" data-testid="excess-meter">
        {/* Zones: passes at once up to delay=, delayed up to burst=, rejected beyond. */}
        <rect
          className="rl-zone rl-zone--admit"
          x={mx0}
          y={METER_Y}
          width={px(x(delay) - mx0)}
          height={METER_H}
        />
        <rect
          className="rl-zone rl-zone--delay"
          x={px(x(delay))}
          y={METER_Y}
          width={px(x(burst) - x(delay))}
          height={METER_H}
        />
        <rect
          className="rl-zone rl-zone--reject"
          x={px(mx1)}
          y={METER_Y}
          width={rejectW}
          height={METER_H}
        />
        <OutcomeMark outcome="reject" x={mx1 + 10} y={METER_Y + METER_H / 2} size={9} />
        <text className="rl-small" x={px(mx1 + 18)} y={METER_Y + METER_H / 2} dy="0.35em">
          {status}
        </text>
        <rect
          className="rl-excess"
          data-testid="excess-fill"
          x={mx0}
          y={METER_Y + 4}
          width={px(x(Math.min(excess, burst)) - mx0)}
          height={METER_H - 8}
        />
        <rect
          className="rl-ghost"
          data-testid="next-request-ghost"
          x={px(x(Math.min(excess, burst)))}
          y={METER_Y + 2}
          width={px(Math.max(2, ghostX1 - x(Math.min(excess, burst))))}
          height={METER_H - 4}
        />
        {slotTicks.map((t) => (
          <path
            key={t}
            className="rl-slot-divider"
            data-testid={burst <= MAX_SLOTS ? 'burst-slot-divider' : undefined}
            d={`M${px(x(t))},${METER_Y}v${METER_H}`}
          />
        ))}
        <rect
          className="rl-meter-frame"
          x={mx0}
          y={METER_Y}
          width={px(mx1 + rejectW - mx0)}
          height={METER_H}
        />
        {i.delay !== null && (
          <g data-testid="delay-threshold">
            <path className="rl-threshold" d={`M${px(x(delay))},${METER_Y - 4}v${METER_H + 8}`} />
            <text
              className="rl-small"
              x={px(x(delay))}
              y={METER_Y + METER_H + 16}
              textAnchor={delay === 0 ? 'start' : 'middle'}
            >
              delay={formatCount(i.delay)}
            </text>
          </g>
        )}
        <g data-testid="burst-limit">
          <path className="rl-threshold" d={`M${px(x(burst))},${METER_Y - 4}v${METER_H + 8}`} />
          <text
            className="rl-small"
            x={px(x(burst))}
            y={
              METER_Y + METER_H + (i.delay !== null && Math.abs(x(burst) - x(delay)) < 60 ? 30 : 16)
            }
            textAnchor="middle"
          >
            burst={formatCount(burst)}
          </text>
        </g>
      </g>

      <g className="rl-queue" data-testid="queue">
        <text className="rl-label" x={qx0} y={QUEUE_Y - 22}>
          {i.delay === null
            ? 'nodelay: the burst passes at once, no queue'
            : `queue: ${plural(queue.length, 'delayed request')}`}
        </text>
        <path className="rl-lane" d={`M${qx0},${QUEUE_Y}H${px(qx1)}`} />
        <path className="rl-arrow" d={`M${px(qx1)},${QUEUE_Y}H${px(qx1 + 14)}`} />
        <text className="rl-small" x={w - 8} y={QUEUE_Y} dy="0.35em" textAnchor="end">
          to backend
        </text>
        <text className="rl-small rl-muted" x={w - 8} y={QUEUE_Y + 16} dy="0.35em" textAnchor="end">
          leaks 1 / {formatDuration(perRequestMs)}
        </text>
        {queue.map((q, k) => {
          const qx = queueX(q.releaseMs);
          const text = k === 0 ? `out in ${formatDuration(q.releaseMs - nowMs)}` : undefined;
          if (q.request === undefined) {
            return (
              <g key={`r${q.releaseMs}-${k}`} data-testid="queue-item">
                <OutcomeMark outcome="delay" x={qx} y={QUEUE_Y} size={11} />
                {text !== undefined && (
                  <text className="rl-small" x={px(qx)} y={QUEUE_Y + 18} textAnchor="end">
                    {text}
                  </text>
                )}
              </g>
            );
          }
          return (
            <g key={q.request.id} data-testid="queue-item">
              <RequestMark
                request={q.request}
                x={qx}
                y={QUEUE_Y}
                size={11}
                phase="waiting"
                onSelect={onSelectRequest}
              />
              {text !== undefined && (
                <text className="rl-small" x={px(qx)} y={QUEUE_Y + 18} textAnchor="end">
                  {text}
                </text>
              )}
            </g>
          );
        })}
      </g>

      {/* The bounce: no status on the marks (the zone already says "✕ 503" and the footer names
          the response; a second "503" riding on a mark read as the status twice). While the clock
          plays, the marks are one decorative path per opacity (MovingMarks): at 100 rejects/s a
          lane had about 40 focusable marks that moved every frame and came and went within
          travelMs, and nginx lanes took about twice the main-thread time per frame of any other
          view (six nginx lanes at 200 r/s scrolled to lanes 3–4, CPU per frame median
          11.1 → 7.8 ms, 3 paired rounds). The clock standing still draws them as single marks a
          person can focus. */}
      {!reducedMotion &&
        (animating ? (
          <>
            {onSelectRequest !== undefined && (
              // The band the marks bounce through takes the click (`markAt`), as the request-flow
              // strip's does.
              <rect
                className="rl-hit"
                data-testid="bounce-hit"
                x={px(mx1 + rejectW / 2 - 30 - 12)}
                y={METER_Y - 4 - 26 - 12}
                width={30 + 24}
                height={26 + 24}
                onClick={(e) => {
                  const id = recentRejects[markAt(bouncing, e)]?.id;
                  if (id !== undefined) onSelectRequest(id);
                }}
                style={{ cursor: 'pointer' }}
              />
            )}
            <MovingMarks marks={bouncing} />
          </>
        ) : (
          recentRejects.map((r) => {
            const at = bounce(r);
            return (
              <RequestMark
                key={r.id}
                request={r}
                x={at.x}
                y={at.y}
                size={BOUNCE_SIZE}
                phase="bounce"
                opacity={at.opacity}
                onSelect={onSelectRequest}
              />
            );
          })
        ))}

      <g className="rl-footer" transform={`translate(16,${HEIGHT - 14})`}>
        {latestReject !== undefined ? (
          <>
            <OutcomeMark outcome="reject" x={5} y={0} size={9} />
            <text className="rl-small" x={16} y={0} dy="0.35em" data-testid="reject-label">
              {rejectsAtLeast ? '≥' : ''}
              {formatCount(rejectedRecently)} rejected · {responseLabel(latestReject)}
            </text>
          </>
        ) : (
          <text className="rl-small rl-muted" x={0} y={0} dy="0.35em">
            rate={formatCount(config.rate)}
            {config.rateUnit} burst={formatCount(config.burst)}{' '}
            {config.delay === 'nodelay' ? 'nodelay' : `delay=${formatCount(config.delay)}`}
          </text>
        )}
      </g>
    </VizSvg>
  );
}
