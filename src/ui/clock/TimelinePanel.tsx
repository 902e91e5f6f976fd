import { useMemo, useRef } from 'react';
import type { SimResult } from '../../sim';
import { usePlaygroundApi, usePlaygroundShallow } from '../../store/react';
import { Timeline } from '../../viz/Timeline';
import type { MarkColor } from '../../viz/Timeline';
import { replicaColor, replicaLabel } from '../../viz/replicaColors';
import { useDrawTime, useElementWidth, useOnScreen } from '../stage/hooks';

/** Every request of the shown lanes on the run's time axis; drag or use the arrows to scrub. */
export function TimelinePanel({ result }: { result: SimResult }) {
  const sectionRef = useRef<HTMLElement>(null);
  const tMs = useDrawTime(usePlaygroundApi(), useOnScreen(sectionRef));
  const s = usePlaygroundShallow((st) => ({
    mode: st.mode,
    activeLane: st.activeLane,
    selected: st.selected,
    seek: st.seek,
    select: st.select,
  }));
  const [ref, width] = useElementWidth<HTMLDivElement>();
  const markColor = useMemo(() => replicaMarks(result), [result]);
  const lanes =
    s.mode === 'compare'
      ? result.lanes.map((_, i) => i)
      : [Math.min(s.activeLane, result.lanes.length - 1)];
  return (
    <section ref={sectionRef} className="panel timeline-panel" aria-label="Timeline">
      <div ref={ref}>
        {width > 0 && (
          <Timeline
            result={result}
            lanes={lanes}
            tMs={tMs}
            width={width}
            selected={s.selected}
            onSeek={s.seek}
            onSelect={(lane, row) => s.select({ lane, row })}
            label="Timeline"
            {...(markColor === undefined ? {} : { markColor })}
          />
        )}
      </div>
    </section>
  );
}

/**
 * Issue 14: a fleet lane's requests carry their replica's colour on the timeline (the same as the
 * fleet view and the inspector) with its number as the tooltip; undefined when no lane is a fleet.
 */
function replicaMarks(result: SimResult): MarkColor | undefined {
  if (!result.lanes.some((l) => l.fleet !== undefined)) return undefined;
  return (lane, row) => {
    const l = result.lanes[lane];
    if (l?.fleet === undefined) return null;
    const inst = l.columns.instance;
    const slot = inst.length < l.columns.rows ? 0 : (inst[row] as number);
    return { color: replicaColor(slot), name: `replica ${replicaLabel(slot)}` };
  };
}
