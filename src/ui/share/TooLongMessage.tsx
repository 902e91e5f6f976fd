import { MAX_LINK_LENGTH } from '../../config';
import { configOf } from '../../store';
import type { PlaygroundStoreApi } from '../../store';
import { usePlaygroundApi } from '../../store/react';
import { downloadBlob } from './download';

/** Saves the settings as a JSON file: what a link would have carried. */
export function downloadSettings(api: PlaygroundStoreApi): void {
  const s = api.getState();
  const text = JSON.stringify({ config: configOf(s), experiment: s.experiment }, null, 2);
  downloadBlob(new Blob([text], { type: 'application/json' }), 'rate-limit-lab-settings.json');
}

/** What `TooLongForLink` says: how long the settings are, and the settings as a JSON download. */
export function TooLongMessage({ length }: { length: number }) {
  const api = usePlaygroundApi();
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
