import { SYSTEMS, SYSTEM_GROUPS } from '../../systems';
import { ALGORITHMS } from './algorithms';

/** The systems as `<optgroup>`s of `<option value={id}>`, with the version and the algorithm. */
export function SystemOptions({ brief = false }: { brief?: boolean }) {
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
}
