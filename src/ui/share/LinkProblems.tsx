import { useId, useState } from 'react';
import type { Start, StartSource } from './session';
import { CopyButton } from './CopyButton';
import { plural } from '../../core';
import { downloadBlob } from './download';
import { savedRefusalMessage } from './savedRefusal';

/** Offers a saved record that was not opened as a file, exactly as it was stored. */
function downloadRecord(text: string): void {
  downloadBlob(
    new Blob([text], { type: 'application/json' }),
    'rate-limit-lab-saved-settings.json',
  );
}

const SHOWN = 8;

/**
 * What was wrong with the link (or the saved settings) the page opened with: every problem, where
 * it is and what was expected, that the nearest valid settings are open instead, and the original
 * link text to copy. Text only: nothing from a link is ever read as HTML.
 */
export function LinkProblems({
  problems,
  original,
  source,
  refused,
}: {
  problems: readonly string[];
  original: string;
  source: StartSource;
  /** Saved settings that were not opened (source 'refused'): why, and the record to download. */
  refused?: Start['refused'];
}) {
  const id = useId();
  const [open, setOpen] = useState(true);
  const [all, setAll] = useState(false);
  if (!open || problems.length === 0) return null;
  const shown = all ? problems : problems.slice(0, SHOWN);
  const fromLink = source === 'link' || source === 'experiment';
  return (
    <section
      className="link-problems"
      role="alert"
      aria-labelledby={`${id}-heading`}
      data-testid="link-problems"
    >
      <h2 id={`${id}-heading`}>
        {fromLink
          ? `This link had ${plural(problems.length, 'problem')}: the nearest valid settings are open`
          : source === 'refused'
            ? 'Your saved settings were not opened: the defaults are open'
            : 'Your saved settings had problems: the nearest valid settings are open'}
      </h2>
      {refused !== undefined ? (
        <p className="link-refused">
          {savedRefusalMessage(refused.over, refused.text.length)} They stay in this browser until
          you change a setting here, which saves the new ones in their place.{' '}
          <button type="button" className="link" onClick={() => downloadRecord(refused.text)}>
            Download the saved settings (JSON)
          </button>
        </p>
      ) : (
        <ul>
          {shown.map((p, i) => (
            <li key={i} className="mono">
              {p}
            </li>
          ))}
        </ul>
      )}
      {problems.length > shown.length && (
        <button type="button" className="link" onClick={() => setAll(true)}>
          Show all {problems.length}
        </button>
      )}
      {fromLink && original !== '' && (
        <div className="link-original">
          <label htmlFor={`${id}-original`}>The link as it came</label>
          <input
            id={`${id}-original`}
            className="mono"
            readOnly
            value={original}
            onFocus={(e) => e.target.select()}
          />
          <CopyButton text={original} label="Copy the original link" />
        </div>
      )}
      <button type="button" onClick={() => setOpen(false)}>
        Dismiss
      </button>
    </section>
  );
}
