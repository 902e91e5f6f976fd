import { memo } from 'react';
import { SYSTEMS, SYSTEM_GROUPS } from '../../systems';
import { ALGORITHMS } from './algorithms';

/**
 * The systems as `<optgroup>`s of `<option value={id}>`, with the version and the algorithm.
 * Memoised: the same options whatever else the panel renders with (a parameter edit).
 */
export const SystemOptions = memo(function SystemOptions({ brief = false }: { brief?: boolean }) {
  return (
    <>
      {SYSTEM_GROUPS.map((group) => (
        <optgroup key={group} label={group}>
          {SYSTEMS.filter((s) => s.group === group).map((s) => (
            <option key={s.id} value={s.id}>
              {brief ? s.name : `${s.name} (${s.version}) — ${ALGORITHMS[s.kind].name}`}
            </option>
          ))}
        </optgroup>
      ))}
    </>
  );
});
