/**
 * The parts of the page that are chunks of their own (issue 11: initial JavaScript ≤ 160 kB gzip).
 * `main.tsx` fetches the ones its start shows before the first render (an experiment's card, the
 * link's problems); the experiments menu otherwise arrives just after the first paint behind a
 * placeholder of its own shape, and the rest are fetched when the page is idle (see `App`).
 */
import { lazyPart } from '../common/lazyPart';

export const ExperimentsMenu = lazyPart(
  () => import('../experiments/ExperimentsMenu').then((m) => m.ExperimentsMenu),
  'experiments',
);
export const Inspector = lazyPart(
  () => import('../inspector/Inspector').then((m) => m.Inspector),
  'inspector',
);
export const ComparePanel = lazyPart(
  () => import('../compare/ComparePanel').then((m) => m.ComparePanel),
  'comparison',
);
export const FleetPanel = lazyPart(
  () => import('../stage/FleetPanel').then((m) => m.FleetPanel),
  'fleet panel',
);
export const LinkProblems = lazyPart(
  () => import('../share/LinkProblems').then((m) => m.LinkProblems),
  'list of link problems',
);
export const DownloadMenu = lazyPart(
  () => import('../share/DownloadMenu').then((m) => m.DownloadMenu),
  'download menu',
);
export const HelpOverlay = lazyPart(
  () => import('./HelpOverlay').then((m) => m.HelpOverlay),
  'shortcuts',
);
// Shown only when a cap cut the run or its traffic needs a word, and when a scenario cannot run:
// rare, and prose-heavy (issue 11 made room in the initial JavaScript with these).
export const RunNotice = lazyPart(
  () => import('./RunNotice').then((m) => m.RunNotice),
  'note on this run',
);
export const SimulationProblems = lazyPart(
  () => import('./SimulationProblems').then((m) => m.SimulationProblems),
  'list of problems',
);
