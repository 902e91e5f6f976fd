import { MAX_LINK_LENGTH, defaultConfig } from '../../config';
import { configOf } from '../../store';
import { usePlaygroundApi } from '../../store/react';
import { CopyButton } from './CopyButton';
import { TooLongForLink } from './TooLongForLink';
import { fitsInLink, forget, queryFor } from './session';

/** The link to exactly this moment: these settings, paused at the current time. */
export function linkToNow(
  state: Parameters<typeof configOf>[0],
  embed = false,
): { url: string; fits: boolean } {
  const query = queryFor(configOf(state, Math.floor(state.tMs)), state.experiment, embed);
  const base = `${window.location.origin}${window.location.pathname}`;
  return { url: `${base}?${query}`, fits: fitsInLink(query) };
}

/** "Copy link" (to this moment, paused) and "Reset to defaults". */
export function ShareControls({ storage }: { storage: Storage | null }) {
  const api = usePlaygroundApi();
  return (
    <>
      <CopyButton
        label="Copy link"
        text={() => {
          const { url, fits } = linkToNow(api.getState());
          if (!fits) {
            throw new Error(
              `These settings are too large for a link (over ${MAX_LINK_LENGTH} characters, mostly clicked times): they are saved in this browser, and "Download them as JSON" saves them as a file.`,
            );
          }
          return url;
        }}
      />
      <button
        type="button"
        onClick={() => {
          forget(storage);
          const s = api.getState();
          s.loadConfig({ ...defaultConfig(), view: { ...defaultConfig().view, paused: true } });
          s.setExperiment(null);
        }}
      >
        Reset to defaults
      </button>
      <TooLongForLink />
    </>
  );
}
