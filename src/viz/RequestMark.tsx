import { memo, useCallback } from 'react';
import type { KeyboardEvent } from 'react';
import { OutcomeMark } from './OutcomeMark';
import { formatCount, px } from './format';
import { retryAfterSeconds } from './requests';
import type { VizRequest } from './types';

/** Props of `<RequestMark>`. */
export interface RequestMarkProps {
  request: VizRequest;
  /** Centre, px. */
  x: number;
  y: number;
  /** Mark width, px. Default 10. */
  size?: number;
  /** Text drawn right of the mark (left when `labelSide` is 'left'). */
  label?: string;
  labelSide?: 'left' | 'right' | 'above';
  /** Where the request is in its journey, exposed as `data-phase` for tests and styling. */
  phase?: string;
  /** 0–1, for marks fading out after they arrived. Default 1. */
  opacity?: number;
  onSelect?: ((id: number) => void) | undefined;
  /**
   * Not decided yet (on its way to the limiter): drawn as a neutral ring, so a frame never shows an
   * outcome before the request has reached the limiter. Default false.
   */
  pending?: boolean;
}

/** What a screen reader says for a request: "Request #12, rejected: 429, Retry-After 2 s". */
export function describeRequest(r: VizRequest, pending = false): string {
  const name = requestName(r);
  if (pending) return `${name}, on its way to the limiter`;
  if (r.outcome === 'reject') {
    return `${name}, rejected: ${r.status}, Retry-After ${retryAfterSeconds(r)} s`;
  }
  if (r.outcome === 'delay') return `${name}, delayed ${r.delayMs} ms`;
  return `${name}, admitted`;
}

/** "Request #21" or "Request #21, attempt 2": numbered as the inspector and the compare table number it. */
export function requestName(r: Pick<VizRequest, 'id' | 'attempt' | 'number'>): string {
  const n = r.number ?? r.id + 1;
  return `Request #${formatCount(n)}${r.attempt > 1 ? `, attempt ${r.attempt}` : ''}`;
}

/**
 * One request: its outcome mark, an optional label, and `data-testid="request-<id>"`. Positioned with
 * a translate so a moving request changes one attribute per frame. Focusable and clickable when
 * `onSelect` is given. Memoised: a mark whose props are the same (same request object, same place)
 * is not rendered again when its view is.
 */
export const RequestMark = memo(function RequestMark({
  request,
  x,
  y,
  size = 10,
  label,
  labelSide = 'right',
  phase,
  opacity = 1,
  onSelect,
  pending = false,
}: RequestMarkProps) {
  const interactive = onSelect !== undefined;
  // Handlers keep their identity while the mark moves: a new onClick makes React write the
  // element's onclick again on every frame, for every mark.
  const id = request.id;
  const onClick = useCallback(() => onSelect?.(id), [onSelect, id]);
  const onKeyDown = useCallback(
    (e: KeyboardEvent<SVGGElement>) => {
      if (e.key === 'Enter' || e.key === ' ') {
        e.preventDefault();
        onSelect?.(id);
      }
    },
    [onSelect, id],
  );
  const gap = size / 2 + 3;
  return (
    <g
      className={`rl-request rl-request--${pending ? 'pending' : request.outcome}`}
      data-testid={`request-${request.id}`}
      data-outcome={pending ? 'pending' : request.outcome}
      data-phase={phase}
      transform={`translate(${px(x)},${px(y)})`}
      opacity={opacity < 1 ? px(opacity * 10) / 10 : undefined}
      role={interactive ? 'button' : undefined}
      tabIndex={interactive ? 0 : undefined}
      aria-label={interactive ? describeRequest(request, pending) : undefined}
      onClick={interactive ? onClick : undefined}
      onKeyDown={interactive ? onKeyDown : undefined}
    >
      {/* A larger transparent target: small marks are hard to hit on a phone. */}
      {interactive && <circle className="rl-hit" r={px(Math.max(size, 12))} />}
      {pending ? (
        <circle className="rl-mark rl-mark--pending" r={px(size / 2 - 0.5)} />
      ) : (
        <OutcomeMark outcome={request.outcome} x={0} y={0} size={size} />
      )}
      {label !== undefined && (
        <text
          className="rl-request-label"
          x={labelSide === 'right' ? px(gap) : labelSide === 'left' ? px(-gap) : 0}
          y={labelSide === 'above' ? px(-gap - 2) : 0}
          dy="0.35em"
          textAnchor={labelSide === 'right' ? 'start' : labelSide === 'left' ? 'end' : 'middle'}
        >
          {label}
        </text>
      )}
    </g>
  );
});
