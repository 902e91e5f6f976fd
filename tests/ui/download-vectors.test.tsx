// @vitest-environment jsdom
/** The Download menu's test vectors: the JSON and the zip with the tests. */
import { cleanup, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { unzipSync, strFromU8 } from 'fflate';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createPlaygroundStore, defaultInputs } from '../../src/store';
import { PlaygroundProvider } from '../../src/store/react';
import { DownloadMenu } from '../../src/ui/share/DownloadMenu';
import type { TestVectorFile } from '../../src/export/test-vectors';

let saved: Array<{ filename: string; blob: Blob }> = [];

beforeEach(() => {
  saved = [];
  const blobs = new Map<string, Blob>();
  let n = 0;
  vi.spyOn(URL, 'createObjectURL').mockImplementation((blob) => {
    const url = `blob:test/${(n += 1)}`;
    blobs.set(url, blob as Blob);
    return url;
  });
  vi.spyOn(URL, 'revokeObjectURL').mockImplementation(() => undefined);
  vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (
    this: HTMLAnchorElement,
  ) {
    saved.push({ filename: this.download, blob: blobs.get(this.href) as Blob });
  });
});

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

/** Two limiters; the second (Traefik) is being edited; three requests. */
function renderMenu() {
  const base = defaultInputs();
  const store = createPlaygroundStore({
    ...base,
    limiters: [
      { config: { kind: 'fixed-window', limit: 2, windowMs: 1000 } },
      {
        system: 'traefik',
        config: {
          kind: 'token-bucket',
          maxTokens: 1,
          tokensPerFill: 1,
          fillIntervalMs: 1000,
          maxDelayMs: 500,
          idleResetS: 2,
        },
      },
    ],
    mode: 'compare',
    scenario: { ...base.scenario, sources: [{ kind: 'manual', timesMs: [100, 200, 900] }] },
    untilMs: 2000,
  });
  store.getState().setActiveLane(1);
  render(
    <PlaygroundProvider store={store}>
      <main className="stage">
        <DownloadMenu />
      </main>
    </PlaygroundProvider>,
  );
}

async function choose(item: RegExp) {
  await userEvent.click(screen.getByRole('button', { name: 'Download' }));
  await userEvent.click(screen.getByRole('button', { name: item }));
  await waitFor(() => expect(saved).toHaveLength(1));
  return saved[0]!;
}

describe('Download: test vectors', () => {
  it('JSON: the edited limiter’s decisions, named after its system', async () => {
    renderMenu();
    const file = await choose(/Test vectors \(JSON\)/);
    expect(file.filename).toBe('rate-limit-lab-traefik-vectors.json');
    const json = JSON.parse(await file.blob.text()) as TestVectorFile;
    expect(json.limiter.system).toBe('traefik');
    // Bucket of 1, 1/s, waits ≤ 500 ms: 100 admit; 200 waits 900 > 500 → reject; 900 waits 200 → delay.
    expect(json.vectors).toEqual([
      { t: 100, key: 'client-1', outcome: 'admit', delayMs: 0, retryAfterMs: 0, remaining: 0 },
      { t: 200, key: 'client-1', outcome: 'reject', delayMs: 0, retryAfterMs: 400, remaining: 0 },
      { t: 900, key: 'client-1', outcome: 'delay', delayMs: 200, retryAfterMs: 0, remaining: 0 },
    ]);
    expect(
      await screen.findByText('Saved rate-limit-lab-traefik-vectors.json: 3 decisions.'),
    ).toBeInTheDocument();
  });

  it('zip: the vectors with Vitest, Jest and Go files and their adapters', async () => {
    renderMenu();
    const file = await choose(/Test vectors \+ tests \(zip\)/);
    expect(file.filename).toBe('rate-limit-lab-traefik-vectors.zip');
    const entries = unzipSync(new Uint8Array(await file.blob.arrayBuffer()));
    const names = Object.keys(entries).map((n) => n.replace('rate-limit-lab-traefik-vectors/', ''));
    expect(names.sort()).toEqual(
      [
        'README.md',
        'rate-limit-vectors.json',
        'vitest/rate-limit-vectors.json',
        'vitest/rate-limit.vectors.test.ts',
        'vitest/rate-limit-adapter.ts',
        'jest/rate-limit-vectors.json',
        'jest/rate-limit.vectors.test.js',
        'jest/rate-limit-adapter.js',
        'go/testdata/rate-limit-vectors.json',
        'go/ratelimit_vectors_test.go',
        'go/ratelimit_adapter_test.go',
      ].sort(),
    );
    const go = strFromU8(entries['rate-limit-lab-traefik-vectors/go/ratelimit_vectors_test.go']!);
    expect(go).toContain('func TestRateLimitVectors(t *testing.T)');
  });
});
