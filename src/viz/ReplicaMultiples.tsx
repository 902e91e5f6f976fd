import type { StoreState } from '../sim';
import { allowanceLeft } from './allowanceLeft';
import { replicaColor, replicaLabel } from './replicaColors';

/** What one small multiple shows. */
export interface ReplicaCell {
  slot: number;
  alive: boolean;
  /** Share of the lane's attempts so far, 0 – 1. */
  share: number;
  /** The replica's own limiter at t; undefined when replicas hold no limit (global only). */
  state: StoreState | undefined;
}

// Sized so every caption is at least 11 px (the SVG is drawn 1:1, never scaled).
const W = 84;
const H = 100;

/**
 * The replicas' limiters side by side at the current time: one small multiple each, on one scale
 * (the share of the allowance left for the key), in the replica's colour and with its number;
 * replicas that are gone are outlined. The shared store, when there is one, comes last.
 */
export function ReplicaMultiples({
  cells,
  store,
  storeDown = false,
}: {
  cells: readonly ReplicaCell[];
  store: StoreState | null;
  /** The store is in an outage window now: its count is unreachable, so no level is shown. */
  storeDown?: boolean;
}) {
  const cell = (
    key: string,
    label: string,
    color: string,
    alive: boolean,
    level: number | null | 'down',
    caption: readonly [string, string],
  ) => (
    <svg
      key={key}
      className={`replica-cell${alive ? '' : ' is-gone'}`}
      viewBox={`0 0 ${W} ${H}`}
      width={W}
      height={H}
      role="img"
      aria-label={`${label}: ${!alive ? 'gone' : level === 'down' ? `down, unreachable, ${caption.join(' ')}` : level === null ? `no limit of its own, ${caption.join(' ')}` : `${Math.round(level * 100)}% of its allowance left, ${caption.join(' ')}`}`}
      data-testid="replica-cell"
    >
      <rect x={0.5} y={0.5} width={W - 1} height={H - 1} rx={4} className="replica-frame" />
      <rect x={0} y={0} width={W} height={18} rx={4} fill={color} />
      <text x={5} y={13.5} className="replica-label">
        {label}
      </text>
      {alive && level === 'down' ? (
        <>
          <text x={6} y={40} className="replica-caption replica-down">
            DOWN
          </text>
          <text x={6} y={54} className="replica-caption">
            unreachable
          </text>
        </>
      ) : alive && level === null ? (
        <>
          <text x={6} y={40} className="replica-caption">
            no local
          </text>
          <text x={6} y={54} className="replica-caption">
            limit
          </text>
        </>
      ) : alive && typeof level === 'number' ? (
        <>
          <rect x={8} y={24} width={16} height={44} className="replica-track" />
          <rect x={8} y={24 + 44 * (1 - level)} width={16} height={44 * level} fill={color} />
          <text x={30} y={42} className="replica-num">
            {Math.round(level * 100)}%
          </text>
          <text x={30} y={56} className="replica-caption">
            left
          </text>
        </>
      ) : (
        <text x={8} y={50} className="replica-caption">
          gone
        </text>
      )}
      {alive &&
        caption.map((line, i) => (
          <text key={i} x={5} y={82 + i * 13} className="replica-caption">
            {line}
          </text>
        ))}
    </svg>
  );
  return (
    <div className="replica-multiples" data-testid="replica-multiples">
      {cells.map((c) =>
        cell(
          `r${c.slot}`,
          replicaLabel(c.slot),
          replicaColor(c.slot),
          c.alive,
          c.state === undefined ? null : allowanceLeft(c.state.inspection),
          [`${Math.round(c.share * 100)}% of`, 'traffic'],
        ),
      )}
      {store !== null &&
        cell(
          'store',
          'store',
          '#6b7280',
          true,
          storeDown ? 'down' : allowanceLeft(store.inspection),
          ['global', 'limit'],
        )}
    </div>
  );
}
