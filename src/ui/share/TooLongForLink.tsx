import { useEffect, useState } from 'react';
import { MAX_LINK_LENGTH } from '../../config';
import { configOf } from '../../store';
import type { PlaygroundStoreApi } from '../../store';
import { usePlaygroundApi } from '../../store/react';
import { downloadBlob } from './download';
import { fitsInLink, queryFor } from './session';

/** The query for the settings as they are (null when they fit in a link). */
function tooLong(api: PlaygroundStoreApi): number | null {
  const s = api.getState();
  const query = queryFor(configOf(s), s.experiment, false);
  return fitsInLink(query) ? null : query.length;
}

/** Saves the settings as a JSON file: what a link would have carried. */
export function downloadSettings(api: PlaygroundStoreApi): void {
  const s = api.getState();
  const text = JSON.stringify({ config: configOf(s), experiment: s.experiment }, null, 2);
  downloadBlob(new Blob([text], { type: 'application/json' }), 'rate-limit-lab-settings.json');
}

/**
 * Said when the settings are too long for a link (the address bar then carries no query): how long
 * they are, and the settings as a JSON download instead. Checked when the settings change, not as
 * the clock moves.
 */
export function TooLongForLink() {
  const api = usePlaygroundApi();
  const [length, setLength] = useState<number | null>(() => tooLong(api));
  useEffect(
    () =>
      api.subscribe((s, prev) => {
        if (s.limiters !== prev.limiters || s.scenario !== prev.scenario) setLength(tooLong(api));
      }),
    [api],
  );
  if (length === null) return null;
  return (
    <p className="too-long-for-link" role="status" data-testid="too-long-for-link">
      These settings are too long for a link ({length.toLocaleString('en-US')} characters, over{' '}
      {MAX_LINK_LENGTH.toLocaleString('en-US')}), so the address bar does not carry them.{' '}
      <button type="button" className="link" onClick={() => downloadSettings(api)}>
        Download them as JSON
      </button>
    </p>
  );
}
