// @vitest-environment jsdom
/**
 * What a log holds is shown as data: file names, keys, clients and a link's log name go through
 * quoteText (cut to 40 characters, control and bidi characters written as escapes), and every list
 * of keys or malformed lines says how much of the whole it shows.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { act, cleanup, render, screen, within } from '@testing-library/react';
import type { AlgorithmConfig } from '../../src/core';
import type { Scenario } from '../../src/sim';
import { createPlaygroundStore, defaultInputs } from '../../src/store';
import { PlaygroundProvider } from '../../src/store/react';
import { traceLoadStore } from '../../src/store/traceReact';
import { holdTrace } from '../../src/trace';
import type { BuiltTrace } from '../../src/trace';
import { TracePanel } from '../../src/ui/traffic/TracePanel';

/** A bidi override, a NUL, a newline and 10,000 characters: none may reach the page as itself. */
const EVIL = `\u202Eevil\u0000name\n${'x'.repeat(10_000)}`;
/** What quoteText shows of it. */
const EVIL_SHOWN = `"\\u202Eevil\\u0000name\\u000A${'x'.repeat(29)}…"`;

const FIXED: AlgorithmConfig = { kind: 'fixed-window', limit: 2, windowMs: 1000 };

/**
 * `keyCount` keys (the first the hostile one) sending 3 requests each, 1 ms apart, round after
 * round, and the hostile key one more at the end; 1,204 malformed lines.
 */
function built(keyCount: number): BuiltTrace {
  const keys = [EVIL, ...Array.from({ length: keyCount - 1 }, (_, i) => `10.0.0.${i}`)];
  const count = keyCount * 3 + 1;
  return {
    name: `${EVIL}.log`,
    count,
    arrivalMs: Float64Array.from({ length: count }, (_, i) => 1_700_000_000_000 + i),
    keyId: Uint32Array.from({ length: count }, (_, i) => (i < count - 1 ? i % keyCount : 0)),
    keys,
    cost: new Uint16Array(count).fill(1),
    status: new Uint16Array(count).fill(200),
    keySpec: [{ kind: 'client' }],
    natHints: [{ client: EVIL, userAgents: 70, requests: 3 }],
    report: {
      format: 'nginx',
      formatName: 'nginx combined',
      lines: count + 1_204,
      malformed: 1_204,
      malformedFirst: Array.from({ length: 20 }, (_, i) => ({
        line: i + 1,
        reason: `$status ${'"9"'} is not an HTTP status ${i}`,
      })),
      outOfOrder: 0,
      maxBackstepMs: 0,
      resolutionMs: 1,
      timeSource: 'arrival = $time_local',
      notes: [],
    },
  };
}

function renderPanel(sources: Scenario['sources'] = []) {
  const inputs = defaultInputs();
  inputs.limiters = [{ config: FIXED }];
  if (sources.length > 0) inputs.scenario = { ...inputs.scenario, sources };
  return render(
    <PlaygroundProvider store={createPlaygroundStore(inputs)}>
      <TracePanel />
    </PlaygroundProvider>,
  );
}

/** No raw control, bidi or over-long text anywhere in what the panel shows. */
function expectNoRawText(root: HTMLElement) {
  const text = root.textContent ?? '';
  expect(text).not.toContain('\u202E');
  expect(text).not.toContain('\u0000');
  expect(text).not.toContain('x'.repeat(41));
}

const initial = traceLoadStore().getState();
beforeEach(() => traceLoadStore().setState(initial, true));
afterEach(cleanup);

describe('the trace panel shows what a log holds as quoted data', () => {
  it('quotes the file name, the top keys, the worst key and NAT clients', () => {
    const held = holdTrace(built(60)).held;
    act(() => traceLoadStore().setState({ trace: held }));
    const { container } = renderPanel();
    const summary = screen.getByTestId('trace-summary');
    expect(within(summary).getByText(EVIL_SHOWN, { selector: 'strong' })).toBeTruthy();
    const top = container.querySelector('.trace-top-keys') as HTMLElement;
    expect(top.querySelector('tbody td')?.textContent).toBe(EVIL_SHOWN);
    expect(screen.getByTestId('trace-nat').textContent).toContain(
      `${EVIL_SHOWN} (70+ user agents)`,
    );
    expect(screen.getByTestId('trace-window-stats').textContent).toContain(`(${EVIL_SHOWN})`);
    expectNoRawText(container);
  });

  it('counts the keys it ranks, and the requests with no key on their own', () => {
    // Five addresses and the empty key (`-`, no X-Forwarded-For): 3 requests each, round after round.
    const trace = built(6);
    const keys = ['-', '203.0.113.1', '203.0.113.2', '203.0.113.3', '203.0.113.4', '203.0.113.5'];
    const held = holdTrace({ ...trace, keys, keySpec: [{ kind: 'xff-first' }] }).held;
    act(() => traceLoadStore().setState({ trace: held }));
    const { container } = renderPanel();
    expect(screen.getByTestId('trace-keys').textContent).toBe('5');
    expect(screen.getByTestId('trace-summary').textContent).toContain(
      '5 keys by first X-Forwarded-For hop, and 4 requests with no X-Forwarded-For.',
    );
    expect(container.querySelector('.trace-top-keys caption')?.textContent).toBe('Keys by volume');
    expect(container.querySelectorAll('.trace-top-keys tbody tr')).toHaveLength(5);
  });

  it('says how much of each list it shows', () => {
    const held = holdTrace(built(60)).held;
    act(() => traceLoadStore().setState({ trace: held }));
    const { container } = renderPanel();
    expect(container.querySelector('.trace-top-keys caption')?.textContent).toBe(
      'Top 5 keys by volume, of 60',
    );
    const malformed = screen.getByTestId('trace-malformed');
    expect(malformed.querySelectorAll('li')).toHaveLength(10);
    expect(malformed.closest('details')?.querySelector('summary')?.textContent).toBe(
      '1,204 malformed lines (the first 10 of 1,204)',
    );
  });

  it('quotes the name of the file being read', () => {
    act(() =>
      traceLoadStore().setState({
        status: {
          kind: 'loading',
          fileName: EVIL,
          bytes: 10,
          total: 100,
          requests: 3,
          lines: 3,
          malformed: 0,
        },
      }),
    );
    const { container } = renderPanel();
    expect(screen.getByTestId('trace-progress').textContent).toContain(`${EVIL_SHOWN}: 3 requests`);
    expectNoRawText(container);
  });

  it("quotes keys in the dry run's lists and says how much of each it shows", async () => {
    const held = holdTrace(built(60)).held;
    act(() => traceLoadStore().setState({ trace: held }));
    const { container } = renderPanel();
    // Without a Worker (jsdom) the dry run runs on the page, after a timer.
    const counts = await screen.findByTestId('trace-dry-run-counts');
    // Each key's third request in the same second, and the hostile key's fourth, are rejected.
    expect(counts.textContent).toContain('Changes: 61 allowed → rejected');
    const byKey = container.querySelector('.trace-dry-run-keys') as HTMLElement;
    expect(byKey.querySelector('caption')?.textContent).toBe(
      'By key: the 10 with the most changes, of 60 keys that change',
    );
    expect(byKey.querySelector('tbody td')?.textContent).toBe(EVIL_SHOWN);
    const byTime = screen.getByTestId('trace-dry-run-by-time').closest('details') as HTMLElement;
    expect(byTime.querySelector('summary')?.textContent).toBe(
      'By time (the first 50 of 61 changes listed)',
    );
    expect(byTime.querySelector('ol li')?.textContent).toMatch(
      new RegExp(`^\\S+ ${EVIL_SHOWN.replace(/[\\.*+?^${}()|[\]]/g, '\\$&')}: allowed→rejected$`),
    );
    expectNoRawText(container);
  });

  it('quotes the log a configuration replays when the page does not hold it', () => {
    const name = `${'y'.repeat(196)}.log`;
    renderPanel([{ kind: 'trace', name, bytes: 1_234, requests: 5, hash: '0123456789abcdef' }]);
    const wanted = screen.getByTestId('trace-wanted');
    expect(within(wanted).getByText(`"${'y'.repeat(40)}…"`, { selector: 'strong' })).toBeTruthy();
    expect(wanted.textContent).not.toContain('y'.repeat(41));
  });
});
