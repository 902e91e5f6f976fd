import { memo, useCallback } from 'react';
import type { SimResult } from '../../sim';
import { usePlaygroundShallow } from '../../store/react';
import { CompareTable } from '../../viz/CompareTable';
import { useValueAfterFrame } from '../stage/hooks';

/**
 * The table, rendered again only when its props change: an edit renders this panel with the new
 * result while the table still shows the old one until after the frame, so without memo it was
 * built again, unchanged, in the edit's input task.
 */
const Table = memo(CompareTable);

/**
 * The limiters side by side on the same traffic, and where they first decide differently. A new
 * result reaches the table after the frame that draws it in the lanes, in a transition
 * (`useValueAfterFrame`, as the charts): the table sits below the timeline, and its render and
 * commit were part of an edit's input task.
 */
export function ComparePanel({ result: latest }: { result: SimResult }) {
  const result = useValueAfterFrame(latest);
  const s = usePlaygroundShallow((st) => ({
    activeLane: st.activeLane,
    seek: st.seek,
    select: st.select,
    setActiveLane: st.setActiveLane,
  }));
  const { setActiveLane, select } = s;
  const onSelect = useCallback(
    (lane: number, row: number) => {
      setActiveLane(lane);
      select({ lane, row });
    },
    [setActiveLane, select],
  );
  return (
    <section className="panel compare-panel" aria-label="Comparison">
      <Table result={result} selectedLane={s.activeLane} onSeek={s.seek} onSelect={onSelect} />
    </section>
  );
}
