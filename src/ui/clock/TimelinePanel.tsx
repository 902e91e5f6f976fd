import { useMemo, useRef } from 'react';
import type { SimResult } from '../../sim';
import { usePlaygroundApi, usePlaygroundShallow } from '../../store/react';
import { Timeline } from '../../viz/Timeline';
import { replicaMarks } from './replica-marks';
import { useDrawTime, useElementWidth, useOnScreen, useValueAfterFrame } from '../stage/hooks';

/**
 * Every request of the shown lanes on the run's time axis; drag or use the arrows to scrub. A new
 * result reaches it in the frame after the one where the lanes draw it, in a transition
 * (`useValueAfterFrame`, as the comparison and the charts): its render, commit and layout were
 * part of an edit's input task.
 */
export function TimelinePanel({ result: latest }: { result: SimResult }) {
  const result = useValueAfterFrame(latest);
  const sectionRef = useRef<HTMLElement>(null);
  const tMs = useDrawTime(usePlaygroundApi(), useOnScreen(sectionRef));
  const s = usePlaygroundShallow((st) => ({
    mode: st.mode,
    activeLane: st.activeLane,
    selected: st.selected,
    seek: st.seek,
    select: st.select,
    playing: st.playing,
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
            moving={s.playing}
            {...(markColor === undefined ? {} : { markColor })}
          />
        )}
        {markColor !== undefined && (
          <p className="param-help" data-testid="timeline-replica-note">
            Colours: each request&apos;s replica, as in the fleet view.
          </p>
        )}
      </div>
    </section>
  );
}
