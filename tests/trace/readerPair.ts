/**
 * What the byte reader's tests (fast-lines.test.ts, fast-lines-words.test.ts) share: a log read
 * whole, its error message when it is refused, and a trace's every column in a comparable form. The
 * byte reader reads a file keyed by the client address (`[{ kind: 'client' }]`); the string reader
 * is what the same file keyed by the field `remote_addr` reads (no byte reader for that key).
 */
import { parseTrace } from '../../src/trace';
import type { BuiltTrace, KeySpec } from '../../src/trace';

/** `text` read as the file `x.log`: its trace, or the message it was refused with. */
export function read(text: string, keySpec: KeySpec, logFormat?: string): BuiltTrace | string {
  try {
    return parseTrace(new TextEncoder().encode(text), {
      name: 'x.log',
      keySpec,
      ...(logFormat !== undefined ? { logFormat } : {}),
    });
  } catch (e) {
    return (e as Error).message;
  }
}

/** Everything a trace holds, comparable (a refusal: its message). */
export function view(t: BuiltTrace | string): unknown {
  if (typeof t === 'string') return t;
  return {
    count: t.count,
    arrival: [...t.arrivalMs],
    key: [...t.keyId],
    keys: t.keys,
    status: [...t.status],
    cost: [...t.cost],
    nat: t.natHints,
    report: t.report,
  };
}
