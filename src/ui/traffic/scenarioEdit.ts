import { validateScenario } from '../../sim';
import type { Scenario } from '../../sim';

type Path = ReadonlyArray<string | number>;

/** A copy of `obj` with the value at `path` replaced (arrays and objects copied along the path). */
export function setIn<T>(obj: T, path: Path, value: unknown): T {
  if (path.length === 0) return value as T;
  const [head, ...rest] = path as [string | number, ...Array<string | number>];
  if (Array.isArray(obj)) {
    const copy: unknown[] = obj.slice();
    copy[head as number] = setIn(copy[head as number], rest, value);
    return copy as T;
  }
  const record = obj as Record<string, unknown>;
  return { ...record, [head]: setIn(record[head], rest, value) } as T;
}

/**
 * The first problem the simulator finds in `scenario` once `path` holds `value`, or null. The
 * current scenario is valid, so any problem is this edit's (an end moved before its start is
 * reported on the end, but it is still caught here).
 */
export function problemWith(
  scenario: Scenario,
  path: Path,
  value: unknown,
  label?: string,
): string | null {
  const issue = validateScenario(setIn(scenario, path, value))[0];
  if (issue === undefined) return null;
  // Named by the field's label where the simulator named the same path ("replicas must be …").
  const at = path
    .map((k) => (typeof k === 'number' ? `[${k}]` : `.${k}`))
    .join('')
    .slice(1);
  if (label !== undefined && issue.path === at && issue.message.startsWith(issue.path))
    return `${label}${issue.message.slice(issue.path.length)}`;
  return issue.message;
}
