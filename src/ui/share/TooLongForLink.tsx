import { Suspense, useEffect, useState } from 'react';
import { configOf } from '../../store';
import type { PlaygroundStoreApi } from '../../store';
import { afterNextFrame } from '../../store/afterNextFrame';
import { usePlaygroundApi } from '../../store/react';
import { fitsInLink, queryFor } from './session';
import { lazyPart } from '../common/lazyPart';

// Rarely shown: the message and its download are a chunk of their own.
const TooLongMessage = lazyPart(
  () => import('./TooLongMessage').then((m) => m.TooLongMessage),
  'note on long settings',
);

/** The query for the settings as they are (null when they fit in a link). */
function tooLong(api: PlaygroundStoreApi): number | null {
  const s = api.getState();
  const query = queryFor(configOf(s), s.experiment, false);
  return fitsInLink(query) ? null : query.length;
}

/**
 * Said when the settings are too long for a link (the address bar then carries no query): how long
 * they are, and the settings as a JSON download instead. Checked when the settings change, not as
 * the clock moves.
 */
export function TooLongForLink() {
  const api = usePlaygroundApi();
  const [length, setLength] = useState<number | null>(() => tooLong(api));
  useEffect(() => {
    // Encoding the whole config takes about 0.5 ms: after the frame that draws the edit,
    // once for edits that come faster than frames.
    let cancel: (() => void) | null = null;
    const unsubscribe = api.subscribe((s, prev) => {
      if (s.limiters === prev.limiters && s.scenario === prev.scenario) return;
      cancel ??= afterNextFrame(() => {
        cancel = null;
        setLength(tooLong(api));
      });
    });
    return () => {
      unsubscribe();
      cancel?.();
    };
  }, [api]);
  if (length === null) return null;
  return (
    <Suspense fallback={null}>
      <TooLongMessage length={length} />
    </Suspense>
  );
}
