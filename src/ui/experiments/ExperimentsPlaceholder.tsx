import { useId } from 'react';

/**
 * The experiments menu while its chunk (the library and its measurements) arrives just after the
 * first paint: the closed menu's shape, so nothing moves when it is replaced, with the button not
 * yet usable. Marked `lazy-loading` so browser tests wait for the real menu.
 */
export function ExperimentsPlaceholder() {
  const id = useId();
  return (
    <section className="panel experiments lazy-loading" aria-labelledby={`${id}-heading`}>
      <div className="experiments-head">
        <h2 id={`${id}-heading`}>Experiments</h2>
        <button type="button" disabled>
          Browse
        </button>
      </div>
      <p className="muted experiments-intro">
        Questions people ask about rate limits, each answered by running it.
      </p>
    </section>
  );
}
