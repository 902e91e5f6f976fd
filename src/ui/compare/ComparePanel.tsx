import type { SimResult } from '../../sim';
import { usePlaygroundShallow } from '../../store/react';
import { CompareTable } from '../../viz/CompareTable';
import { useValueAfterFrame } from '../stage/hooks';

/**
 * The limiters side by side on the same traffic, and where they first decide differently. A new
 * result reaches the table after the frame that draws it in the timeline, in a transition
 * (`useValueAfterFrame`, as the charts): the table sits below the timeline, and its render and
 * commit were part of an edit's input task (issue 11).
 */
export function ComparePanel({ result: latest }: { result: SimResult }) {
  const result = useValueAfterFrame(latest);
  const s = usePlaygroundShallow((st) => ({
    activeLane: st.activeLane,
    seek: st.seek,
    select: st.select,
    setActiveLane: st.setActiveLane,
  }));
  return (
    <section className="panel compare-panel" aria-label="Comparison">
      <CompareTable
        result={result}
        selectedLane={s.activeLane}
        onSeek={s.seek}
        onSelect={(lane, row) => {
          s.setActiveLane(lane);
          s.select({ lane, row });
        }}
      />
    </section>
  );
}
