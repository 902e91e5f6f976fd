// @vitest-environment jsdom
/**
 * a worker's large result is drawn in a transition (React renders it in slices that
 * yield to input). Until that render commits, every other render draws what was drawn before, and
 * "updating" stays up; a result computed in place (a small edit) is drawn at once, and so is a
 * worker's result of one lane of at most URGENT_ROWS rows (its render is one short task).
 */
import { act, cleanup, render } from '@testing-library/react';
import { useEffect, useState } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { lastRun, rememberOutcome } from '../../src/store/derived';
import type { RunInputs, SimOutcome } from '../../src/store/derived';
import { URGENT_ROWS, arrivalsOf } from '../../src/store/react';
import type { SimRunner, SimStatus } from '../../src/store/simRunner';
import { defaultInputs } from '../../src/store';

afterEach(cleanup);

const IDLE: SimStatus = { pending: false, progress: null };

/** The part of a SimRunner the arrivals read: a version, a status, listeners. */
class FakeRunner {
  version = 0;
  status: SimStatus = IDLE;
  private readonly listeners = new Set<() => void>();
  readonly subscribe = (l: () => void) => {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  };
  readonly getVersion = () => this.version;
  readonly getStatus = () => this.status;
  private notify() {
    for (const l of this.listeners) l();
  }
  progress(fraction: number) {
    this.status = { pending: true, progress: fraction };
    this.notify();
  }
  /** As SimRunner.answer does: the outcome kept for the inputs, then a new version, idle. */
  deliver(inputs: RunInputs, outcome: SimOutcome) {
    rememberOutcome(inputs, outcome);
    this.version += 1;
    this.status = IDLE;
    this.notify();
  }
}

const outcome = (): SimOutcome => ({ ok: false, issues: [] });
/** An outcome of `lanes` lanes of `rows` rows each: only those are read. */
const sized = (rows: number, lanes = 1): SimOutcome =>
  ({
    ok: true,
    result: { lanes: Array.from({ length: lanes }, () => ({ columns: { rows } })) },
  }) as unknown as SimOutcome;
const inputs = (): RunInputs => {
  const d = defaultInputs();
  return { limiters: [...d.limiters], scenario: d.scenario, untilMs: d.untilMs };
};

function setUp() {
  const runner = new FakeRunner();
  return { runner, arrived: arrivalsOf(runner as unknown as SimRunner) };
}

describe('arrivals of worker results', () => {
  it('draws the previous outcome until a render has taken the version that brought the new one', () => {
    const { runner, arrived } = setUp();
    const before = outcome();
    expect(arrived.hold(before, 0)).toBe(before);
    arrived.committed(before, 0);
    const brought = outcome();
    runner.deliver(inputs(), brought);
    expect(lastRun()?.outcome).toBe(brought);
    // A render that has not taken version 1 (a sync render while the transition renders).
    expect(arrived.hold(brought, 0)).toBe(before);
    // The transition's render.
    expect(arrived.hold(brought, 1)).toBe(brought);
    // Anything else (a small edit computed in place) is drawn at once, whatever the version.
    const inPlace = outcome();
    expect(arrived.hold(inPlace, 0)).toBe(inPlace);
  });

  it('keeps "updating" up until the new outcome is committed', () => {
    const { runner, arrived } = setUp();
    const seen: SimStatus[] = [];
    arrived.subscribe(() => seen.push(arrived.getStatus()));
    arrived.committed(outcome(), 0);
    runner.progress(0.5);
    expect(arrived.getStatus()).toEqual({ pending: true, progress: 0.5 });
    const brought = outcome();
    runner.deliver(inputs(), brought);
    // The worker is done; the page is still drawing the previous outcome.
    expect(runner.getStatus().pending).toBe(false);
    expect(arrived.getStatus()).toEqual({ pending: true, progress: 1 });
    arrived.committed(arrived.hold(brought, 0), 0);
    expect(arrived.getStatus().pending).toBe(true);
    arrived.committed(brought, 1);
    expect(arrived.getStatus()).toBe(IDLE);
    expect(seen.at(-1)).toBe(IDLE);
  });

  it('follows new versions (not progress), taking each once', () => {
    const { runner, arrived } = setUp();
    const taken: number[] = [];
    const stop = arrived.follow(0, (v) => taken.push(v));
    runner.progress(0.3);
    expect(taken).toEqual([]);
    runner.deliver(inputs(), outcome());
    runner.progress(0.1);
    runner.deliver(inputs(), outcome());
    expect(taken).toEqual([1, 2]);
    stop();
    runner.deliver(inputs(), outcome());
    expect(taken).toEqual([1, 2]);
    // A version that came before the hook followed is taken at once.
    const late: number[] = [];
    arrived.follow(1, (v) => late.push(v))();
    expect(late).toEqual([3]);
  });

  /**
   * A Probe component that follows the arrivals as useSimulation does, and a delivery of
   * `brought` with an urgent re-render in the same task; returns what each render drew and with
   * which tick (0 before the delivery, 1 for the urgent re-render).
   */
  async function deliverWhileRendering(brought: SimOutcome) {
    const { runner, arrived } = setUp();
    const drawn: Array<SimOutcome | null> = [];
    const ticks: number[] = [];
    const first = outcome();
    rememberOutcome(inputs(), first);
    let rerender: () => void = () => {};
    function Probe({ tick }: { tick: number }) {
      const [taken, take] = useState(runner.getVersion);
      useEffect(() => arrived.follow(taken, take), [taken]);
      const shown = arrived.hold(lastRun()?.outcome ?? first, taken);
      useEffect(() => arrived.committed(shown, taken), [shown, taken]);
      drawn.push(shown);
      ticks.push(tick);
      return <p data-tick={tick}>{taken}</p>;
    }
    const view = render(<Probe tick={0} />);
    rerender = () => view.rerender(<Probe tick={1} />);
    await act(async () => {
      runner.deliver(inputs(), brought);
      // An urgent render in the same task, before React gets to the transition.
      rerender();
      await Promise.resolve();
    });
    expect(arrived.getStatus()).toBe(IDLE);
    return { first, drawn, ticks };
  }

  it('in a React tree: several lanes, or one of more than URGENT_ROWS rows, are drawn in a transition', async () => {
    for (const brought of [sized(URGENT_ROWS + 1), sized(10, 2)]) {
      await drawnInTransition(brought);
      cleanup();
    }
  });

  async function drawnInTransition(brought: SimOutcome) {
    const { first, drawn, ticks } = await deliverWhileRendering(brought);
    const i = drawn.indexOf(brought);
    // The urgent render (tick 1) came before the transition's, and drew the first outcome.
    expect(ticks.indexOf(1)).toBeGreaterThan(0);
    expect(ticks.indexOf(1)).toBeLessThan(i);
    // Every render before the new outcome drew the first one.
    expect(drawn.slice(0, i).every((o) => o === first)).toBe(true);
    expect(drawn.at(-1)).toBe(brought);
  }

  it('in a React tree: one lane of at most URGENT_ROWS rows is drawn by the next render', async () => {
    for (const brought of [sized(URGENT_ROWS), outcome()]) {
      const { first, drawn, ticks } = await deliverWhileRendering(brought);
      // Tick 0 drew the first outcome; the urgent re-render (tick 1) already draws the new one.
      expect(drawn[0]).toBe(first);
      expect(drawn.slice(1).length).toBeGreaterThan(0);
      expect(drawn.slice(1).every((o) => o === brought)).toBe(true);
      expect(ticks.at(-1)).toBe(1);
      cleanup();
    }
  });
});
