import type { ReactNode } from 'react';
import { px } from './format';

/** Props of `<VizSvg>`. */
export interface VizSvgProps {
  /** Root class, e.g. 'rl-token-bucket' (added to 'rl-viz'). */
  className: string;
  width: number;
  height: number;
  /** The state in words: the accessible name and the tooltip. */
  label: string;
  /**
   * True when the drawing holds focusable request marks: the root is then a labelled group, because
   * role="img" would hide its children from assistive technology.
   */
  interactive: boolean;
  testId?: string;
  children: ReactNode;
}

/** The root `<svg>` of every view: sized in px, scales down with its container, labelled. */
export function VizSvg({
  className,
  width,
  height,
  label,
  interactive,
  testId,
  children,
}: VizSvgProps) {
  const w = px(width);
  const h = px(height);
  return (
    <svg
      className={`rl-viz ${className}`}
      role={interactive ? 'group' : 'img'}
      aria-label={label}
      data-testid={testId}
      width={w}
      height={h}
      viewBox={`0 0 ${w} ${h}`}
    >
      <title>{label}</title>
      {children}
    </svg>
  );
}
