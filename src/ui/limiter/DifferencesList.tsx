import { SYSTEM_DIFFERENCES } from '../../systems/differences';
import type { SystemId } from '../../systems/types';

/** The list itself: a chunk of its own, fetched when the disclosure first opens. */
export function DifferencesList({ system }: { system: SystemId }) {
  return (
    <ul className="system-differences" data-testid="system-differences">
      {(SYSTEM_DIFFERENCES[system] ?? []).map((d) => (
        <li key={d}>{d}</li>
      ))}
    </ul>
  );
}
