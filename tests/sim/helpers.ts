import { defaultScenario } from '../../src/sim';
import type { Scenario } from '../../src/sim';

/** The default scenario with some groups replaced. */
export function scenario(overrides: Partial<Scenario>): Scenario {
  return { ...defaultScenario(), ...overrides };
}

/** Row indices of a lane's columns with the given outcome code (all rows when omitted). */
export function rowsWhere(
  columns: { rows: number; outcome: Uint8Array; arrivalMs: Int32Array },
  test: (outcome: number, arrivalMs: number) => boolean,
): number[] {
  const out: number[] = [];
  for (let r = 0; r < columns.rows; r += 1) {
    if (test(columns.outcome[r] as number, columns.arrivalMs[r] as number)) out.push(r);
  }
  return out;
}
