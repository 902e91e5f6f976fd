import type { ReactNode } from 'react';
import { useMemo } from 'react';
import { pathRound } from 'd3-path';
import { linearScale } from './linear';
import { OutcomeMark } from './OutcomeMark';
import { RequestMark } from './RequestMark';
import { VizSvg } from './VizSvg';
import { clamp, finite, formatCount, formatDuration, formatTokens, plural, px } from './format';
import { matchReleases } from './requests';
import type { AlgorithmViewProps } from './types';

/** Buckets up to this size draw one coin per token; larger ones draw a level. */
const MAX_COINS = 40;
const TOP = 34;
const FLOOR = 154;

/** Columns that give the largest square cell for `n` coins in a w × h box. */
function coinGrid(n: number, w: number, h: number): { cols: number; cell: number } {
  let best = { cols: 1, cell: 0 };
  for (let cols = 1; cols <= n; cols += 1) {
    const rows = Math.ceil(n / cols);
    const cell = Math.min(w / cols, h / rows);
    if (cell > best.cell) best = { cols, cell };
  }
  return best;
}

/**
 * Tokens owed, as formatTokens floors them, after reading the debt at 12 significant digits: float
 * noise is not a tenth less (Traefik's Redis script stores 0.8 − 1 as −0.19999999999999996, a debt
 * of 0.2, not "0.1 reserved").
 */
function formatDebt(debt: number): string {
  return formatTokens(Number(finite(debt).toPrecision(12)));
}

/** What the view says in words: "7.4 of 10 tokens; next token in 100 ms; 2 requests waiting". */
export function describeTokenBucket(
  i: AlgorithmViewProps<'token-bucket'>['inspection'],
  nowMs: number,
): string {
  const tokens = finite(i.tokens);
  const parts = [
    tokens < 0
      ? `0 of ${plural(i.maxTokens, 'token')}, ${formatDebt(i.debt)} reserved`
      : `${formatTokens(tokens)} of ${plural(i.maxTokens, 'token')}`,
    i.nextTokenAtMs === null
      ? 'bucket full'
      : `next ${i.refill === 'interval' ? 'fill' : 'token'} in ${formatDuration(i.nextTokenAtMs - nowMs)}`,
  ];
  if (i.maxDelayMs > 0) parts.push(`${plural(i.releases.length, 'request')} waiting`);
  return `Token bucket: ${parts.join('; ')}.`;
}

/**
 * Envoy's token bucket: coins in a bucket up to the `max_tokens` line, the next coin filling up
 * (continuous refill) or the next `fill_interval` step outlined (interval refill), the countdown,
 * and with `maxDelayMs` the reserved tokens below the floor and the requests waiting for them.
 */
export function TokenBucketView({
  inspection: i,
  nowMs,
  requests,
  width = 480,
  onSelectRequest,
}: AlgorithmViewProps<'token-bucket'>) {
  const w = Math.max(300, width);
  const hasDelay = i.maxDelayMs > 0;
  const height = hasDelay ? 214 : 170;
  const max0 = Math.max(1, i.maxTokens);
  // A level bucket leaves room on its left for the scale.
  const bx0 = max0 > MAX_COINS ? 52 : 16;
  const bw = clamp(w * 0.3, 100, 170) - (max0 > MAX_COINS ? 24 : 0);
  const panelX = bx0 + bw + 24;
  const panelW = w - panelX - 12;
  const max = max0;
  const tokens = clamp(finite(i.tokens), -max * 1e6, max);
  const level = Math.max(0, tokens);
  const whole = Math.floor(level + 1e-9);
  const frac = level - whole;
  const interval = i.refill === 'interval';

  const geometry = useMemo(() => {
    if (max > MAX_COINS) {
      const y = linearScale([0, max], [FLOOR - 2, TOP]);
      return { kind: 'level' as const, y, ticks: y.ticks(4).filter((t) => t < max * 0.9) };
    }
    const innerW = bw - 10;
    const innerH = FLOOR - TOP - 6;
    const { cols, cell } = coinGrid(max, innerW, innerH);
    const x0 = bx0 + (bw - cols * cell) / 2;
    const coins = Array.from({ length: max }, (_, k) => ({
      x: x0 + ((k % cols) + 0.5) * cell,
      y: FLOOR - 3 - (Math.floor(k / cols) + 0.5) * cell,
    }));
    return { kind: 'coins' as const, coins, r: cell * 0.4 };
  }, [max, bw, bx0]);

  const partialPath = useMemo(() => {
    if (geometry.kind !== 'coins' || frac <= 0.001 || whole >= max) return null;
    // A pie slice clockwise from twelve o'clock, drawn with d3-path the way d3-shape 3.2.1's
    // arc() draws one with innerRadius 0 (moveTo, arc, lineTo the centre, close; 3 digits): the
    // same path text (checked over 18,914 radii and angles), without bringing d3-shape (about
    // 5 kB gzip, the charts' chunk keeps it) into the page's first load.
    const r = geometry.r;
    const a0 = -Math.PI / 2;
    const slice = pathRound(3);
    slice.moveTo(r * Math.cos(a0), r * Math.sin(a0));
    slice.arc(0, 0, r, a0, a0 + Math.PI * 2 * Math.min(frac, 0.999), false);
    slice.lineTo(0, 0);
    slice.closePath();
    return slice.toString().replace(/\d+\.\d+/g, (s) => String(px(Number(s))));
  }, [geometry, frac, whole, max]);

  // The countdown to the next whole token (continuous) or the next fill (interval).
  const periodMs = interval
    ? i.fillIntervalMs
    : Math.max(1e-3, i.fillIntervalMs / Math.max(1, i.tokensPerFill));
  const leftMs = i.nextTokenAtMs === null ? 0 : Math.max(0, i.nextTokenAtMs - nowMs);
  const progress = i.nextTokenAtMs === null ? 1 : clamp(1 - leftMs / periodMs, 0, 1);
  // Coins the next fill brings (none while it only pays back reserved tokens).
  const nextFillSlots = interval
    ? Math.max(0, Math.min(max, Math.floor(tokens + i.tokensPerFill)) - whole)
    : 0;

  const waiting = useMemo(
    () => matchReleases(i.releases, requests, i.key),
    [i.releases, requests, i.key],
  );
  const maxDebt = Math.max(
    i.debt,
    (i.maxDelayMs * Math.max(1, i.tokensPerFill)) / Math.max(1, i.fillIntervalMs),
    1,
  );

  const label = describeTokenBucket(i, nowMs);
  const rateText = interval
    ? `+${formatCount(i.tokensPerFill)} every ${formatDuration(i.fillIntervalMs)} (fill_interval)`
    : `+${formatCount(i.tokensPerFill)} per ${formatDuration(i.fillIntervalMs)}, continuous`;

  let bucketContent: ReactNode;
  if (geometry.kind === 'coins') {
    bucketContent = geometry.coins.map((c, k) => {
      const cx = px(c.x);
      const cy = px(c.y);
      const r = px(geometry.r);
      if (k < whole) {
        return <circle key={k} className="rl-token" data-testid="token" cx={cx} cy={cy} r={r} />;
      }
      const isNext = k < whole + nextFillSlots;
      return (
        <g key={k}>
          <circle
            className={isNext ? 'rl-slot rl-slot--next' : 'rl-slot'}
            data-testid={isNext ? 'next-fill-slot' : undefined}
            cx={cx}
            cy={cy}
            r={r}
          />
          {k === whole && partialPath !== null && partialPath !== undefined && (
            <path
              className="rl-token rl-token--partial"
              data-testid="token-partial"
              transform={`translate(${cx},${cy})`}
              d={partialPath}
            />
          )}
        </g>
      );
    });
  } else {
    const y = geometry.y;
    bucketContent = (
      <g>
        <rect
          className="rl-token rl-token--level"
          data-testid="token-level"
          x={px(bx0 + 3)}
          y={px(y(level))}
          width={px(bw - 6)}
          height={px(FLOOR - 2 - y(level))}
        />
        {geometry.ticks.map((t) => (
          <text
            key={t}
            className="rl-small rl-muted"
            x={px(bx0 - 6)}
            y={px(y(t))}
            dy="0.35em"
            textAnchor="end"
          >
            {formatCount(t)}
          </text>
        ))}
      </g>
    );
  }

  const waitY = TOP + 134;
  const perItem = 92;
  const fitAll = Math.max(1, Math.floor(panelW / perItem));
  // Leave room for "+N more" when not all fit.
  const fit = waiting.length > fitAll ? Math.max(1, Math.floor((panelW - 56) / perItem)) : fitAll;

  return (
    <VizSvg
      className="rl-token-bucket"
      width={w}
      height={height}
      label={label}
      interactive={onSelectRequest !== undefined}
      testId="token-bucket-view"
    >
      {/* Bucket: open top, the capacity line at max_tokens. */}
      <text className="rl-label" x={bx0} y={TOP - 10}>
        max_tokens {formatCount(i.maxTokens)}
      </text>
      <path
        className="rl-capacity"
        data-testid="capacity-line"
        d={`M${px(bx0 - 6)},${TOP}H${px(bx0 + bw + 6)}`}
      />
      {bucketContent}
      <path className="rl-bucket" d={`M${bx0},${TOP - 4}V${FLOOR}H${px(bx0 + bw)}V${TOP - 4}`} />

      {hasDelay && (
        <g className="rl-debt" data-testid="debt">
          <text className="rl-small rl-muted" x={bx0} y={FLOOR + 16}>
            {i.debt > 0 ? `−${formatDebt(i.debt)} reserved` : 'no reservations'}
          </text>
          <rect className="rl-debt-track" x={bx0} y={FLOOR + 24} width={px(bw)} height={8} rx={2} />
          <rect
            className="rl-debt-bar"
            x={bx0}
            y={FLOOR + 24}
            width={px((bw * clamp(i.debt, 0, maxDebt)) / maxDebt)}
            height={8}
            rx={2}
          />
        </g>
      )}

      <g className="rl-panel" transform={`translate(${px(panelX)},0)`}>
        <text className="rl-big" x={0} y={TOP + 8} data-testid="token-count">
          {formatTokens(level)}
          <tspan className="rl-muted rl-unit"> / {plural(i.maxTokens, 'token')}</tspan>
        </text>
        <text className="rl-small rl-muted" x={0} y={TOP + 30}>
          {rateText}
        </text>
        <text className="rl-text" x={0} y={TOP + 58} data-testid="token-countdown">
          {i.nextTokenAtMs === null
            ? 'bucket full'
            : `next ${interval ? `fill (+${formatCount(i.tokensPerFill)})` : 'token'} in ${formatDuration(leftMs)}`}
        </text>
        <rect
          className="rl-progress-track"
          x={0}
          y={TOP + 66}
          width={px(panelW)}
          height={6}
          rx={3}
        />
        <rect
          className="rl-progress"
          x={0}
          y={TOP + 66}
          width={px(panelW * progress)}
          height={6}
          rx={3}
        />
        <text className="rl-small rl-muted" x={0} y={TOP + 92}>
          {i.nextTokenAtMs === null
            ? 'refill idle'
            : `full in ${formatDuration(Math.max(0, i.fullAtMs - nowMs))}`}
        </text>
        {hasDelay && (
          <g className="rl-waiting">
            <text className="rl-small" x={0} y={TOP + 114} data-testid="waiting-count">
              {plural(waiting.length, 'request')} waiting · max delay {formatDuration(i.maxDelayMs)}
            </text>
            {waiting.slice(0, fit).map((q, k) => {
              const x = 6 + k * perItem;
              const text = `in ${formatDuration(q.releaseMs - nowMs)}`;
              return q.request === undefined ? (
                <g key={`r${q.releaseMs}-${k}`} data-testid="waiting-request">
                  <OutcomeMark outcome="delay" x={x} y={waitY} size={10} />
                  <text className="rl-small" x={x + 10} y={waitY} dy="0.35em">
                    {text}
                  </text>
                </g>
              ) : (
                <g key={q.request.id} data-testid="waiting-request">
                  <RequestMark
                    request={q.request}
                    x={x}
                    y={waitY}
                    label={text}
                    phase="waiting"
                    onSelect={onSelectRequest}
                  />
                </g>
              );
            })}
            {waiting.length > fit && (
              <text
                className="rl-small rl-muted"
                x={px(panelW)}
                y={waitY}
                dy="0.35em"
                textAnchor="end"
              >
                +{waiting.length - fit} more
              </text>
            )}
          </g>
        )}
      </g>
    </VizSvg>
  );
}
