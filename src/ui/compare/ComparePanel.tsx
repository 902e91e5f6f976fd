import type { SimResult } from '../../sim';
import { usePlaygroundShallow } from '../../store/react';
import { CompareTable } from '../../viz/CompareTable';

/** The limiters side by side on the same traffic, and where they first decide differently. */
export function ComparePanel({ result }: { result: SimResult }) {
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
