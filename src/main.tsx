import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import '@fontsource/inter/400.css';
import '@fontsource/inter/600.css';
import '@fontsource/jetbrains-mono/400.css';
import './ui/app/styles.css';
// The views' styles (src/viz/index.ts imports them too; the page imports view modules directly so
// that each algorithm view can be a chunk of its own).
import './viz/viz.css';
import { createPlaygroundStore } from './store';
import { PlaygroundProvider } from './store/react';
import { App } from './ui/app/App';
import { PanelBoundary } from './ui/common/PanelBoundary';
import { OPEN_MEASURE, startFrom, startNeeds } from './ui/share/session';
import { loadLinkOpener } from './ui/share/linkOpener';
import { loadExperiments } from './config/experiments/registry';
import { currentTheme } from './ui/app/theme';
import { applyStart } from './ui/share/useUrlSync';
import { preloadViews } from './ui/stage/views';
import { ComparePanel, ExperimentsMenu, FleetPanel, Inspector, LinkProblems } from './ui/app/parts';
import { isFleet } from './sim/fleet';

/** localStorage, or null where reading it throws (some private windows, sandboxed iframes). */
function storageOrNull(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

/**
 * Decides the start, fetches the chunks its first render needs, then renders. Not a top-level
 * await: the chunks import modules of the entry's own chunk, and a dynamic import made while that
 * chunk is still evaluating (suspended at a top-level await) would wait on it forever.
 */
async function boot(root: HTMLElement): Promise<void> {
  const storage = storageOrNull();
  // The experiment library is a chunk of its own: a start that names an experiment waits for it,
  // so the first render is already the experiment's exact run. So is the opening of saved settings
  // (their record is checked before it is parsed).
  const needs = startNeeds(window.location.search, storage);
  // So is the opener of a link's config (the link decoder and the repair of untrusted input),
  // fetched beside the experiment library.
  const [openLink] = await Promise.all([
    needs.link ? loadLinkOpener().catch(() => null) : null,
    needs.experiments
      ? Promise.all([loadExperiments().catch(() => []), ExperimentsMenu.preload()])
      : null,
  ]);
  const openSaved = needs.saved
    ? await import('./ui/share/openSaved').then((m) => m.openSaved).catch(() => null)
    : null;
  // Reading the link or the saved settings (decode and repair, ≤ 50 ms whatever they
  // hold), recorded as a performance measure the hostile-input bench and e2e test read.
  const opening = performance.now();
  const start = startFrom(window.location.search, storage, openSaved, openLink);
  performance.measure(OPEN_MEASURE, { start: opening });
  const store = createPlaygroundStore();
  applyStart(store, start);
  // The views of the kinds the page opens with, and the parts it shows at once, before the first
  // render (each is a chunk of its own, fetched side by side): the first paint draws them, never a
  // placeholder. A failed fetch draws a message in its place.
  const opened = store.getState();
  await Promise.all([
    preloadViews(opened.limiters.map((l) => l.config.kind)),
    start.problems.length > 0 ? LinkProblems.preload() : null,
    opened.selected !== null && !start.embed ? Inspector.preload() : null,
    opened.mode === 'compare' && opened.limiters.length > 1 ? ComparePanel.preload() : null,
    isFleet(opened.scenario.deployment) ? FleetPanel.preload() : null,
  ]);
  createRoot(root).render(
    <StrictMode>
      <PanelBoundary what="page">
        <PlaygroundProvider store={store}>
          <App start={start} storage={storage} />
        </PlaygroundProvider>
      </PanelBoundary>
    </StrictMode>,
  );
}

// The theme before the first paint, so a dark page never flashes light.
document.documentElement.dataset.theme = currentTheme();
const root = document.getElementById('root');
if (root === null) throw new Error('index.html has no #root element');
void boot(root);
