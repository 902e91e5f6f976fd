/**
 * Where the playground starts, and where it is kept: the link (the whole config in the query
 * string), the saved settings (localStorage), or the defaults. A link always wins; opening one never
 * overwrites the saved settings until the person edits something. Saved settings the page could not
 * have written are not opened and not overwritten until then either (openSaved.ts).
 */
import { defaultConfig, encodeConfig, linkFits } from '../../config';
import type { PlaygroundConfig } from '../../config';
import type { SavedLimit } from '../../config/saved';
import { experimentById } from '../../config/experiments/registry';
import type { ExperimentRef } from '../../store';

/** The performance measure the page records around `startFrom` (main.tsx): decode and repair. */
export const OPEN_MEASURE = 'rate-limit-lab:open';

/** Query parameters that belong to the app rather than the config. */
const APP_PARAMS = new Set(['embed', 'x', 'xv']);
export const STORAGE_KEY = 'rate-limit-lab.settings';

/** Why saved settings were not opened: a limit of src/config/saved.ts, or not JSON at all. */
export type SavedRefusal = SavedLimit | 'unreadable';

/** 'refused': saved settings past the limits of src/config/saved.ts, not opened (the defaults are). */
export type StartSource = 'link' | 'experiment' | 'saved' | 'refused' | 'default';

export interface Start {
  config: PlaygroundConfig;
  experiment: ExperimentRef | null;
  source: StartSource;
  /** What was wrong with the link or the saved settings (empty when nothing was). */
  problems: string[];
  /** The link text as it came, to copy when it had problems. */
  original: string;
  embed: boolean;
  /** Saved settings not opened (source 'refused'): the record as stored, and the limit it crossed. */
  refused?: { text: string; over: SavedRefusal };
}

function readSaved(storage: Storage | null): string | null {
  try {
    return storage?.getItem(STORAGE_KEY) ?? null;
  } catch {
    return null;
  }
}

/** The experiment a link names (`x=<id>`, `xv=<variant>`), if it names a known one. */
function experimentParam(params: URLSearchParams): ExperimentRef | null {
  const id = params.get('x');
  if (id === null) return null;
  const experiment = experimentById(id);
  if (experiment === undefined) return null;
  const variant = params.get('xv');
  return {
    id,
    variant: experiment.variants?.some((v) => v.id === variant) === true ? variant : null,
  };
}

/**
 * What deciding the start needs fetched first (each is a chunk of its own): the experiment library,
 * when the link names one (`x=`) or the saved settings that would open name one; the opener of
 * links (`LinkOpener`), when the query holds config parameters, a version or an experiment (which
 * may be one this build does not have); the opener of saved settings (`SavedOpener`), when there
 * are saved settings and no link.
 */
export function startNeeds(
  search: string,
  storage: Storage | null,
): { experiments: boolean; link: boolean; saved: boolean } {
  const params = new URLSearchParams(search);
  const saved = [...params.keys()].every((k) => k === 'embed' || k === 'xv')
    ? readSaved(storage)
    : null;
  return {
    experiments: params.has('x') || (saved?.includes('"experiment":{') ?? false),
    link: params.has('x') || configParamsOf(params).length > 0 || params.has('v'),
    saved: saved !== null,
  };
}

/** The query parameters that belong to the config (everything but the app's own and `v`). */
function configParamsOf(params: URLSearchParams): string[] {
  return [...params.keys()].filter((k) => !APP_PARAMS.has(k) && k !== 'v');
}

/**
 * Opens a link's config (src/ui/share/openLink.ts, a chunk of its own holding the link decoder
 * and the repair of untrusted input, which the page fetches with `loadLinkOpener` before its first
 * render only when the link holds a config: the budget for the first load). `experiment` is the one
 * the link names, if this build has it.
 */
export type LinkOpener = (
  search: string,
  experiment: ExperimentRef | null,
  embed: boolean,
) => Start;

/**
 * Opens saved settings (src/ui/share/openSaved.ts, a chunk of its own that the page fetches before
 * its first render when there are saved settings to open: the budget for the first load).
 */
export type SavedOpener = (record: string, embed: boolean) => Start;

/**
 * Decides what the page opens with. Pure apart from reading `storage`. A link's config is opened by
 * `openLink`, saved settings by `openSaved`, which the caller fetched when `startNeeds` said so;
 * without `openLink` a link opens the defaults and says so (the link stays in the address bar
 * until the person edits something), without `openSaved` saved settings are not opened (and not
 * overwritten).
 */
export function startFrom(
  search: string,
  storage: Storage | null,
  openSaved: SavedOpener | null,
  openLink: LinkOpener | null,
): Start {
  const params = new URLSearchParams(search);
  const embed = params.has('embed');
  const experiment = experimentParam(params);
  const configParams = configParamsOf(params);
  const original = search.replace(/^\?/, '');

  if (experiment !== null && configParams.length === 0) {
    // A docs link to an experiment: its own settings, at its moment.
    return {
      config: defaultConfig(),
      experiment,
      source: 'experiment',
      problems: [],
      original,
      embed,
    };
  }
  if (params.has('x') || configParams.length > 0 || params.has('v')) {
    // No opener (its chunk failed to load): the defaults, saying why, and nothing overwritten.
    return (
      openLink?.(search, experiment, embed) ?? {
        ...defaultStart(embed),
        source: 'link',
        problems: ['the link could not be opened: a part of the page did not load'],
        original,
      }
    );
  }
  const saved = readSaved(storage);
  if (saved === null) return defaultStart(embed);
  // No opener (its chunk failed to load): the saved settings are kept, not overwritten.
  return (
    openSaved?.(saved, embed) ?? {
      ...defaultStart(embed),
      source: 'refused',
      problems: ['the saved settings could not be opened'],
    }
  );
}

/** The defaults, with nothing to say about them. */
export function defaultStart(embed: boolean): Start {
  return {
    config: defaultConfig(),
    experiment: null,
    source: 'default',
    problems: [],
    original: '',
    embed,
  };
}

/** The query string for a config (and the experiment whose card is open, and embed mode). */
export function queryFor(
  config: PlaygroundConfig,
  experiment: ExperimentRef | null,
  embed: boolean,
): string {
  let query = encodeConfig(config);
  if (experiment !== null) {
    query += `&x=${encodeURIComponent(experiment.id)}`;
    if (experiment.variant !== null) query += `&xv=${encodeURIComponent(experiment.variant)}`;
  }
  if (embed) query += '&embed';
  return query;
}

/** Whether a query is short enough to be opened again as a link. */
export function fitsInLink(query: string): boolean {
  return linkFits(query);
}

/** Saves the settings; quietly does nothing where storage is unavailable (private windows). */
export function save(
  storage: Storage | null,
  config: PlaygroundConfig,
  experiment: ExperimentRef | null,
): void {
  try {
    storage?.setItem(STORAGE_KEY, JSON.stringify({ config, experiment }));
  } catch {
    // Storage full or refused: the link in the address bar still holds everything.
  }
}

/** Forgets the saved settings. */
export function forget(storage: Storage | null): void {
  try {
    storage?.removeItem(STORAGE_KEY);
  } catch {
    // Nothing to forget where storage is unavailable.
  }
}
