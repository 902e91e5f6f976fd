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

const W = 56;
const H = 62;

/**
 * The replicas' limiters side by side at the current time: one small multiple each, on one scale
 * (the share of the allowance left for the key), in the replica's colour and with its number;
 * replicas that are gone are outlined. The shared store, when there is one, comes last.
 */
export function ReplicaMultiples({
  cells,
  store,
}: {
  cells: readonly ReplicaCell[];
  store: StoreState | null;
}) {
  const cell = (
    key: string,
    label: string,
    color: string,
    alive: boolean,
    level: number | null,
    caption: string,
  ) => (
    <svg
      key={key}
      className={`replica-cell${alive ? '' : ' is-gone'}`}
      viewBox={`0 0 ${W} ${H}`}
      width={W}
      height={H}
      role="img"
      aria-label={`${label}: ${!alive ? 'gone' : level === null ? `no limit of its own, ${caption}` : `${Math.round(level * 100)}% of its allowance left, ${caption}`}`}
      data-testid="replica-cell"
    >
      <rect x={0.5} y={0.5} width={W - 1} height={H - 1} rx={4} className="replica-frame" />
      <rect x={0} y={0} width={W} height={12} rx={4} fill={color} />
      <text x={4} y={9.5} className="replica-label">
        {label}
      </text>
      {alive && level === null ? (
        <>
          <text x={6} y={32} className="replica-caption">
            no local
          </text>
          <text x={6} y={41} className="replica-caption">
            limit
          </text>
          <text x={4} y={59} className="replica-caption">
            {caption}
          </text>
        </>
      ) : alive && level !== null ? (
        <>
          <rect x={8} y={16} width={14} height={34} className="replica-track" />
          <rect x={8} y={16 + 34 * (1 - level)} width={14} height={34 * level} fill={color} />
          <text x={26} y={30} className="replica-num">
            {Math.round(level * 100)}%
          </text>
          <text x={26} y={42} className="replica-caption">
            left
          </text>
          <text x={4} y={59} className="replica-caption">
            {caption}
          </text>
        </>
      ) : (
        <text x={8} y={38} className="replica-caption">
          gone
        </text>
      )}
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
          `${Math.round(c.share * 100)}% of traffic`,
        ),
      )}
      {store !== null &&
        cell('store', 'store', '#6b7280', true, allowanceLeft(store.inspection), 'global limit')}
    </div>
  );
}
