import { Suspense, useId } from 'react';
import type { ReactNode } from 'react';
import { plural } from '../../core';
import { usePlaygroundShallow } from '../../store/react';
import { lazyPart } from '../common/lazyPart';
import type { Scenario } from '../../sim';

// Each section's controls are a chunk of their own, fetched as the page opens: the sections are
// closed until opened, so the first paint draws only their summaries (initial JavaScript).
const sections = () => import('./ScenarioSections');
const ClientsSection = lazyPart(() => sections().then((m) => m.ClientsSection), 'client settings');
const RetrySection = lazyPart(() => sections().then((m) => m.RetrySection), 'retry settings');
const DeploymentSection = lazyPart(
  () => sections().then((m) => m.DeploymentSection),
  'deployment settings',
);
const ClockSection = lazyPart(() => sections().then((m) => m.ClockSection), 'clock settings');
const RunSection = lazyPart(() => sections().then((m) => m.RunSection), 'run settings');

/**
 * Who sends, what they do when rejected, where the limiter state lives, which clock the limiters
 * read, and the run itself. Simple by default: each group is a closed section until opened.
 */
export function ScenarioPanel() {
  const id = useId();
  const scenario = usePlaygroundShallow((st) => st.scenario);
  return (
    <section className="panel scenario-panel" aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`}>Scenario</h2>
      <Section
        summary={
          <>
            Clients <span className="muted">{clientsSummary(scenario)}</span>
          </>
        }
      >
        <ClientsSection />
      </Section>
      <Section
        summary={
          <>
            On rejection <span className="muted">{scenario.retry.onReject}</span>
          </>
        }
      >
        <RetrySection />
      </Section>
      <Section
        summary={
          <>
            Deployment{' '}
            <span className="muted">
              {plural(scenario.deployment.instances, 'instance')}, {scenario.deployment.state}
            </span>
          </>
        }
      >
        <DeploymentSection />
      </Section>
      <Section
        summary={
          <>
            Clock{' '}
            <span className="muted">
              {scenario.clock.mode === 'wall'
                ? `wall clock, ${scenario.clock.jumps.length} jump(s)`
                : 'monotonic'}
            </span>
          </>
        }
      >
        <ClockSection />
      </Section>
      <Section
        summary={
          <>
            Run <span className="muted">seed {scenario.seed}</span>
          </>
        }
      >
        <RunSection />
      </Section>
    </section>
  );
}

/** A closed section: its summary at once, its controls when their chunk has arrived. */
function Section({ summary, children }: { summary: ReactNode; children: ReactNode }) {
  return (
    <details>
      <summary>{summary}</summary>
      <Suspense fallback={<p className="muted lazy-loading">Loading…</p>}>{children}</Suspense>
    </details>
  );
}

function clientsSummary(scenario: Scenario): string {
  const { count, keying } = scenario.clients;
  if (count === 1) return 'one client';
  return keying === 'shared' ? `${count} behind one address` : `${count}, each its own key`;
}
