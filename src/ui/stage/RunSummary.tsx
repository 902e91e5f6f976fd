import { OUTCOME_REJECT } from '../../sim';
import type { SimResult } from '../../sim';
import { usePlaygroundShallow } from '../../store/react';
import { formatCount, formatDuration, plural } from '../../viz/format';
import { formatTime } from '../common/format';

/** Row of the lane's first rejected decision, or −1. */
function firstRejectRow(result: SimResult, lane: number): number {
  const c = result.lanes[lane]?.columns;
  if (c === undefined) return -1;
  for (let r = 0; r < c.rows; r += 1) if (c.outcome[r] === OUTCOME_REJECT) return r;
  return -1;
}

/**
 * The run in numbers for the one limiter shown (single mode): offered, admitted, delayed, rejected,
 * the first rejection (a button to inspect it) and the worst burst reaching the backend.
 */
export function RunSummary({ result }: { result: SimResult }) {
  const s = usePlaygroundShallow((st) => ({
    activeLane: st.activeLane,
    select: st.select,
    seek: st.seek,
  }));
  const lane = Math.min(s.activeLane, result.lanes.length - 1);
  const l = result.lanes[lane];
  if (l === undefined) return null;
  const m = l.metrics;
  const t = m.total;
  const reject = firstRejectRow(result, lane);
  const rejectAt = reject >= 0 ? (l.columns.arrivalMs[reject] as number) : -1;
  const W = m.peakBackend.windowMs;
  return (
    <section className="panel run-summary" aria-label="Run summary" data-testid="run-summary">
      <dl>
        <div>
          <dt>offered</dt>
          <dd data-testid="summary-offered">{formatCount(t.offered)}</dd>
        </div>
        <div>
          <dt>
            <span className="outcome-admit" aria-hidden="true">
              ●{' '}
            </span>
            admitted
          </dt>
          <dd data-testid="summary-admitted">{formatCount(t.admitted)}</dd>
        </div>
        <div>
          <dt>
            <span className="outcome-delay" aria-hidden="true">
              ■{' '}
            </span>
            delayed
          </dt>
          <dd data-testid="summary-delayed">{formatCount(t.delayed)}</dd>
        </div>
        <div>
          <dt>
            <span className="outcome-reject" aria-hidden="true">
              ✕{' '}
            </span>
            rejected
          </dt>
          <dd data-testid="summary-rejected">{formatCount(t.rejected)}</dd>
        </div>
        <div>
          <dt>first rejection</dt>
          <dd data-testid="summary-first-reject">
            {reject < 0 ? (
              'none'
            ) : (
              <button
                type="button"
                className="link"
                onClick={() => {
                  s.seek(rejectAt);
                  s.select({ lane, row: reject });
                }}
              >
                {formatTime(rejectAt)}
              </button>
            )}
          </dd>
        </div>
        <div>
          <dt>worst burst at the backend</dt>
          <dd data-testid="summary-peak-backend">
            {plural(m.peakBackend.count, 'request')} in {formatDuration(W)}
          </dd>
        </div>
      </dl>
    </section>
  );
}
