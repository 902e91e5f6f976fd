// @vitest-environment jsdom
/**
 * Untrusted text shown by the page's smaller parts goes through quoteText / safeText: a dropped
 * file's name (PageDrop), a log's key (Inspector), what a gateway sent and where (VerdictView), a
 * result file's name and a key header's name (ProbePart), and the name of the log a link replays
 * (TraceOverview). Each is given a bidi override, a NUL, a newline and 10,000 characters; none may
 * reach the page as itself.
 */
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import type { ReactNode } from 'react';
import type { AlgorithmConfig } from '../../src/core';
import type { ProbeResult } from '../../src/probe';
import { MAX_RESULT_CHARS, judge } from '../../src/probe';
import type { TraceSource } from '../../src/sim';
import { createPlaygroundStore, defaultInputs, simulationOf } from '../../src/store';
import type { PlaygroundStoreApi } from '../../src/store';
import { PlaygroundProvider } from '../../src/store/react';
import { traceLoadStore } from '../../src/store/traceReact';
import { setLoadedTrace } from '../../src/store/traceSim';
import { holdTrace, traceHash } from '../../src/trace';
import type { BuiltTrace } from '../../src/trace';
import { Inspector } from '../../src/ui/inspector/Inspector';
import { ProbePart } from '../../src/ui/probe/ProbePart';
import { VerdictView } from '../../src/ui/probe/VerdictView';
import { TraceOverview } from '../../src/ui/stage/TraceOverview';
import { PageDrop } from '../../src/ui/traffic/PageDrop';
import { NGINX, fakeRun, linkOf, planOf } from '../probe/fake';
import { stubResizeObserver } from './fixtures';

/** A bidi override, a NUL, a newline and 10,000 characters. */
const EVIL = `\u202Eevil\u0000name\n${'x'.repeat(10_000)}`;
/** The escapes quoteText writes for EVIL's start. */
const ESCAPED = '\\u202Eevil\\u0000name\\u000A';
/** EVIL as quoteText shows it (40 code points, then …). */
const EVIL_SHOWN = `"${ESCAPED}${'x'.repeat(29)}…"`;

const FIXED: AlgorithmConfig = { kind: 'fixed-window', limit: 2, windowMs: 1000 };

/** No raw bidi or control character, and no run of the filler longer than `longest`. */
function expectNoRawText(root: HTMLElement, longest = 40) {
  const text = root.textContent ?? '';
  expect(text).not.toContain('\u202E');
  expect(text).not.toContain('\u0000');
  expect(text).not.toContain('x'.repeat(longest + 1));
}

function withStore(store: PlaygroundStoreApi, ui: ReactNode) {
  return render(<PlaygroundProvider store={store}>{ui}</PlaygroundProvider>);
}

/** A Worker that takes messages and never answers (jsdom has none). */
class SilentWorker {
  onmessage: ((e: MessageEvent) => void) | null = null;
  onerror: ((e: ErrorEvent) => void) | null = null;
  postMessage(): void {}
  terminate(): void {}
}

beforeAll(stubResizeObserver);

const initialLoad = traceLoadStore().getState();
beforeEach(() => traceLoadStore().setState(initialLoad, true));
afterEach(() => {
  cleanup();
  setLoadedTrace(null);
  vi.unstubAllGlobals();
});

describe('PageDrop', () => {
  it('quotes the name of the first of several dropped files', () => {
    const load = vi.fn();
    traceLoadStore().setState({ load });
    const { container } = render(<PageDrop />);
    const files = [new File(['a'], EVIL), new File(['b'], 'second.log')];
    const drop = new Event('drop', { bubbles: true, cancelable: true });
    Object.defineProperty(drop, 'dataTransfer', { value: { types: ['Files'], files } });
    act(() => {
      document.dispatchEvent(drop);
    });
    expect(load).toHaveBeenCalledWith(files[0]);
    expect(screen.getByRole('status').textContent).toBe(
      `2 files were dropped; ${EVIL_SHOWN}, the first, is read.`,
    );
    expectNoRawText(container);
  });
});

describe('Inspector', () => {
  it("shows a replayed log's key escaped and cut", () => {
    const keys = [EVIL, '10.0.0.1'];
    const timeMs = Int32Array.from([0, 1, 2]);
    const keyId = Uint32Array.from([0, 1, 0]);
    const hash = traceHash(timeMs, keyId, keys);
    setLoadedTrace({ hash, timeMs, keyId, keys });
    const inputs = defaultInputs();
    inputs.limiters = [{ config: FIXED }];
    inputs.untilMs = 1000;
    inputs.scenario = {
      ...inputs.scenario,
      sources: [{ kind: 'trace', name: 'a.log', bytes: 300, requests: 3, hash }],
    };
    const store = createPlaygroundStore(inputs);
    act(() => store.getState().select({ lane: 0, row: 0 }));
    const sim = simulationOf(store.getState());
    if (!sim.ok) throw new Error(`expected a valid run: ${sim.issues[0]?.message}`);
    const { container } = withStore(store, <Inspector result={sim.result} />);
    const inspector = screen.getByTestId('inspector');
    // The key is cut at 120 code points (the escapes stand for 11 of them).
    expect(inspector.textContent).toContain(`${ESCAPED}${'x'.repeat(120 - 11)}…`);
    expectNoRawText(container, 120);
  });
});

describe('VerdictView', () => {
  const link = linkOf(NGINX);
  const plan = planOf(link);

  it("quotes the gateway's rate-limit headers and the target URL", () => {
    const sent = fakeRun(plan, link, {
      headers: () => [
        ['X-RateLimit-Remaining', EVIL],
        [`RateLimit-${EVIL}`, '1'],
      ],
    });
    const result: ProbeResult = { ...sent, target: { ...sent.target, url: EVIL } };
    const { container } = render(
      <VerdictView plan={plan} result={result} verdict={judge(plan, result)} />,
    );
    const compare = container.querySelector('.probe-compare') as HTMLElement;
    // A header value is cut at 120 code points, its name at 40.
    expect(compare.textContent).toContain(`X-RateLimit-Remaining: ${ESCAPED}${'x'.repeat(109)}…`);
    expect(compare.textContent).toContain(`RateLimit-${ESCAPED}${'x'.repeat(19)}…: 1`);
    expect(container.querySelector('.probe-run-info code')?.textContent).toBe(EVIL_SHOWN);
    expectNoRawText(container, 120);
  });

  it("quotes an error's own words", () => {
    const sent = fakeRun(plan, link);
    // Every request reset, so the one shown first is one of them.
    const result: ProbeResult = {
      ...sent,
      requests: sent.requests.map((r) => ({
        ...r,
        status: null,
        firstByteMs: null,
        error: 'reset',
        detail: EVIL,
      })),
    };
    const { container } = render(
      <VerdictView plan={plan} result={result} verdict={judge(plan, result)} />,
    );
    expect(container.querySelector('.probe-compare')?.textContent).toContain(
      `no answer: connection reset (${EVIL_SHOWN})`,
    );
    expectNoRawText(container);
  });
});

describe('ProbePart', () => {
  function renderPart() {
    const inputs = defaultInputs();
    inputs.limiters = [NGINX];
    return withStore(createPlaygroundStore(inputs), <ProbePart />);
  }
  function choose(file: File) {
    const input = screen.getByTestId('probe-file');
    Object.defineProperty(input, 'files', { value: [file], configurable: true });
    fireEvent.change(input);
  }

  it('quotes the name of a result file too large to read', () => {
    const { container } = renderPart();
    const file = new File(['{}'], EVIL);
    Object.defineProperty(file, 'size', { value: MAX_RESULT_CHARS * 4 + 1 });
    choose(file);
    expect(screen.getByRole('alert').textContent).toBe(
      `${EVIL_SHOWN} is ${((MAX_RESULT_CHARS * 4 + 1) / 1e6).toFixed(1)} MB; a probe result is at most ${MAX_RESULT_CHARS / 1e6} MB.`,
    );
    expectNoRawText(container);
  });

  it('quotes the name of the result file being judged', () => {
    vi.stubGlobal('Worker', SilentWorker);
    const { container } = renderPart();
    choose(new File(['{}'], EVIL));
    expect(screen.getByText(`Judging ${EVIL_SHOWN}…`)).toBeTruthy();
    expectNoRawText(container);
  });

  it('quotes a key header name it cannot use', () => {
    const { container } = renderPart();
    fireEvent.change(screen.getByRole('combobox', { name: 'Key' }), {
      target: { value: 'header' },
    });
    fireEvent.change(screen.getByRole('textbox', { name: 'Header' }), {
      target: { value: EVIL },
    });
    // A text field drops the newline; the name is cut at 64 code points.
    expect(screen.getByRole('alert').textContent).toContain(
      `got "\\u202Eevil\\u0000name${'x'.repeat(64 - 10)}…"`,
    );
    expectNoRawText(container, 64);
  });
});

describe('TraceOverview', () => {
  it('shows the name of the log a link replays escaped and cut', () => {
    const count = 3;
    const built: BuiltTrace = {
      name: 'a.log',
      count,
      arrivalMs: Float64Array.from({ length: count }, (_, i) => 1_700_000_000_000 + i * 1000),
      keyId: new Uint32Array(count),
      keys: ['10.0.0.1'],
      cost: new Uint16Array(count).fill(1),
      status: new Uint16Array(count).fill(200),
      keySpec: [{ kind: 'client' }],
      natHints: [],
      report: {
        format: 'nginx',
        formatName: 'nginx combined',
        lines: count,
        malformed: 0,
        malformedFirst: [],
        outOfOrder: 0,
        maxBackstepMs: 0,
        resolutionMs: 1,
        timeSource: 'arrival = $time_local',
        notes: [],
      },
    };
    const { held, replay } = holdTrace(built);
    if (!replay.ok) throw new Error('expected a replayable trace');
    const hash = replay.hash;
    act(() =>
      traceLoadStore().setState({
        trace: held,
        replay: { hash, timeMs: new Int32Array(count), keyId: held.keyId, keys: held.keys },
      }),
    );
    const source: TraceSource = { kind: 'trace', name: EVIL, bytes: 300, requests: count, hash };
    const inputs = defaultInputs();
    inputs.limiters = [{ config: FIXED }];
    inputs.scenario = { ...inputs.scenario, sources: [source] };
    const { container } = withStore(createPlaygroundStore(inputs), <TraceOverview />);
    const heading = screen.getByRole('heading', { level: 2 });
    expect(heading.textContent).toBe(`The whole log · ${ESCAPED}${'x'.repeat(29)}…`);
    expectNoRawText(container);
  });
});
