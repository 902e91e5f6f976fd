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
export function problemWith(scenario: Scenario, path: Path, value: unknown): string | null {
  const issues = validateScenario(setIn(scenario, path, value));
  return issues[0]?.message ?? null;
}
