import { memo, useId, useRef } from 'react';
import type { SimResult } from '../../sim';
import { usePlaygroundApi, usePlaygroundShallow } from '../../store/react';
import { DelayHistogram, LoadChart, PeakChart } from '../../viz/charts';
import { NumberField } from '../common/fields';
import { useDrawTime, useOnScreen, useValueAfterFrame } from './hooks';
import { Measured } from '../experiments/Measured';
import { problemWith } from '../traffic/scenarioEdit';

/**
 * Load over time, the worst burst in any W, and the delays, for the limiter being edited. A new
 * result reaches the charts after the frame that draws it elsewhere, in a transition
 * (`useValueAfterFrame`): their series are O(rows) to build (~100 ms for a 1M-arrival run, about
 * 4 ms for six limiters at 200 r/s), so the frame that draws an edit in the lanes and the timeline
 * does not wait for them. Scrolled out of view, they take it once edits have paused (or
 * when they come into view).
 */
export function ChartsPanel({ result: latest }: { result: SimResult }) {
  const id = useId();
  const ref = useRef<HTMLElement>(null);
  const onScreen = useOnScreen(ref);
  const result = useValueAfterFrame(latest, !onScreen);
  const s = usePlaygroundShallow((st) => ({
    activeLane: st.activeLane,
    scenario: st.scenario,
    setChartWindow: st.setChartWindow,
  }));
  const lane = Math.min(s.activeLane, result.lanes.length - 1);
  const laneResult = result.lanes[lane];
  if (laneResult === undefined) return null;
  return (
    <section ref={ref} className="panel charts-panel" aria-labelledby={`${id}-heading`}>
      <div className="charts-head">
        <h2 id={`${id}-heading`}>
          Charts <span className="muted">· {laneResult.name}</span>
        </h2>
        <NumberField
          label="W (peak window)"
          unit="ms"
          value={s.scenario.metrics.windowMs}
          width="6em"
          check={(n) => problemWith(s.scenario, ['metrics', 'windowMs'], n)}
          onCommit={s.setChartWindow}
        />
      </div>
      <ChartsGrid result={result} lane={lane} onScreen={onScreen} />
    </section>
  );
}

/**
 * The charts themselves: only they follow the clock (their cursor), not the head and its field.
 * Memoised: the render that brings a new result to the panel (before the charts take it, see
 * `useValueAfterFrame`) does not draw them again with the result they already show.
 */
const ChartsGrid = memo(function ChartsGrid({
  result,
  lane,
  onScreen,
}: {
  result: SimResult;
  lane: number;
  onScreen: boolean;
}) {
  const tMs = useDrawTime(usePlaygroundApi(), onScreen);
  return (
    <div className="charts-grid">
      <Measured>{(w) => <LoadChart result={result} lane={lane} tMs={tMs} width={w} />}</Measured>
      <Measured>{(w) => <PeakChart result={result} lane={lane} tMs={tMs} width={w} />}</Measured>
      <Measured>{(w) => <DelayHistogram result={result} lane={lane} width={w} />}</Measured>
    </div>
  );
});
