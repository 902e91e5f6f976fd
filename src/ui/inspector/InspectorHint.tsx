import type { Ref } from 'react';

/**
 * The inspector with nothing selected: a hint. Part of the first paint, while the inspector itself
 * is a chunk of its own; `loading` marks it while that chunk arrives after a selection.
 */
export function InspectorHint({
  ref,
  loading = false,
}: {
  ref?: Ref<HTMLElement>;
  loading?: boolean;
}) {
  return (
    <section
      ref={ref}
      className={loading ? 'panel inspector lazy-loading' : 'panel inspector'}
      aria-labelledby="inspector-heading"
    >
      <h2 id="inspector-heading">Decision inspector</h2>
      <p className="muted">
        Click a request (on the timeline or in a view) to see why it was decided so.
      </p>
    </section>
  );
}
