import { useEffect } from 'react';
import { configOf } from '../../store';
import type { PlaygroundStoreApi } from '../../store';
import { usePlaygroundApi } from '../../store/react';
import { fitsInLink, queryFor, save, startFrom, startNeeds } from './session';
import { loadLinkOpener } from './linkOpener';
import type { Start } from './session';

/** Loads where the page starts into the store: an experiment at its moment, or a config. */
export function applyStart(
  api: PlaygroundStoreApi,
  start: Start,
  reducedMotion: boolean = prefersReducedMotion(),
): void {
  const s = api.getState();
  if (start.source === 'experiment' && start.experiment !== null) {
    s.loadExperiment(start.experiment.id, start.experiment.variant);
    return;
  }
  s.loadConfig(start.config);
  s.setExperiment(start.experiment);
  // With reduced motion nothing moves until the person presses Play.
  if (reducedMotion) api.getState().pause();
}

/** The person asked the system for less motion (false where matchMedia is missing). */
function prefersReducedMotion(): boolean {
  return typeof window !== 'undefined' && typeof window.matchMedia === 'function'
    ? window.matchMedia('(prefers-reduced-motion: reduce)').matches
    : false;
}

/** Discrete edits within this long become one history entry (typing "20" is one edit). */
const PUSH_AFTER_MS = 400;
/** The address bar follows the clock at most this often once it stands still (pause, seek). */
const REPLACE_EVERY_MS = 300;

/**
 * Keeps the address bar and the saved settings in step with the store: an edit pushes a history
 * entry (so Back undoes it), moving the clock or the selection replaces the current one (a playing
 * clock's time once it stops, the page is hidden or an edit is made), Back and Forward load the
 * link they land on. The settings are saved once the person has edited something (opening a link,
 * or saved settings too large to open, never overwrites them).
 */
export function useUrlSync(start: Start, storage: Storage | null): void {
  const api = usePlaygroundApi();
  useEffect(() => {
    let edited = start.source === 'saved' || start.source === 'default';
    let fromHistory = false;
    let pushTimer: ReturnType<typeof setTimeout> | undefined;
    let replaceTimer: ReturnType<typeof setTimeout> | undefined;
    let savePending = false;

    const write = (mode: 'push' | 'replace', s = api.getState(), saving = true) => {
      const config = configOf(s);
      const query = queryFor(config, s.experiment, start.embed);
      // Too long to open again as a link: the address bar drops the query (the settings are saved).
      const url = fitsInLink(query) ? `?${query}` : window.location.pathname;
      if (url !== `${window.location.search}`) {
        // Back and Forward may now land on a link: its opener is fetched before they are pressed.
        if (mode === 'push') void loadLinkOpener().catch(() => undefined);
        if (mode === 'push') window.history.pushState(null, '', url);
        else window.history.replaceState(null, '', url);
      }
      if (edited && saving) save(storage, config, s.experiment);
    };

    const unsubscribe = api.subscribe((s, prev) => {
      if (fromHistory) return;
      const inputs =
        s.limiters !== prev.limiters ||
        s.scenario !== prev.scenario ||
        s.untilMs !== prev.untilMs ||
        s.mode !== prev.mode ||
        s.experiment !== prev.experiment;
      if (inputs) {
        // The entry this edit leaves holds the clock where the edit found it (a playing clock's
        // ticks, or a write still waiting, were not in it), so Back returns to that moment.
        if (pushTimer === undefined && (prev.playing || replaceTimer !== undefined))
          write('replace', prev, false);
        edited = true;
        // The saved settings follow every edit at once, not with the history entry: a browser
        // closed (or killed) within PUSH_AFTER_MS of the last edit opens with it. One save for
        // the edits of one task (a click that sets the traffic, the run's length and the clock).
        if (!savePending) {
          savePending = true;
          queueMicrotask(() => {
            savePending = false;
            const now = api.getState();
            save(storage, configOf(now), now.experiment);
          });
        }
        clearTimeout(pushTimer);
        clearTimeout(replaceTimer);
        replaceTimer = undefined;
        pushTimer = setTimeout(() => {
          pushTimer = undefined;
          write('push');
        }, PUSH_AFTER_MS);
      } else if (
        pushTimer === undefined &&
        (s.tMs !== prev.tMs ||
          s.playing !== prev.playing ||
          s.speed !== prev.speed ||
          s.selected !== prev.selected)
      ) {
        // A playing clock's ticks are not written: each write encodes the whole config and
        // replaces the history entry (replaceState alone took 0.7–2 ms in the pinned Chromium),
        // and written once a second it put one frame a second among a playing page's slowest 5 %
        // (top-of-page CPU per frame p95 6.3 → 5.1 ms without it, 4 paired rounds).
        // The address bar catches up when the clock stops and when the page is hidden; "Copy link"
        // makes the link to the moment on the screen.
        if (s.playing && prev.playing && s.speed === prev.speed && s.selected === prev.selected)
          return;
        // The clock stopping cuts a pending write short.
        const stopped = prev.playing && !s.playing;
        if (replaceTimer !== undefined && !stopped) return;
        clearTimeout(replaceTimer);
        replaceTimer = setTimeout(() => {
          replaceTimer = undefined;
          write('replace');
        }, REPLACE_EVERY_MS);
      }
    });

    // Hidden (another tab, the app switched) or left: a write still waiting, or the playing
    // clock's time, now; nothing when there is neither (a link opened and left alone stays as it
    // came). A page being left replaces its entry: no history entry is pushed while it unloads.
    // (A reload while playing may still load the address as it was: browsers read it before
    // `pagehide` comes.)
    const flush = (mode: 'push' | 'replace') => {
      if (fromHistory) return;
      const push = pushTimer !== undefined;
      if (!push && replaceTimer === undefined && !api.getState().playing) return;
      clearTimeout(pushTimer);
      clearTimeout(replaceTimer);
      pushTimer = replaceTimer = undefined;
      write(push ? mode : 'replace');
    };
    const onVisibility = () => {
      if (document.visibilityState === 'hidden') flush('push');
    };
    const onPageHide = () => flush('replace');
    document.addEventListener('visibilitychange', onVisibility);
    window.addEventListener('pagehide', onPageHide);

    // Each Back or Forward; an entry's opener still loading is dropped when another comes.
    let pops = 0;
    const onPop = () => {
      clearTimeout(pushTimer);
      clearTimeout(replaceTimer);
      pushTimer = replaceTimer = undefined;
      pops += 1;
      const mine = pops;
      const search = window.location.search;
      const apply = (start: Start) => {
        if (mine !== pops) return;
        fromHistory = true;
        try {
          applyStart(api, start);
        } finally {
          fromHistory = false;
        }
      };
      if (!startNeeds(search, null).link) {
        apply(startFrom(search, null, null, null));
        return;
      }
      // A link's config needs its opener (fetched at the first edit, so it is usually here).
      void loadLinkOpener().then(
        (openLink) => apply(startFrom(search, null, null, openLink)),
        () => apply(startFrom(search, null, null, null)),
      );
    };
    window.addEventListener('popstate', onPop);
    return () => {
      unsubscribe();
      window.removeEventListener('popstate', onPop);
      document.removeEventListener('visibilitychange', onVisibility);
      window.removeEventListener('pagehide', onPageHide);
      clearTimeout(pushTimer);
      clearTimeout(replaceTimer);
    };
  }, [api, start, storage]);
}
