/**
 * Opening a link's config (the query string): a chunk of its own, holding the link decoder and the
 * repair of untrusted input (src/config/url.ts, src/config/repair.ts), fetched before the first
 * render only when the link holds a config, and when the person goes Back or Forward to one (the
 * budget for the first load: a page opened without a link never runs them).
 */
// Not through the config barrel: a module it re-exports is counted part of the first load.
import { decodeConfig } from '../../config/url';
import { quoteText } from '../../config/format';
import type { ExperimentRef } from '../../store';
import type { Start } from './session';

/** What the page opens from the link `search` (see `startFrom`). */
export function openLink(search: string, experiment: ExperimentRef | null, embed: boolean): Start {
  const params = new URLSearchParams(search);
  const original = search.replace(/^\?/, '');
  const decoded = decodeConfig(search);
  const problems = decoded.errors.map((e) => e.message);
  // Named an experiment this build does not have: say so, and open the rest of the link.
  const x = params.get('x');
  if (x !== null && experiment === null)
    problems.unshift(`x: no experiment called ${quoteText(x)}`);
  return { config: decoded.config, experiment, source: 'link', problems, original, embed };
}
