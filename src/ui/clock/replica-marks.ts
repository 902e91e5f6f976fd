import type { SimResult } from '../../sim';
import type { MarkColor } from '../../viz/Timeline';
import { replicaColor, replicaLabel } from '../../viz/replicaColors';

/**
 * a fleet lane's requests carry their replica's colour on the timeline (the same as the
 * fleet view and the inspector) with its number as the tooltip; undefined when no lane is a fleet.
 */
export function replicaMarks(result: SimResult): MarkColor | undefined {
  if (!result.lanes.some((l) => l.fleet !== undefined)) return undefined;
  return (lane, row) => {
    const l = result.lanes[lane];
    if (l?.fleet === undefined) return null;
    const inst = l.columns.instance;
    const slot = inst.length < l.columns.rows ? 0 : (inst[row] as number);
    return { color: replicaColor(slot), name: `replica ${replicaLabel(slot)}` };
  };
}
