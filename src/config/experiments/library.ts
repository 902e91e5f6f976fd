/**
 * The experiment library: presets that each pose a question, say what to look at,
 * and answer it with numbers measured from the simulation — never with text written by hand.
 *
 * Pure TypeScript on core and sim. `ExperimentInputs` has the shape of the store's
 * `PlaygroundInputs` (the store imports config, not the other way round), so an experiment's inputs
 * load straight into the store.
 *
 * `measure(result)` reads the run it is given, so it follows the person's edits: tweak a preset and
 * the answer is re-measured on the tweaked run. Where one run cannot hold the comparison (the
 * simulator has one retry policy, one deployment, one keying and one clock per run), the
 * experiment has `variants`, and `measure` simulates every variant itself from the run's limiters
 * and scenario with only that one part replaced. Every run is small (≤ 30 s virtual, ≤ 2,000
 * requests), so measuring them all takes milliseconds.
 */
import type { Experiment } from './define';
import { boundaryBurst } from './boundary-burst';
import { steadyOverload } from './steady-overload';
import { pageLoad } from './page-load';
import { nginxBurst } from './nginx-burst';
import { queueVsEdge } from './queue-vs-edge';
import { retryStorm } from './retry-storm';
import { emptyVsFull } from './empty-vs-full';
import { slidingLogMemory } from './sliding-log-memory';
import { natKey } from './nat-one-key';
import { instances } from './instances';
import { clockJump } from './clock-jump';
import { envoyRefill } from './envoy-refill';
import { fleetSkew } from './fleet-skew';
import { fleetScaleOut } from './fleet-scale-out';
import { fleetStoreDown } from './fleet-store-down';
import { leavingIngressNginx } from './leaving-ingress-nginx';

/** The library, in the order it is shown. */
export const EXPERIMENTS: readonly Experiment[] = [
  boundaryBurst,
  steadyOverload,
  pageLoad,
  nginxBurst,
  queueVsEdge,
  retryStorm,
  emptyVsFull,
  slidingLogMemory,
  natKey,
  instances,
  clockJump,
  envoyRefill,
  fleetSkew,
  fleetScaleOut,
  fleetStoreDown,
  leavingIngressNginx,
];
