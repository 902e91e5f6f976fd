import { Suspense, useCallback, useState } from 'react';
import { usePlayground, usePlaygroundShallow, useSimulation } from '../../store/react';
import { ClockBar } from '../clock/ClockBar';
import { ComparePanel } from '../compare/ComparePanel';
import { ExperimentsMenu } from '../experiments/ExperimentsMenu';
import { ExportSection } from '../export/ExportSection';
import { FleetPanel } from '../stage/FleetPanel';
import { HelpOverlay } from './HelpOverlay';
import { Inspector } from '../inspector/Inspector';
import { LanesPanel } from '../stage/LanesPanel';
import { LimiterPanel } from '../limiter/LimiterPanel';
import { LinkProblems } from '../share/LinkProblems';
import { RunNotice } from './RunNotice';
import { RunSummary } from '../stage/RunSummary';
import { ScenarioPanel } from '../traffic/ScenarioPanel';
import { ShareControls } from '../share/ShareControls';
import { SimUpdating } from './SimUpdating';
import { SimulationProblems } from './SimulationProblems';
import { ThemeToggle } from './ThemeToggle';
import { TimelinePanel } from '../clock/TimelinePanel';
import { TrafficPanel } from '../traffic/TrafficPanel';
import type { Start } from '../share/session';
import { useClockLoop } from '../clock/useClockLoop';
import { useTheme } from './theme';
import { useShortcuts } from './useShortcuts';
import { useUrlSync } from '../share/useUrlSync';
import { lazyPart } from '../common/lazyPart';

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
 */
export function App({ start, storage }: AppProps) {
  const [helpOpen, setHelpOpen] = useState(false);
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
  const sim = useSimulation();
  const { mode, lanes } = usePlaygroundShallow((s) => ({ mode: s.mode, lanes: s.limiters.length }));
  const compare = mode === 'compare' && lanes > 1;

  const stage = (
    <main className="stage" id="stage">
      <LinkProblems problems={start.problems} original={start.original} source={start.source} />
      <ClockBar />
      <SimUpdating />
      {sim.ok ? (
        <>
          <RunNotice result={sim.result} />
          <TimelinePanel result={sim.result} />
          {/* Results where the eye is: the inspector right below the timeline it is opened from,
              then the comparison's summary, then the stacked views. */}
          {!start.embed && <Inspector result={sim.result} />}
          {compare && <ComparePanel result={sim.result} />}
          {!compare && <RunSummary result={sim.result} />}
          <LanesPanel result={sim.result} />
          <FleetPanel result={sim.result} />
          {!start.embed && (
            <>
              <Suspense fallback={<p className="panel muted">Loading the charts…</p>}>
                <ChartsPanel result={sim.result} />
              </Suspense>
            </>
          )}
        </>
      ) : (
        <SimulationProblems issues={sim.issues} />
      )}
      {!start.embed && <ExportSection />}
    </main>
  );

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
      <header className="app-header">
        <h1>
          Rate Limit Lab <span className="tagline">tune a rate limiter and watch it decide</span>
        </h1>
        <div className="header-actions">
          <ShareControls storage={storage} />
          <button type="button" onClick={toggleHelp} aria-haspopup="dialog">
            Shortcuts <kbd>?</kbd>
          </button>
          <ThemeToggle />
        </div>
      </header>
      <div className="playground">
        <aside className="sidebar" aria-label="Settings">
          <ExperimentsMenu />
          <LimiterPanel />
          <TrafficPanel />
          <ScenarioPanel />
          <Suspense fallback={<p className="panel muted">Loading the access-log panel…</p>}>
            <TracePanel />
          </Suspense>
        </aside>
        {stage}
      </div>
      <HelpOverlay open={helpOpen} onClose={() => setHelpOpen(false)} />
    </div>
  );
}
