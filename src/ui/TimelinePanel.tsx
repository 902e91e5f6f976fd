import type { SimResult } from '../sim';
import { usePlaygroundShallow } from '../store/react';
import { Timeline } from '../viz';
import { useElementWidth } from './hooks';

/** Every request of the shown lanes on the run's time axis; drag or use the arrows to scrub. */
export function TimelinePanel({ result }: { result: SimResult }) {
  const s = usePlaygroundShallow((st) => ({
    tMs: st.tMs,
    mode: st.mode,
    activeLane: st.activeLane,
    selected: st.selected,
    seek: st.seek,
    select: st.select,
  }));
  const [ref, width] = useElementWidth<HTMLDivElement>();
  const lanes =
    s.mode === 'compare'
      ? result.lanes.map((_, i) => i)
      : [Math.min(s.activeLane, result.lanes.length - 1)];
  return (
    <section className="panel timeline-panel" aria-label="Timeline">
      <div ref={ref}>
        {width > 0 && (
          <Timeline
            result={result}
            lanes={lanes}
            tMs={s.tMs}
            width={width}
            selected={s.selected}
            onSeek={s.seek}
            onSelect={(lane, row) => s.select({ lane, row })}
            label="Timeline"
          />
        )}
      </div>
    </section>
  );
}
