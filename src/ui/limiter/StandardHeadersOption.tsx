import { memo, useId } from 'react';
import type { SystemInfo } from '../../systems';

/**
 * The per-limiter "add standard rate-limit headers" option, with how the system is made to, or,
 * for a system that cannot be made to, why not.
 * Memoised: a parameter edit does not render it (its `onChange` is stable per lane).
 */
export const StandardHeadersOption = memo(function StandardHeadersOption({
  system,
  checked,
  onChange,
}: {
  system: SystemInfo;
  checked: boolean;
  onChange: (on: boolean) => void;
}) {
  const id = useId();
  // A product that cannot send them: no option that would change nothing, only why.
  if (system.standardHeadersSent === false)
    return (
      <div className="param-field standard-headers">
        <p className="param-help">
          <strong>Standard rate-limit headers:</strong> not sent. {system.standardHeadersHow}
        </p>
      </div>
    );
  return (
    <div className="param-field standard-headers">
      <label htmlFor={id}>Add standard rate-limit headers</label>
      <span className="param-control">
        <input
          id={id}
          type="checkbox"
          checked={checked}
          aria-describedby={`${id}-help`}
          onChange={(e) => onChange(e.target.checked)}
        />
      </span>
      <p id={`${id}-help`} className="param-help">
        {system.name} sends them only when configured. {system.standardHeadersHow}
      </p>
    </div>
  );
});
