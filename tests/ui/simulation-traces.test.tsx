// @vitest-environment jsdom
/**
 * The stage's simulation and a loaded access log: a scenario that replays the log is drawn again
 * when a log loads or goes (its run changes), and a scenario that replays none is not (its run is
 * the same; a render would only join the task that shows the log's summary).
 */
import { act, cleanup, render } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { AlgorithmConfig } from '../../src/core';
import type { Scenario, SimTrace } from '../../src/sim';
import { createPlaygroundStore, defaultInputs } from '../../src/store';
import { PlaygroundProvider, useSimulation } from '../../src/store/react';
import { setLoadedTrace } from '../../src/store/traceSim';
import { traceHash } from '../../src/trace';

afterEach(() => {
  cleanup();
  act(() => setLoadedTrace(null));
});

const FIXED: AlgorithmConfig = { kind: 'fixed-window', limit: 2, windowMs: 1000 };

/** A log of three requests from two addresses. */
function aLog(): SimTrace {
  const keys = ['10.0.0.1', '10.0.0.2'];
  const timeMs = Int32Array.from([0, 1, 2]);
  const keyId = Uint32Array.from([0, 1, 0]);
  return { hash: traceHash(timeMs, keyId, keys), timeMs, keyId, keys };
}

/** Renders a part that reads the simulation; returns how many times it has rendered so far. */
function stage(inputs: ReturnType<typeof defaultInputs>): () => number {
  let renders = 0;
  function Probe() {
    useSimulation();
    renders += 1;
    return null;
  }
  render(
    <PlaygroundProvider store={createPlaygroundStore(inputs)}>
      <Probe />
    </PlaygroundProvider>,
  );
  return () => renders;
}

/** The default inputs with one fixed window, one second long, fed by `sources`. */
function inputsWith(sources: Scenario['sources']): ReturnType<typeof defaultInputs> {
  const inputs = defaultInputs();
  inputs.limiters = [{ config: FIXED }];
  inputs.untilMs = 1000;
  inputs.scenario = { ...inputs.scenario, sources };
  return inputs;
}

describe('useSimulation and a loaded log', () => {
  it('does not draw a scenario that replays no log again when a log loads or goes', () => {
    const renders = stage(inputsWith([{ kind: 'burst', atMs: 0, count: 3 }]));
    const before = renders();
    act(() => setLoadedTrace(aLog()));
    act(() => setLoadedTrace(null));
    expect(renders()).toBe(before);
  });

  it('draws a scenario that replays the log again when it loads', () => {
    const log = aLog();
    const renders = stage(
      inputsWith([{ kind: 'trace', name: 'a.log', bytes: 30, requests: 3, hash: log.hash }]),
    );
    const before = renders();
    act(() => setLoadedTrace(log));
    expect(renders()).toBeGreaterThan(before);
  });
});
