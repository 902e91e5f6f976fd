import type { ScenarioIssue } from '../../sim';

/** Why nothing could be simulated: every problem, with the field it is in. */
export function SimulationProblems({ issues }: { issues: readonly ScenarioIssue[] }) {
  return (
    <section className="panel problems" role="alert" aria-labelledby="problems-heading">
      <h2 id="problems-heading">This scenario cannot run yet</h2>
      <ul>
        {issues.map((issue, i) => (
          <li key={i}>
            <code>{issue.path}</code>: {issue.message}
          </li>
        ))}
      </ul>
    </section>
  );
}
