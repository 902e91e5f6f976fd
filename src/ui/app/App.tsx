import { Suspense, memo, useCallback, useEffect, useState } from 'react';
import type { ReactNode } from 'react';
import { usePlayground, usePlaygroundShallow, useSimulation } from '../../store/react';
import { ClockBar } from '../clock/ClockBar';
import { ExportSection } from '../export/ExportSection';
import { ExperimentsPlaceholder } from '../experiments/ExperimentsPlaceholder';
import { InspectorHint } from '../inspector/InspectorHint';
import { LanesPanel as Lanes } from '../stage/LanesPanel';
import { preloadViews } from '../stage/views';
import { LimiterPanel as Limiter } from '../limiter/LimiterPanel';
import { RunSummary as Summary } from '../stage/RunSummary';
import { ScenarioPanel as Scenario } from '../traffic/ScenarioPanel';
import { ShareControls as Share } from '../share/ShareControls';
import { SimUpdating } from './SimUpdating';
import { ThemeToggle } from './ThemeToggle';
import { TimelinePanel as Timeline } from '../clock/TimelinePanel';
import { TrafficPanel as Traffic } from '../traffic/TrafficPanel';
import type { Start } from '../share/session';
import { useClockLoop } from '../clock/useClockLoop';
import { useTheme } from './theme';
import { useShortcuts } from './useShortcuts';
import { useUrlSync } from '../share/useUrlSync';
import { Loading, lazyPart } from '../common/lazyPart';
import { guarded } from '../common/PanelBoundary';
import {
  ComparePanel,
  ExperimentsMenu,
  FleetPanel,
  HelpOverlay,
  Inspector,
  LinkProblems,
  RunNotice,
  SimulationProblems,
} from './parts';

/** Fetches the parts a person may open later, once the first paint is done and the page is idle. */
function usePreloadWhenIdle() {
  useEffect(() => {
    const preload = () => {
      for (const part of [Inspector, ComparePanel, FleetPanel, HelpOverlay]) void part.preload();
      void preloadViews();
    };
    if (typeof window.requestIdleCallback === 'function') {
      const handle = window.requestIdleCallback(preload, { timeout: 2000 });
      return () => window.cancelIdleCallback(handle);
    }
    const handle = window.setTimeout(preload, 500);
    return () => window.clearTimeout(handle);
  }, []);
}

// Below the fold, with d3-shape: a chunk of its own, fetched as the page opens.
// The access-log panel brings the trace parsers (papaparse, fflate): a chunk of its own, fetched as
// the page opens, so it never weighs on the first paint.
const TracePanel = lazyPart(
  () => import('../traffic/TracePanel').then((m) => m.TracePanel),
  'access-log panel',
);
const ChartsPanel = lazyPart(
  () => import('../stage/ChartsPanel').then((m) => m.ChartsPanel),
  'charts',
);

// Each panel the page draws at once behind an error boundary of its own (lazy parts have theirs,
// lazyPart.tsx): one that throws says so in its place, and the rest of the page works on.
const LimiterPanel = guarded(Limiter, 'limiter settings');
const TrafficPanel = guarded(Traffic, 'traffic settings');
const ScenarioPanel = guarded(Scenario, 'scenario settings');
const ShareControls = guarded(Share, 'sharing controls');
const TimelinePanel = guarded(Timeline, 'timeline');
const RunSummary = guarded(Summary, 'run summary');
const LanesPanel = guarded(Lanes, 'limiter views');

/** The same page, not embedded. */
function withoutEmbed(href: string): string {
  const url = new URL(href);
  url.searchParams.delete('embed');
  return url.href;
}

export interface AppProps {
  /** Where the page started (link, saved settings, defaults) and what was wrong with it. */
  start: Start;
  /** Where settings are saved (null where storage is unavailable, and in tests). */
  storage: Storage | null;
}

/**
 * The playground: controls on the side; the clock, the timeline, the limiters at the current time,
 * the inspector, the charts and the comparison on the stage. With `?embed`, the stage alone.
 * App itself subscribes to nothing that an edit or a tick changes: a parameter edit renders the
 * stage (which draws the new result) and the field's own panel, not the header and the whole
 * sidebar (the input's task was about a third React render of parts that had not changed).
 */
export function App({ start, storage }: AppProps) {
  const [helpOpen, setHelpOpen] = useState(false);
  // Mounted from the first time it opens (the dialog then closes itself and returns focus).
  const [helpShown, setHelpShown] = useState(false);
  if (helpOpen && !helpShown) setHelpShown(true);
  const select = usePlayground((s) => s.select);
  const toggleHelp = useCallback(() => setHelpOpen((o) => !o), []);
  const escape = useCallback(() => {
    setHelpOpen(false);
    select(null);
  }, [select]);
  useTheme();
  useClockLoop();
  useShortcuts(toggleHelp, escape);
  useUrlSync(start, storage);
  usePreloadWhenIdle();

  const problems = start.problems.length > 0 && (
    <Suspense fallback={<Loading what="list of link problems" />}>
      <LinkProblems
        problems={start.problems}
        original={start.original}
        source={start.source}
        refused={start.refused}
      />
    </Suspense>
  );

  const stage = <Stage embed={start.embed} problems={start.embed ? problems : false} />;

  if (start.embed) {
    return (
      <div className="app is-embed">
        {stage}
        <p className="embed-credit">
          <a href={withoutEmbed(window.location.href)} target="_blank" rel="noopener">
            Open in Rate Limit Lab ↗
          </a>
        </p>
      </div>
    );
  }

  return (
    <div className="app">
      <a className="skip-link" href="#clock">
        Skip to the clock and stage
      </a>
      <Header storage={storage} onHelp={toggleHelp} />
      {/* What was wrong with the link or the saved settings comes first in the page's order, so
          a phone (one column) shows it above the controls; on a wide screen it heads the stage's
          column (styles.css, .has-problems). */}
      <div className={problems === false ? 'playground' : 'playground has-problems'}>
        {problems !== false && (
          <div className="problems-slot" role="region" aria-label="Problems with what opened">
            {problems}
          </div>
        )}
        <Sidebar />
        {stage}
      </div>
      {helpShown && (
        <Suspense fallback={null}>
          <HelpOverlay open={helpOpen} onClose={() => setHelpOpen(false)} />
        </Suspense>
      )}
    </div>
  );
}

/** The page's header: the title, sharing, the shortcuts button, the theme. */
const Header = memo(function Header({
  storage,
  onHelp,
}: {
  storage: Storage | null;
  onHelp: () => void;
}) {
  return (
    <header className="app-header">
      <h1>
        Rate Limit Lab <span className="tagline">tune a rate limiter and watch it decide</span>
      </h1>
      <div className="header-actions">
        <ShareControls storage={storage} />
        <button type="button" onClick={onHelp} aria-haspopup="dialog">
          Shortcuts <kbd>?</kbd>
        </button>
        <ThemeToggle />
      </div>
    </header>
  );
});

/** The settings. Memoised: each panel re-renders on what it selects from the store, not with App. */
const Sidebar = memo(function Sidebar() {
  return (
    <aside className="sidebar" aria-label="Settings">
      <Suspense fallback={<ExperimentsPlaceholder />}>
        <ExperimentsMenu />
      </Suspense>
      <LimiterPanel />
      <TrafficPanel />
      <ScenarioPanel />
      <Suspense fallback={<Loading what="access-log panel" />}>
        <TracePanel />
      </Suspense>
    </aside>
  );
});

// Parts of the stage that draw from the store, not from the result: memoised, so a new result
// does not render them again.
const ClockBarPart = memo(guarded(ClockBar, 'clock'));
const SimUpdatingPart = memo(SimUpdating);
const ExportPart = memo(guarded(ExportSection, 'export panel'));

/**
 * The stage: the simulation of the current inputs, drawn. The one part of the page that renders
 * with every new result.
 */
const Stage = memo(function Stage({ embed, problems }: { embed: boolean; problems: ReactNode }) {
  const sim = useSimulation();
  const { mode, lanes, selected } = usePlaygroundShallow((s) => ({
    mode: s.mode,
    lanes: s.limiters.length,
    selected: s.selected !== null,
  }));
  const compare = mode === 'compare' && lanes > 1;
  const fleet = sim?.ok === true && sim.result.lanes.some((lane) => lane.fleet !== undefined);
  return (
    <main className="stage" id="stage">
      {embed && problems}
      <ClockBarPart />
      <SimUpdatingPart first={sim === null} />
      {/* Where the access-log panel (a lazy part) shows the overview of the log the stage replays. */}
      <div id="trace-overview-slot" />
      {sim === null ? null : sim.ok ? (
        <>
          {sim.result.truncated && (
            <Suspense fallback={null}>
              <RunNotice result={sim.result} />
            </Suspense>
          )}
          <TimelinePanel result={sim.result} />
          {/* Results where the eye is: the inspector right below the timeline it is opened from,
              then the comparison's summary, then the stacked views. */}
          {!embed &&
            (selected ? (
              <Suspense fallback={<InspectorHint loading />}>
                <Inspector result={sim.result} />
              </Suspense>
            ) : (
              <InspectorHint />
            ))}
          {compare && (
            <Suspense fallback={<Loading what="comparison" />}>
              <ComparePanel result={sim.result} />
            </Suspense>
          )}
          {!compare && <RunSummary result={sim.result} />}
          <LanesPanel result={sim.result} />
          {fleet && (
            <Suspense fallback={<Loading what="fleet panel" />}>
              <FleetPanel result={sim.result} />
            </Suspense>
          )}
          {!embed && (
            <Suspense fallback={<Loading what="charts" />}>
              <ChartsPanel result={sim.result} />
            </Suspense>
          )}
        </>
      ) : (
        <Suspense fallback={null}>
          <SimulationProblems issues={sim.issues} />
        </Suspense>
      )}
      {!embed && <ExportPart />}
    </main>
  );
});
