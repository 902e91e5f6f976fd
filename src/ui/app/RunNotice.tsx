import type { SimResult } from '../../sim';
import { formatTime } from '../common/format';

/** Says plainly when a cap cut the run, where, and why; nothing when the run is whole. */
export function RunNotice({ result }: { result: SimResult }) {
  if (!result.truncated) return null;
  return (
    <section className="run-notice" role="status" data-testid="run-notice">
      <strong>
        This run was cut at {formatTime(result.completeUntilMs)} of {formatTime(result.untilMs)}:
      </strong>{' '}
      a browser tab holds at most a million first requests and four million decisions per run, so
      everything before that moment is exact and nothing after it is simulated.
      <ul>
        {result.truncation.map((message, i) => (
          <li key={i}>{message}</li>
        ))}
      </ul>
    </section>
  );
}
