import { lazy } from 'react';
import type { ComponentType } from 'react';

/**
 * A component fetched as a chunk of its own the first time it renders (keeps the initial JavaScript
 * small). A failed fetch renders a message instead of reaching the root and blanking the page.
 */
export function lazyPart<P extends object>(
  load: () => Promise<ComponentType<P>>,
  what: string,
): ComponentType<P> {
  function LoadFailed() {
    return (
      <p className="param-error" role="alert">
        {`The ${what} could not be loaded (offline, or the site was updated). Reload the page to try again.`}
      </p>
    );
  }
  return lazy(() =>
    load().then(
      (component) => ({ default: component }),
      () => ({ default: LoadFailed as ComponentType<P> }),
    ),
  );
}
