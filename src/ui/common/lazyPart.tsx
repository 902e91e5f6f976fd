import { lazy, useState } from 'react';
import type { ComponentType } from 'react';
import { PanelBoundary } from './PanelBoundary';

/** A lazily loaded component that can also be fetched ahead of its first render. */
export type LazyPart<P extends object> = ComponentType<P> & {
  /** Fetches the chunk (once); rendering later does not fetch it again. */
  preload: () => Promise<void>;
};

/**
 * A component fetched as a chunk of its own the first time it renders (keeps the initial JavaScript
 * small), or earlier with `preload()`. Until it has arrived it suspends (render it inside
 * `<Suspense>`); once it has, it renders at once, so a part preloaded before the first render never
 * shows its placeholder. A failed fetch renders a message instead of reaching the root and blanking
 * the page; so does an error the part throws once loaded (PanelBoundary, named `what`).
 */
export function lazyPart<P extends object>(
  load: () => Promise<ComponentType<P>>,
  what: string,
): LazyPart<P> {
  function LoadFailed() {
    return (
      <p className="param-error" role="alert">
        {`The ${what} could not be loaded (offline, or the site was updated). Reload the page to try again.`}
      </p>
    );
  }
  let loaded: ComponentType<P> | null = null;
  let fetched: Promise<{ default: ComponentType<P> }> | null = null;
  const fetchOnce = () =>
    (fetched ??= load().then(
      (component) => {
        loaded = component;
        return { default: component };
      },
      () => {
        loaded = LoadFailed as ComponentType<P>;
        return { default: loaded };
      },
    ));
  const Lazy = lazy(fetchOnce) as unknown as ComponentType<P>;
  function Part(props: P) {
    // Chosen once per mount: switching from the lazy wrapper to the component would remount it.
    const [Component] = useState(() => loaded ?? Lazy);
    return (
      <PanelBoundary what={what}>
        <Component {...props} />
      </PanelBoundary>
    );
  }
  Part.displayName = `LazyPart(${what})`;
  return Object.assign(Part, { preload: () => fetchOnce().then(() => undefined) });
}

/**
 * What a lazy part shows while its chunk arrives: quiet, and marked (`lazy-loading`) so browser
 * tests wait for every part before they compare a screenshot.
 */
export function Loading({ what }: { what: string }) {
  return <p className="panel muted lazy-loading">{`Loading the ${what}…`}</p>;
}
