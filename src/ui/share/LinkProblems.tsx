import { useId, useState } from 'react';
import type { StartSource } from './session';
import { CopyButton } from './CopyButton';
import { plural } from '../../core';

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
}: {
  problems: readonly string[];
  original: string;
  source: StartSource;
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
          : 'Your saved settings had problems: the nearest valid settings are open'}
      </h2>
      <ul>
        {shown.map((p, i) => (
          <li key={i} className="mono">
            {p}
          </li>
        ))}
      </ul>
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
