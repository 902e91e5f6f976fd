// @vitest-environment jsdom
/**
 * The trace panel's per-key statistics say what the system of the limiter being edited does with
 * the requests that have no key value, in a row of their own under the ranked keys.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { act, cleanup, render, screen } from '@testing-library/react';
import type { AlgorithmConfig } from '../../src/core';
import { createPlaygroundStore, defaultInputs } from '../../src/store';
import type { LimiterEntry } from '../../src/store';
import { PlaygroundProvider } from '../../src/store/react';
import { traceLoadStore } from '../../src/store/traceReact';
import { holdTrace } from '../../src/trace';
import type { BuiltTrace, KeySpec } from '../../src/trace';
import { TracePanel } from '../../src/ui/traffic/TracePanel';
import { csvReport } from '../trace/csvReport';

/** 1,204 requests with an empty key, then 3 from each of two clients. */
function built(keySpec: KeySpec, first = '-'): BuiltTrace {
  const count = 1_204 + 6;
  const keys = [first, '10.0.0.1', '10.0.0.2'];
  return {
    name: 'access.log',
    count,
    arrivalMs: Float64Array.from({ length: count }, (_, i) => 1_700_000_000_000 + i * 10),
    keyId: Uint32Array.from({ length: count }, (_, i) => (i < 1_204 ? 0 : 1 + (i % 2))),
    keys,
    cost: new Uint16Array(count).fill(1),
    status: new Uint16Array(count).fill(200),
    keySpec,
    natHints: [],
    report: csvReport(count),
  };
}

function renderWith(entry: LimiterEntry, keySpec: KeySpec, first = '-') {
  act(() => traceLoadStore().setState({ trace: holdTrace(built(keySpec, first)).held }));
  const inputs = defaultInputs();
  inputs.limiters = [entry];
  return render(
    <PlaygroundProvider store={createPlaygroundStore(inputs)}>
      <TracePanel />
    </PlaygroundProvider>,
  );
}

const LEAKY: AlgorithmConfig = {
  kind: 'leaky-bucket',
  rate: 10,
  rateUnit: 'r/s',
  burst: 5,
  delay: 'nodelay',
};
const XFF: KeySpec = [{ kind: 'xff-first' }];

const initial = traceLoadStore().getState();
beforeEach(() => traceLoadStore().setState(initial, true));
afterEach(cleanup);

describe('the empty key in the trace panel’s statistics', () => {
  it('nginx: not limited, in its own row, not ranked as the busiest key', () => {
    const { container } = renderWith({ system: 'nginx', config: LEAKY }, XFF);
    expect(screen.getByTestId('trace-stats-empty').textContent).toBe(
      '1,204 requests have no X-Forwarded-For: nginx does not limit them (not counted). Not ranked with the keys above.',
    );
    const rows = [...container.querySelectorAll('.trace-top-keys tbody tr td:first-child')];
    expect(rows.map((r) => r.textContent)).toEqual(['"10.0.0.1"', '"10.0.0.2"']);
    expect(screen.getByTestId('trace-window-stats').textContent).not.toContain('"-"');
  });

  it('Spring: denied; the header name shown quoted', () => {
    const spec: KeySpec = [{ kind: 'field', name: 'X-Api-Key\u202E' }];
    renderWith(
      {
        system: 'spring-gateway',
        config: { kind: 'token-bucket', maxTokens: 5, tokensPerFill: 1, fillIntervalMs: 1000 },
      },
      spec,
    );
    expect(screen.getByTestId('trace-stats-empty').textContent).toBe(
      '1,204 requests have no value in "X-Api-Key\\u202E": Spring Cloud Gateway denies them with 403, without counting them. Not ranked with the keys above.',
    );
  });

  it('express-rate-limit: one shared key', () => {
    renderWith(
      {
        system: 'express-rate-limit',
        config: { kind: 'anchored-window', limit: 5, windowMs: 60_000, countRejected: true },
      },
      XFF,
    );
    expect(screen.getByTestId('trace-stats-empty').textContent).toContain(
      'express-rate-limit counts them all under one empty key.',
    );
  });

  it('no row when every request has a key', () => {
    renderWith({ system: 'nginx', config: LEAKY }, XFF, '10.0.0.3');
    expect(screen.queryByTestId('trace-stats-empty')).toBeNull();
  });
});
