import { useCallback, useState } from 'react';
import { usePlayground, useSimulation } from '../store/react';
import { ClockBar } from './ClockBar';
import { ExportSection } from './ExportSection';
import { ExperimentsMenu } from './ExperimentsMenu';
import { HelpOverlay } from './HelpOverlay';
import { Inspector } from './Inspector';
import { LanesPanel } from './LanesPanel';
import { LimiterPanel } from './LimiterPanel';
import { ScenarioPanel } from './ScenarioPanel';
import { SimulationProblems } from './SimulationProblems';
import { ThemeToggle } from './ThemeToggle';
import { TrafficPanel } from './TrafficPanel';
import { useClockLoop } from './useClockLoop';
import { useShortcuts } from './useShortcuts';

/** The playground: controls on the side, the limiters at the current time, the inspector. */
export function App() {
  const [helpOpen, setHelpOpen] = useState(false);
  const select = usePlayground((s) => s.select);
  const toggleHelp = useCallback(() => setHelpOpen((o) => !o), []);
  const escape = useCallback(() => {
    setHelpOpen(false);
    select(null);
  }, [select]);
  useClockLoop();
  useShortcuts(toggleHelp, escape);
  const sim = useSimulation();
  return (
    <div className="app">
      <header className="app-header">
        <h1>
          Rate Limit Lab <span className="tagline">tune a rate limiter and watch it decide</span>
        </h1>
        <div className="header-actions">
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
        </aside>
        <main className="stage">
          <ClockBar />
          {sim.ok ? (
            <>
              <LanesPanel result={sim.result} />
              <Inspector result={sim.result} />
            </>
          ) : (
            <SimulationProblems issues={sim.issues} />
          )}
          <ExportSection />
        </main>
      </div>
      <HelpOverlay open={helpOpen} onClose={() => setHelpOpen(false)} />
    </div>
  );
}
