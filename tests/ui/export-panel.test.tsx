// @vitest-environment jsdom
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import type { AlgorithmConfig } from '../../src/core';
import { toEnvoy, toGo, toNginx } from '../../src/export';
import type { ExportResult } from '../../src/export';
import { createPlaygroundStore, defaultInputs } from '../../src/store';
import type { PlaygroundStoreApi } from '../../src/store';
import { PlaygroundProvider } from '../../src/store/react';
import { ExportPanel, ImportPart } from '../../src/ui/export/ExportPanel';
import { ExportSection } from '../../src/ui/export/ExportSection';
import { ALGORITHM_ORDER } from '../../src/ui/limiter/algorithms';

// The import form is a chunk of its own: fetched once here, so every render shows it at once.
beforeAll(() => ImportPart.preload());

const LEAKY: AlgorithmConfig = {
  kind: 'leaky-bucket',
  rate: 10,
  rateUnit: 'r/s',
  burst: 20,
  delay: 'nodelay',
};
const TOKEN: AlgorithmConfig = {
  kind: 'token-bucket',
  maxTokens: 10,
  tokensPerFill: 5,
  fillIntervalMs: 1000,
  refill: 'continuous',
  maxDelayMs: 0,
};
const FIXED: AlgorithmConfig = { kind: 'fixed-window', limit: 5, windowMs: 1000 };
const GCRA: AlgorithmConfig = { kind: 'gcra', count: 5, periodMs: 1000, burst: 4 };

function storeWith(config: AlgorithmConfig): PlaygroundStoreApi {
  const inputs = defaultInputs();
  inputs.limiters = [{ config }];
  return createPlaygroundStore(inputs);
}

function renderPanel(store: PlaygroundStoreApi) {
  return render(
    <PlaygroundProvider store={store}>
      <ExportPanel />
    </PlaygroundProvider>,
  );
}

const tab = (name: RegExp) => screen.getByRole('tab', { name });
const output = () => screen.getByTestId('export-output');
const code = () => screen.getByTestId('export-code').textContent;
const textOf = (r: ReturnType<typeof toNginx>) => (r as ExportResult).text;

function paste(text: string) {
  fireEvent.change(screen.getByLabelText(/Paste nginx/), { target: { value: text } });
}
const importButton = () => screen.getByRole('button', { name: /^Import into/ });

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('Export', () => {
  it('nginx: the limit_req lines for a leaky bucket; for a token bucket, why not', () => {
    const store = storeWith(LEAKY);
    renderPanel(store);
    // A leaky bucket opens on its own system's tab.
    expect(tab(/^nginx/)).toHaveAttribute('aria-selected', 'true');
    expect(code()).toContain('limit_req_zone $binary_remote_addr zone=ratelimit:10m rate=10r/s;');
    expect(code()).toContain('limit_req zone=ratelimit burst=20 nodelay;');
    expect(code()).toBe(textOf(toNginx(LEAKY)));
    expect(output()).toHaveTextContent(/Assumes nginx ≥ 1\.1\.3/);
    expect(output()).toHaveTextContent('Differs from the playground');

    act(() => store.getState().setLimiterConfig(0, TOKEN));
    fireEvent.click(tab(/^nginx/));
    expect(screen.queryByTestId('export-code')).toBeNull();
    expect(output()).toHaveTextContent('nginx has no token bucket.');
    expect(screen.getByTestId('export-reason')).toHaveTextContent(
      "nginx's limit_req is a leaky bucket (rate, burst, delay) and has no token bucket.",
    );
  });

  it('Envoy: the local_ratelimit filter for a token bucket; for a leaky bucket, why not', () => {
    const store = storeWith(TOKEN);
    renderPanel(store);
    expect(tab(/^Envoy(?! global)/)).toHaveAttribute('aria-selected', 'true');
    expect(code()).toContain('name: envoy.filters.http.local_ratelimit');
    expect(code()).toMatch(/max_tokens: 10\n\s+tokens_per_fill: 5\n\s+fill_interval: 1s\n/);
    expect(code()).toBe(textOf(toEnvoy(TOKEN)));
    expect(output()).toHaveTextContent(/Assumes Envoy ≥ 1\.31/);

    act(() => store.getState().setLimiterConfig(0, LEAKY));
    fireEvent.click(tab(/^Envoy(?! global)/));
    expect(screen.getByTestId('export-reason')).toHaveTextContent(
      "Envoy's local_ratelimit filter only has a token bucket",
    );
  });

  it('Go: an x/time/rate limiter for a token bucket; for a fixed window, why not', () => {
    const store = storeWith(TOKEN);
    renderPanel(store);
    fireEvent.click(tab(/^Go/));
    expect(code()).toContain('rate.NewLimiter(limit, burst)');
    expect(code()).toBe(textOf(toGo(TOKEN)));

    act(() => store.getState().setLimiterConfig(0, FIXED));
    fireEvent.click(tab(/^Go/));
    expect(screen.getByTestId('export-reason')).toHaveTextContent(
      'x/time/rate only has a token bucket; it has no windows.',
    );
  });

  it('Redis: a script for every algorithm, with the calling convention', () => {
    const store = storeWith(GCRA);
    renderPanel(store);
    // GCRA is not nginx's or Envoy's: it opens on Redis.
    expect(tab(/^Redis Lua/)).toHaveAttribute('aria-selected', 'true');
    expect(code()).toMatch(
      /^-- Rate Limit Lab: GCRA \(redis-cell\), burst=4 count=5 periodMs=1000/,
    );
    const usage = screen.getByTestId('redis-usage');
    expect(usage).toHaveTextContent('EVAL script 1 <key> [nowMs]');
    expect(usage).toHaveTextContent('{outcome, delayMs, retryAfterMs, remaining, resetMs}');
    expect(usage).toHaveTextContent('outcome 0 admit, 1 delay');
    expect(usage).toHaveTextContent('2 reject');
  });

  it('no tab is ever empty: every algorithm × target shows text or a reason', () => {
    const store = createPlaygroundStore();
    renderPanel(store);
    for (const kind of ALGORITHM_ORDER) {
      act(() => store.getState().setLimiterKind(0, kind));
      for (const name of [/^nginx/, /^Envoy(?! global)/, /^Redis Lua/, /^Go/]) {
        fireEvent.click(tab(name));
        const shown =
          screen.queryByTestId('export-code')?.textContent ??
          screen.getByTestId('export-reason').textContent;
        expect(shown.trim().length, `${kind} ${String(name)}`).toBeGreaterThan(40);
      }
    }
  });

  it('tabs follow the arrow keys, which do not reach the page shortcuts', () => {
    renderPanel(storeWith(LEAKY));
    const onWindow = vi.fn();
    window.addEventListener('keydown', onWindow);
    try {
      tab(/^nginx/).focus();
      fireEvent.keyDown(tab(/^nginx/), { key: 'ArrowRight' });
      expect(tab(/^Envoy(?! global)/)).toHaveAttribute('aria-selected', 'true');
      expect(tab(/^Envoy(?! global)/)).toHaveFocus();
      fireEvent.keyDown(tab(/^Envoy(?! global)/), { key: 'End' });
      expect(tab(/^HAProxy/)).toHaveAttribute('aria-selected', 'true');
      fireEvent.keyDown(tab(/^HAProxy/), { key: 'ArrowRight' });
      expect(tab(/^nginx/)).toHaveAttribute('aria-selected', 'true');
      expect(onWindow).not.toHaveBeenCalled();
    } finally {
      window.removeEventListener('keydown', onWindow);
    }
  });
});

describe('Copy', () => {
  it('writes the shown text to the clipboard and says so', async () => {
    const writeText = vi.fn((_: string) => Promise.resolve());
    vi.stubGlobal('navigator', { ...navigator, clipboard: { writeText } });
    renderPanel(storeWith(LEAKY));
    fireEvent.click(screen.getByRole('button', { name: 'Copy nginx' }));
    expect(writeText).toHaveBeenCalledWith(textOf(toNginx(LEAKY)));
    expect(await screen.findByText('✓ Copied')).toBeInTheDocument();
    expect(screen.getByText('Copied to the clipboard')).toBeInTheDocument();
  });

  it('without a clipboard, selects the text and says how to copy it', () => {
    vi.stubGlobal('navigator', { ...navigator, clipboard: undefined });
    renderPanel(storeWith(LEAKY));
    fireEvent.click(screen.getByRole('button', { name: 'Copy nginx' }));
    expect(screen.getByText(/The clipboard is unavailable here/)).toBeInTheDocument();
    expect(window.getSelection()?.toString()).toBe(textOf(toNginx(LEAKY)));
  });

  it('a refused clipboard write falls back the same way', async () => {
    const writeText = vi.fn(() => Promise.reject(new Error('NotAllowedError')));
    vi.stubGlobal('navigator', { ...navigator, clipboard: { writeText } });
    renderPanel(storeWith(LEAKY));
    fireEvent.click(screen.getByRole('button', { name: 'Copy nginx' }));
    expect(await screen.findByText(/The clipboard is unavailable here/)).toBeInTheDocument();
    expect(screen.queryByText('✓ Copied')).toBeNull();
  });
});

describe('Import', () => {
  const NGINX = `http {
  limit_req_zone $binary_remote_addr zone=api:10m rate=10r/s;
  server {
    limit_req zone=api burst=20 delay=8;
    limit_req_status 429;
  }
}`;

  it('a valid nginx snippet becomes the active limiter, and exports back the same lines', () => {
    const store = storeWith(TOKEN);
    renderPanel(store);
    paste(NGINX);
    expect(screen.getByRole('combobox', { name: 'Format' })).toHaveDisplayValue('Detect (nginx)');
    fireEvent.click(importButton());
    expect(store.getState().limiters[0]?.config).toEqual({
      kind: 'leaky-bucket',
      rate: 10,
      rateUnit: 'r/s',
      burst: 20,
      delay: 8,
      limitReqStatus: 429,
    });
    expect(screen.getByTestId('import-done')).toHaveTextContent(
      'Loaded an nginx limit_req line into the limiter: Leaky bucket: rate=10r/s burst=20 delay=8, limit_req_status 429.',
    );
    // The panel now exports the leaky bucket to nginx, with the zone name and key it was given.
    expect(tab(/^nginx/)).toHaveAttribute('aria-selected', 'true');
    expect(code()).toContain('limit_req_zone $binary_remote_addr zone=api:10m rate=10r/s;');
    expect(code()).toContain('limit_req zone=api burst=20 delay=8;');
    expect(code()).toContain('limit_req_status 429;');
  });

  it('loads into the limiter being edited, not the first', () => {
    const store = storeWith(TOKEN);
    act(() => store.getState().addLimiter('gcra'));
    expect(store.getState().activeLane).toBe(1);
    renderPanel(store);
    paste('limit_req_zone $binary_remote_addr zone=one:1m rate=30r/m;\nlimit_req zone=one;');
    fireEvent.click(importButton());
    expect(store.getState().limiters[0]?.config).toEqual(TOKEN);
    expect(store.getState().limiters[1]?.config).toEqual({
      kind: 'leaky-bucket',
      rate: 30,
      rateUnit: 'r/m',
      burst: 0,
      delay: 0,
    });
    expect(screen.getByTestId('import-done')).toHaveTextContent(
      'Loaded an nginx limit_req line into limiter 2',
    );
  });

  it('a zone name the exporter will not write back still imports; the export keeps its own name', () => {
    const store = storeWith(TOKEN);
    renderPanel(store);
    paste('limit_req_zone $binary_remote_addr zone=a$b@c:10m rate=10r/s;\nlimit_req zone=a$b@c;');
    fireEvent.click(importButton());
    expect(store.getState().limiters[0]?.config).toMatchObject({ kind: 'leaky-bucket', rate: 10 });
    expect(code()).toContain('limit_req zone=ratelimit;');
    fireEvent.click(tab(/^Redis Lua/));
    expect(code()).toContain('nginx limit_req, rate=10r/s burst=0 delay=0');
  });

  it('an invalid snippet shows line:column errors and changes nothing', () => {
    const store = storeWith(TOKEN);
    renderPanel(store);
    const before = store.getState().limiters;
    const text =
      'limit_req_zone $binary_remote_addr zone=api:10m rate=10r/h;\nlimit_req zone=api burst=20;';
    paste(text);
    fireEvent.click(importButton());
    expect(store.getState().limiters).toBe(before);
    const errors = screen.getByTestId('import-errors');
    expect(errors).toHaveTextContent('Nothing was loaded: an error.');
    expect(errors).toHaveTextContent('1:54 expected rate=<n>r/s or r/m, got "10r/h"');
    const area = screen.getByLabelText(/Paste nginx/);
    expect(area).toHaveAttribute('aria-invalid', 'true');
    // The position is a button that puts the cursor at the "10r/h".
    fireEvent.click(within(errors).getByRole('button', { name: 'line 1, column 54: go there' }));
    expect(area).toHaveFocus();
    const at = (area as HTMLTextAreaElement).selectionStart;
    expect(text.slice(at, at + 5)).toBe('10r/h');
    expect(screen.getByTestId('import-done')).toBeEmptyDOMElement();
  });

  it('an HAProxy snippet makes the limiter an HAProxy one and opens its tab', () => {
    const store = storeWith(TOKEN);
    renderPanel(store);
    paste(`frontend api
    stick-table type ip size 100k expire 30s store http_req_rate(10s)
    http-request track-sc0 src
    http-request deny deny_status 429 if { sc_http_req_rate(0) gt 20 }`);
    fireEvent.click(importButton());
    expect(store.getState().limiters[0]).toEqual({
      system: 'haproxy',
      config: {
        kind: 'sliding-window-counter',
        limit: 20,
        windowMs: 10_000,
        anchor: 'entry',
        expireMs: 30_000,
        denyStatus: 429,
      },
    });
    expect(screen.getByTestId('import-done')).toHaveTextContent(
      'Loaded an HAProxy stick-table limit into',
    );
    expect(tab(/^HAProxy/)).toHaveAttribute('aria-selected', 'true');
    expect(screen.getByTestId('export-code')).toHaveTextContent(
      'http-request deny deny_status 429 if { sc_http_req_rate(0) gt 20 }',
    );
  });

  it('text that is neither nginx nor Envoy says what was expected', () => {
    const store = storeWith(TOKEN);
    renderPanel(store);
    const before = store.getState().limiters;
    paste('rate: 10 per second');
    fireEvent.click(importButton());
    expect(store.getState().limiters).toBe(before);
    expect(screen.getByTestId('import-errors')).toHaveTextContent(
      '1:1 expected nginx limit_req_zone / limit_req lines, an Envoy token_bucket block, HAProxy stick-table / http-request lines or nginx.ingress.kubernetes.io/limit-rps annotations',
    );
  });

  it('an Envoy filter loads as a token bucket and warns when filter_enforced is unset', () => {
    const store = storeWith(LEAKY);
    renderPanel(store);
    paste(`stat_prefix: edge
token_bucket:
  max_tokens: 20
  tokens_per_fill: 4
  fill_interval: 2s
filter_enabled:
  default_value:
    numerator: 100
    denominator: HUNDRED
`);
    fireEvent.click(importButton());
    // The fields the YAML leaves out stay out: the limiter defaults them (continuous, no delay).
    expect(store.getState().limiters[0]?.config).toEqual({
      kind: 'token-bucket',
      maxTokens: 20,
      tokensPerFill: 4,
      fillIntervalMs: 2000,
    });
    expect(screen.getByTestId('import-done')).toHaveTextContent(
      'Token bucket: max_tokens 20, tokens_per_fill 4, fill_interval 2s',
    );
    expect(screen.getByTestId('import-warnings')).toHaveTextContent(
      '2:1 filter_enforced is unset: Envoy only counts, never rejects (shadow mode',
    );
    expect(tab(/^Envoy(?! global)/)).toHaveAttribute('aria-selected', 'true');
    expect(code()).toContain('stat_prefix: edge');
  });

  it('an Envoy snippet read as Envoy before 1.31 refills on the timer', () => {
    const store = storeWith(LEAKY);
    renderPanel(store);
    paste('token_bucket:\n  max_tokens: 3\n  fill_interval: 0.5s\n');
    fireEvent.change(screen.getByRole('combobox', { name: 'Envoy' }), {
      target: { value: 'interval' },
    });
    fireEvent.click(importButton());
    expect(store.getState().limiters[0]?.config).toMatchObject({
      kind: 'token-bucket',
      maxTokens: 3,
      tokensPerFill: 1,
      fillIntervalMs: 500,
      refill: 'interval',
    });
  });
});

describe('ExportSection', () => {
  beforeEach(() => {
    vi.stubGlobal('navigator', { ...navigator, clipboard: undefined });
  });

  it('the closed section’s summary line names the exports people look for, Cloudflare among them', () => {
    const { container } = render(
      <PlaygroundProvider store={storeWith(LEAKY)}>
        <ExportSection />
      </PlaygroundProvider>,
    );
    const hint = container.querySelector('.export-section-hint')?.textContent ?? '';
    for (const name of ['nginx', 'Envoy', 'Traefik', 'Kong', 'Cloudflare', 'HAProxy', 'Redis Lua'])
      expect(hint.split(' · ')).toContain(name);
  });

  it('loads the panel when first opened and keeps its state while closed', async () => {
    render(
      <PlaygroundProvider store={storeWith(LEAKY)}>
        <ExportSection />
      </PlaygroundProvider>,
    );
    const toggle = screen.getByRole('button', { name: 'Export & import' });
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
    expect(screen.queryByRole('tab')).toBeNull();
    fireEvent.click(toggle);
    expect(toggle).toHaveAttribute('aria-expanded', 'true');
    expect(await screen.findByRole('tab', { name: /^nginx/ })).toHaveAttribute(
      'aria-selected',
      'true',
    );
    paste('limit_req zone=x;');
    fireEvent.click(toggle);
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
    expect(screen.queryByRole('tab')).toBeNull(); // hidden content leaves the accessibility tree
    fireEvent.click(toggle);
    expect(screen.getByLabelText(/Paste nginx/)).toHaveValue('limit_req zone=x;');
  });
});

describe('Import of several limit_req lines', () => {
  it('becomes several compare lanes, up to the lane limit', () => {
    const store = storeWith(TOKEN);
    renderPanel(store);
    const zones = Array.from(
      { length: 7 },
      (_, i) =>
        `limit_req_zone $a zone=z${i}:1m rate=${i + 1}r/s;\nlimit_req zone=z${i} burst=${i + 1};`,
    );
    paste(zones.slice(0, 2).join('\n'));
    fireEvent.click(importButton());
    const s = store.getState();
    expect(s.mode).toBe('compare');
    expect(s.limiters.map((l) => l.config)).toEqual([
      { kind: 'leaky-bucket', rate: 1, rateUnit: 'r/s', burst: 1, delay: 0 },
      { kind: 'leaky-bucket', rate: 2, rateUnit: 'r/s', burst: 2, delay: 0 },
    ]);
    // The confirmation says what happened: two lines, two lanes, which ones.
    expect(screen.getByTestId('import-done').querySelector('p')).toHaveTextContent(
      /^Loaded 2 nginx limit_req lines into 2 compare lanes \(lanes 1 and 2\): Leaky bucket: rate=1r\/s burst=1 delay=0; Leaky bucket: rate=2r\/s burst=2 delay=0\.$/,
    );
    expect(screen.getByTestId('import-done')).not.toHaveTextContent(/into the limiter/);
    // Seven more lines into a page of two lanes that holds six: the first replaces the edited
    // lane, four become new lanes, and the page says two were left out.
    paste(zones.join('\n'));
    fireEvent.click(importButton());
    expect(store.getState().limiters).toHaveLength(6);
    expect(screen.getByTestId('import-done').querySelector('p')).toHaveTextContent(
      /^Loaded 5 nginx limit_req lines into 5 compare lanes \(lanes 1, 3, 4, 5 and 6\): .* \(2 more left out: compare mode holds 5 limiters here\)\.$/,
    );
  });
});
