import { memo } from 'react';
import type { Outcome } from '../core';
import type { Divergence, LaneResult, OutcomeCounts, SimResult } from '../sim';
import { formatBytes, formatCount, formatDuration, plural } from './format';
import { firstAttemptRow, firstAttemptOutcome } from './laneSeries';
import { formatInstant } from './timeTicks';

/** Props of `<CompareTable>`. */
export interface CompareTableProps {
  result: SimResult;
  /** Jump to a request: called with the lane and row of its first attempt. */
  onSelect?: (lane: number, row: number) => void;
  /** Called with the request's arrival time (ms) before `onSelect`, so the clock can go there. */
  onSeek?: (tMs: number) => void;
  /** The selected lane, marked in the table. Default none. */
  selectedLane?: number | null;
}

const GLYPH: Record<Outcome, string> = { admit: '●', delay: '■', reject: '✕' };
const VERB: Record<Outcome, [one: string, many: string]> = {
  admit: ['admits', 'admit'],
  delay: ['delays', 'delay'],
  reject: ['rejects', 'reject'],
};

/** "a", "a and b", "a, b and c". */
function listOf(names: readonly string[]): string {
  if (names.length <= 1) return names[0] ?? '';
  return `${names.slice(0, -1).join(', ')} and ${names[names.length - 1] ?? ''}`;
}

/** The request a divergence is about, as people count: "#143" is the 143rd request of the run. */
export function requestNumber(origin: number): string {
  return `#${formatCount(origin + 1)}`;
}

/**
 * "Request #143 at 10.000 s: fixed-window admits, sliding-log rejects" — every lane's decision on
 * the first attempt of `d.origin`, grouped by outcome (lanes that never decided it are left out).
 */
export function describeDivergence(result: SimResult, d: Divergence): string {
  const groups = new Map<Outcome, string[]>();
  result.lanes.forEach((lane, i) => {
    const o = firstAttemptOutcome(result, i, d.origin);
    if (o === null) return;
    groups.set(o, [...(groups.get(o) ?? []), lane.name]);
  });
  // The two lanes of the divergence first, in their order; then any other outcome.
  const order: Outcome[] = [
    ...new Set<Outcome>([d.outcomes[0], d.outcomes[1], 'admit', 'delay', 'reject']),
  ];
  const parts = order
    .filter((o) => groups.has(o))
    .map((o) => {
      const names = groups.get(o) as string[];
      return `${listOf(names)} ${VERB[o][names.length === 1 ? 0 : 1]}`;
    });
  return `Request ${requestNumber(d.origin)} at ${formatInstant(d.atMs)}: ${parts.join(', ')}`;
}

function pct(part: number, whole: number): string {
  return whole > 0 ? `${Math.round((part / whole) * 100)}%` : '';
}

/** A count with its share of offered, the share muted. */
function CountCell({ n, of, testId }: { n: number; of: number; testId: string }) {
  return (
    <td data-testid={testId}>
      {formatCount(n)}
      {of > 0 && <span className="rl-compare-share"> {pct(n, of)}</span>}
    </td>
  );
}

/**
 * A lane's three counts. Memoised on the counts object: a lane's metrics are the same object while
 * it is unchanged, so an edit to one limiter renders that limiter's cells only.
 */
const Counts = memo(function Counts({ c, prefix }: { c: OutcomeCounts; prefix: string }) {
  return (
    <>
      <CountCell n={c.admitted} of={c.offered} testId={`${prefix}-admitted`} />
      <CountCell n={c.delayed} of={c.offered} testId={`${prefix}-delayed`} />
      <CountCell n={c.rejected} of={c.offered} testId={`${prefix}-rejected`} />
    </>
  );
});

/**
 * The compare summary: one row per limiter (admitted, delayed, rejected — first attempts, and all
 * attempts when clients retry —, the worst burst at the backend in W, p95 delay, peak state size)
 * and the first request on which they decide differently, with a button to go there. Lanes that
 * decide it differently are marked in the table.
 */
export function CompareTable({ result, onSelect, onSeek, selectedLane = null }: CompareTableProps) {
  const lanes = result.lanes;
  const retries = lanes.some((l) => l.metrics.retries.offered > 0);
  const d = result.divergence;
  const W = result.scenario.metrics?.windowMs ?? lanes[0]?.metrics.peakBackend.windowMs ?? 1000;
  const outcomesAt =
    d === null ? [] : lanes.map((_, i) => firstAttemptOutcome(result, i, d.origin));

  const jump = (div: Divergence, lane: number) => {
    const row = firstAttemptRow(result, lane, div.origin);
    onSeek?.(div.atMs);
    if (row >= 0) onSelect?.(lane, row);
  };
  const canJump = onSelect !== undefined || onSeek !== undefined;
  const pairs = result.pairDivergence
    .map((p, k) => ({ p, k }))
    .filter((e): e is { p: Divergence; k: number } => e.p !== null);

  return (
    <div className="rl-compare">
      {/* Focusable and labelled, so a keyboard can scroll it; shadows at its edges and a hint on
          narrow screens show that more columns are there. */}
      <p className="rl-compare-scroll-hint" aria-hidden="true">
        Scroll sideways for every column →
      </p>
      <div
        className="rl-compare-scroll"
        role="region"
        aria-label="Comparison table (scrolls sideways)"
        tabIndex={0}
      >
        <table className="rl-compare-table" data-testid="compare-table">
          <caption>
            {plural(lanes.length, 'limiter')}, same traffic (
            {plural(result.arrivals.count, 'request')}
            {retries ? ', plus retries' : ''})
          </caption>
          <thead>
            {retries && (
              <tr>
                <td />
                <th scope="colgroup" colSpan={3}>
                  First attempts
                </th>
                <th scope="colgroup" colSpan={3}>
                  All attempts
                </th>
                <td colSpan={d === null ? 3 : 4} />
              </tr>
            )}
            <tr>
              <th scope="col">Limiter</th>
              <th scope="col" className="rl-compare-outcome-head">
                <span className="rl-compare-outcome--admit" aria-hidden="true">
                  ●{' '}
                </span>
                Admitted
              </th>
              <th scope="col" className="rl-compare-outcome-head">
                <span className="rl-compare-outcome--delay" aria-hidden="true">
                  ■{' '}
                </span>
                Delayed
              </th>
              <th scope="col" className="rl-compare-outcome-head">
                <span className="rl-compare-outcome--reject" aria-hidden="true">
                  ✕{' '}
                </span>
                Rejected
              </th>
              {retries && (
                <>
                  <th scope="col">Admitted</th>
                  <th scope="col">Delayed</th>
                  <th scope="col">Rejected</th>
                </>
              )}
              <th scope="col" className="rl-compare-wide-head">
                Worst burst at backend ({formatDuration(W)})
              </th>
              <th scope="col">p95 delay</th>
              <th scope="col">Peak state</th>
              {d !== null && <th scope="col">Request {requestNumber(d.origin)}</th>}
            </tr>
          </thead>
          <tbody>
            {lanes.map((lane, i) => (
              <CompareRow
                key={lane.name}
                lane={lane}
                i={i}
                retries={retries}
                divergence={d !== null}
                differs={d !== null && (d.lanes[0] === i || d.lanes[1] === i)}
                outcome={outcomesAt[i] ?? null}
                selected={selectedLane === i}
              />
            ))}
          </tbody>
        </table>
      </div>
      <p className="rl-compare-divergence" data-testid="divergence">
        {d === null ? (
          lanes.length < 2 ? (
            'Add another limiter to compare decisions.'
          ) : (
            `All ${plural(lanes.length, 'limiter')} decide every first attempt the same way.`
          )
        ) : (
          <>
            <span className="rl-compare-first">First difference: </span>
            <span data-testid="divergence-sentence">{describeDivergence(result, d)}.</span>
            {canJump && (
              <>
                {' '}
                <button type="button" className="link" onClick={() => jump(d, d.lanes[0])}>
                  Go to request {requestNumber(d.origin)}
                </button>
              </>
            )}
          </>
        )}
      </p>
      {pairs.length > 1 && (
        <details className="rl-compare-pairs">
          <summary>First difference of each pair</summary>
          <ul>
            {pairs.map(({ p, k }) => {
              const [a, b] = p.lanes;
              return (
                <li key={k} data-testid="pair-divergence">
                  {lanes[a] && lanes[a].name} vs {lanes[b] && lanes[b].name}: request{' '}
                  {requestNumber(p.origin)} at {formatInstant(p.atMs)} ({VERB[p.outcomes[0]][0]} /{' '}
                  {VERB[p.outcomes[1]][0]})
                  {canJump && (
                    <>
                      {' '}
                      <button type="button" className="link" onClick={() => jump(p, a)}>
                        Go
                      </button>
                    </>
                  )}
                </li>
              );
            })}
          </ul>
        </details>
      )}
    </div>
  );
}

/**
 * One limiter's row. Memoised on what it shows: an edit to one limiter hands the others back the
 * same lane objects, so only the edited row renders.
 */
const CompareRow = memo(function CompareRow({
  lane,
  i,
  retries,
  divergence,
  differs,
  outcome,
  selected,
}: {
  lane: LaneResult;
  i: number;
  retries: boolean;
  /** The table has the divergence column. */
  divergence: boolean;
  /** This lane decides the first divergence differently. */
  differs: boolean;
  /** Its decision on the divergence's request (null: never decided). */
  outcome: Outcome | null;
  selected: boolean;
}) {
  const m = lane.metrics;
  const cls = [differs ? 'rl-compare-diverges' : '', selected ? 'rl-compare-selected' : '']
    .filter(Boolean)
    .join(' ');
  return (
    <tr
      className={cls || undefined}
      data-testid={`compare-row-${i}`}
      aria-current={selected ? 'true' : undefined}
    >
      <th scope="row">
        {selected && (
          <span className="rl-compare-marker" aria-hidden="true">
            ▸{' '}
          </span>
        )}
        {lane.name}
      </th>
      <Counts c={m.first} prefix={`first-${i}`} />
      {retries && <Counts c={m.total} prefix={`total-${i}`} />}
      <td data-testid={`peak-backend-${i}`}>{formatCount(m.peakBackend.count)}</td>
      <td data-testid={`p95-${i}`}>{m.delay.count > 0 ? formatDuration(m.delay.p95Ms) : '—'}</td>
      <td data-testid={`state-${i}`}>
        {formatBytes(m.state.peakBytes)}
        <span className="rl-compare-share">
          {' '}
          · {plural(m.state.peakEntries, 'entry', 'entries')}
        </span>
      </td>
      {divergence && (
        <td data-testid={`at-divergence-${i}`}>
          {outcome === null ? (
            '—'
          ) : (
            <span className={`rl-compare-outcome rl-compare-outcome--${outcome}`}>
              <span aria-hidden="true">{GLYPH[outcome]}</span> {VERB[outcome][0]}
              {differs && <span className="visually-hidden"> (differs)</span>}
            </span>
          )}
        </td>
      )}
    </tr>
  );
});
