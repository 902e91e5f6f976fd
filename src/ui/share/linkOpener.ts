/**
 * Fetches the opener of links (src/ui/share/openLink.ts, a chunk of its own: the link decoder and
 * the repair of untrusted input). Its own module, so that session.ts, which openLink.ts builds on,
 * does not import it back.
 */
import type { LinkOpener } from './session';

let load: Promise<LinkOpener> | null = null;

/** Fetches the opener once (the same promise after); a failed fetch is tried again by the next call. */
export function loadLinkOpener(): Promise<LinkOpener> {
  load ??= import('./openLink').then(
    (m) => m.openLink,
    (e: unknown) => {
      load = null;
      throw e;
    },
  );
  return load;
}
