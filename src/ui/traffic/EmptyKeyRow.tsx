import { plural } from '../../core';
import { usePlayground } from '../../store/react';
import { systemOf } from '../../systems';
import { emptyKeyWords } from '../../trace';
import type { EmptyKeyClients, KeySpec } from '../../trace';

/**
 * The requests with an empty key, under a list of keys that leaves them out (held and streamed
 * statistics): how many, and what the system of the limiter being edited does with them — not
 * limited (nginx, HAProxy), denied (Spring), one shared key (most others).
 */
export function EmptyKeyRow({
  count,
  keySpec,
  withAddress = 0,
}: {
  count: number;
  keySpec: KeySpec;
  /** Of the `count`, those whose log line has a client address (a held trace's). */
  withAddress?: number;
}) {
  const system = usePlayground((s) => {
    const entry = s.limiters[s.activeLane] ?? s.limiters[0];
    return entry === undefined ? undefined : systemOf(entry);
  });
  if (count === 0) return null;
  return (
    <p className="trace-empty-keys" data-testid="trace-stats-empty">
      {system === undefined
        ? `${plural(count, 'request')} with an empty key.`
        : emptyKeyWords(count, keySpec, system, withAddress)}{' '}
      Not ranked with the keys above.
    </p>
  );
}

/** Empty-key requests whose log line has a client address. */
export function addressed(clients: EmptyKeyClients | undefined): number {
  let n = 0;
  for (const c of clients?.client ?? []) if (c !== 0) n += 1;
  return n;
}
