import type { SimResult } from '../../sim';
import { formatTime } from '../common/format';

/**
 * Says plainly when a cap cut the run, where, and why; or, for a run that was not cut, what it
 * says about its traffic (a replayed access log the page does not hold, or one longer than the
 * run). Nothing when the run is whole.
 */
export function RunNotice({ result }: { result: SimResult }) {
  if (!result.truncated) return null;
  const cut = result.completeUntilMs < result.untilMs;
  return (
    <section className="run-notice" role="status" data-testid="run-notice">
      {cut ? (
        <>
          <strong>
            This run was cut at {formatTime(result.completeUntilMs)} of {formatTime(result.untilMs)}
            :
          </strong>{' '}
          a browser tab holds at most a million first requests and four million decisions per run,
          so everything before that moment is exact and nothing after it is simulated.
        </>
      ) : (
        <strong>About this run&apos;s traffic:</strong>
      )}
      <ul>
        {result.truncation.map((message, i) => (
          <li key={i}>{message}</li>
        ))}
      </ul>
    </section>
  );
}
