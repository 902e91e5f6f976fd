// @vitest-environment jsdom
/**
 * The Export panel keys the nginx and HAProxy exports as the traffic's log is replayed (the trace
 * source's key), and says in one sentence when the product cannot key by it.
 */
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AlgorithmConfig } from '../../src/core';
import { createPlaygroundStore, defaultInputs } from '../../src/store';
import type { PlaygroundStoreApi } from '../../src/store';
import { PlaygroundProvider } from '../../src/store/react';
import type { SystemId } from '../../src/systems';
import { ExportPanel, ImportPart } from '../../src/ui/export/ExportPanel';
import { stubResizeObserver } from './fixtures';

beforeAll(async () => {
  stubResizeObserver();
  await ImportPart.preload();
});
afterEach(cleanup);

const NGINX: AlgorithmConfig = {
  kind: 'leaky-bucket',
  rate: 1,
  rateUnit: 'r/s',
  burst: 0,
  delay: 0,
};
const HAPROXY: AlgorithmConfig = {
  kind: 'sliding-window-counter',
  limit: 3,
  windowMs: 10_000,
  anchor: 'entry',
};

/** A store whose traffic replays a log (not loaded here) read with `key`. */
function storeReplaying(
  system: SystemId,
  config: AlgorithmConfig,
  key?: string,
): PlaygroundStoreApi {
  const inputs = defaultInputs();
  return createPlaygroundStore({
    ...inputs,
    limiters: [{ system, config }],
    scenario: {
      ...inputs.scenario,
      sources: [
        {
          kind: 'trace',
          name: 'access.log',
          bytes: 1000,
          requests: 10,
          hash: '0123456789abcdef',
          ...(key === undefined ? {} : { key }),
        },
      ],
    },
  });
}

function exportText(store: PlaygroundStoreApi): string {
  render(
    <PlaygroundProvider store={store}>
      <ExportPanel />
    </PlaygroundProvider>,
  );
  return screen.getByTestId('export-code').textContent ?? '';
}

describe('Export panel: keyed as the replayed log', () => {
  it('nginx keyed by the first X-Forwarded-For hop', () => {
    const text = exportText(storeReplaying('nginx', NGINX, 'xff-first'));
    expect(text).toContain('limit_req_zone $xff_first_hop zone=ratelimit:10m rate=1r/s;');
    expect(text).toContain('map $http_x_forwarded_for $xff_first_hop {');
  });

  it('HAProxy keyed by the path', () => {
    const text = exportText(storeReplaying('haproxy', HAPROXY, 'path'));
    expect(text).toContain('    http-request track-sc0 path\n');
    expect(text).toContain('stick-table type string len 128 size 100k');
  });

  it('a replay keyed by the client address (a link from before keys) keeps the address', () => {
    expect(exportText(storeReplaying('nginx', NGINX))).toContain(
      'limit_req_zone $binary_remote_addr zone=',
    );
  });

  it('a field of a log not loaded here: the address, and the sentence saying so', () => {
    const store = storeReplaying('haproxy', HAPROXY, 'field:user');
    const text = exportText(store);
    expect(text).toContain('    http-request track-sc0 src\n');
    expect(
      screen.getByText(
        'The HAProxy export keys by the client address while the replay keys by field "user" of a log not loaded here, which is not part of a request HAProxy sees.',
      ),
    ).toBeInTheDocument();
  });
});
