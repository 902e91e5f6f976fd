import type { ReactNode } from 'react';
import { useElementWidth } from '../stage/hooks';

/** Renders `children(width)` at its container's width, so SVG text keeps its size (no scaling). */
export function Measured({
  className,
  children,
}: {
  className?: string;
  children: (width: number) => ReactNode;
}) {
  const [ref, width] = useElementWidth<HTMLDivElement>();
  return (
    <div ref={ref} className={className} style={{ minWidth: 0 }}>
      {width > 0 && children(width)}
    </div>
  );
}
