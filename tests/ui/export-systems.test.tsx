// @vitest-environment jsdom
/**
 * The Export panel's gateway tabs: every system's own export comes first, shows the
 * same text as its exporter, and downloads under its file name.
 */
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { exportAll, exportSystems } from '../../src/export';
import { createPlaygroundStore, defaultInputs } from '../../src/store';
import type { PlaygroundStoreApi } from '../../src/store';
import { PlaygroundProvider } from '../../src/store/react';
import { SYSTEMS } from '../../src/systems';
import { ExportPanel, ImportPart } from '../../src/ui/export/ExportPanel';
import type { AnyExportTarget } from '../../src/ui/export/exportText';
import { EXPORT_FILE_NAMES, SYSTEM_EXPORTS, exportLabel } from '../../src/ui/export/exportText';

// The import form is a chunk of its own: fetched once here, so every render shows it at once.
beforeAll(() => ImportPart.preload());

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

function storeOf(systemId: string): PlaygroundStoreApi {
  const store = createPlaygroundStore(defaultInputs());
  act(() => store.getState().setLimiterSystem(0, systemId));
  return store;
}

function renderPanel(store: PlaygroundStoreApi) {
  return render(
    <PlaygroundProvider store={store}>
      <ExportPanel />
    </PlaygroundProvider>,
  );
}

const tabNames = () => screen.getAllByRole('tab').map((t) => t.textContent);
const selectedTab = () =>
  screen.getAllByRole('tab').find((t) => t.getAttribute('aria-selected') === 'true');

describe('Export: the gateway systems', () => {
  it('every system opens on its own export, which is the exporter’s text, and every tab shows text or a reason', () => {
    expect(SYSTEMS.map((s) => s.id).filter((id) => SYSTEM_EXPORTS[id] === undefined)).toEqual([]);
    for (const system of SYSTEMS) {
      const store = storeOf(system.id);
      renderPanel(store);
      const config = store.getState().limiters[0]?.config;
      if (config === undefined) throw new Error('no limiter');
      const own = SYSTEM_EXPORTS[system.id]?.[0] as AnyExportTarget;
      expect(selectedTab()?.textContent, system.id).toBe(exportLabel(own));
      const all = { ...exportAll(config), ...exportSystems(config) };
      const expected = all[own];
      expect(expected.ok, `${system.id} → ${own}`).toBe(true);
      if (expected.ok) expect(screen.getByTestId('export-code').textContent).toBe(expected.text);
      // Every tab offered says something.
      for (const tab of screen.getAllByRole('tab')) {
        fireEvent.click(tab);
        const shown =
          screen.queryByTestId('export-code')?.textContent ??
          screen.getByTestId('export-reason').textContent;
        expect(shown.trim().length, `${system.id} ${tab.textContent}`).toBeGreaterThan(40);
      }
      cleanup();
    }
  });

  it('Traefik: its YAML then Go first; the gateway tabs that cannot express a token bucket are left out', () => {
    renderPanel(storeOf('traefik'));
    const names = tabNames();
    expect(names.slice(0, 2)).toEqual(['Traefik', 'Go']);
    expect(names.some((n) => n?.startsWith('Kong'))).toBe(false);
    const code = screen.getByTestId('export-code').textContent;
    expect(code).toContain('rateLimit:');
    expect(code).toContain('average: 5');
    expect(code).toContain('period: 1s');
    expect(code).toContain('burst: 10');
    expect(screen.getByTestId('export-output')).toHaveTextContent(/Assumes Traefik v3/);
  });

  it('Traefik with instances sharing a store: the redis section, its timeout, and what a down Redis does', () => {
    const store = storeOf('traefik');
    const sc = store.getState().scenario;
    act(() =>
      store.getState().setScenario({
        ...sc,
        deployment: {
          instances: 3,
          balancer: 'round-robin',
          state: 'shared-atomic',
          roundTripMs: 5,
          fleet: { store: { rttMs: 2, jitterMs: 0, outages: [], onDown: 'open', timeoutMs: 20 } },
        },
      }),
    );
    renderPanel(store);
    const code = screen.getByTestId('export-code').textContent;
    expect(code).toContain(
      [
        '        redis:',
        '          endpoints:',
        '            - localhost:6379',
        '          readTimeout: 20ms',
        '',
      ].join('\n'),
    );
    expect(screen.getByTestId('export-output')).toHaveTextContent(/the Redis limiter/);
    expect(screen.getByTestId('export-output')).toHaveTextContent(
      /Traefik answers 500 "Could not insert\/update bucket"/,
    );
    cleanup();
    // Each instance its own limiter: no redis section.
    act(() =>
      store.getState().setScenario({
        ...sc,
        deployment: { instances: 3, balancer: 'round-robin', state: 'local', roundTripMs: 5 },
      }),
    );
    renderPanel(store);
    expect(screen.getByTestId('export-code').textContent).not.toContain('redis:');
  });

  it('Cloudflare: its Rulesets API body, then its Terraform resource, each with what to fill in', async () => {
    renderPanel(storeOf('cloudflare'));
    expect(tabNames().slice(0, 3)).toEqual(['Cloudflare API', 'Cloudflare Terraform', 'Redis Lua']);
    const body = JSON.parse(screen.getByTestId('export-code').textContent) as {
      rules: { action: string; ratelimit: Record<string, unknown> }[];
    };
    // The system's default: 50 requests per 10 s, thrown back as Cloudflare's own field names.
    expect(body.rules[0]?.action).toBe('block');
    expect(body.rules[0]?.ratelimit).toMatchObject({
      characteristics: ['cf.colo.id', 'ip.src'],
      period: 10,
      requests_per_period: 50,
      mitigation_timeout: 0,
    });
    const output = screen.getByTestId('export-output');
    expect(output).toHaveTextContent(/JSON/);
    expect(output).toHaveTextContent(
      /zones\/\{zone_id\}\/rulesets\/phases\/http_ratelimit\/entrypoint/,
    );
    expect(output).toHaveTextContent(/cf\.colo\.id is a mandatory characteristic/);
    fireEvent.click(screen.getByRole('tab', { name: 'Cloudflare Terraform' }));
    const hcl = screen.getByTestId('export-code').textContent;
    expect(hcl).toContain('resource "cloudflare_ruleset" "rate_limit"');
    expect(hcl).toContain('phase = "http_ratelimit"');
    expect(hcl).toContain('requests_per_period = 50');
    expect(hcl).toMatch(/Fill in: zone_id/);
    fireEvent.click(screen.getByRole('button', { name: /Download cloudflare-ratelimit\.tf/ }));
    expect(saved.map((s) => s.filename)).toEqual(['cloudflare-ratelimit.tf']);
    expect(await saved[0]?.blob.text()).toBe(hcl);
  });

  it('Envoy local shows what Traefik would do differently (its fixed maxDelay)', () => {
    renderPanel(storeOf('envoy'));
    fireEvent.click(screen.getByRole('tab', { name: 'Traefik' }));
    expect(screen.getByTestId('export-output')).toHaveTextContent(
      /Traefik lets a request wait up to 100 ms .* this limiter never delays/,
    );
  });

  it('express-rate-limit: the app sends the headers the page shows, draft 6 once they are added', () => {
    const store = storeOf('express-rate-limit');
    renderPanel(store);
    const code = () => screen.getByTestId('export-code').textContent;
    expect(code()).toContain('standardHeaders: false,\n    legacyHeaders: true,');
    expect(code()).toContain('// Your routes here.');
    act(() => store.getState().setStandardHeaders(0, true));
    expect(code()).toContain("standardHeaders: 'draft-6',\n    legacyHeaders: true,");
  });

  it('Download saves the shown text under the export’s file name', async () => {
    renderPanel(storeOf('kong'));
    fireEvent.click(screen.getByRole('button', { name: /^Download kong\.yml$/ }));
    expect(saved.map((s) => s.filename)).toEqual([EXPORT_FILE_NAMES.kong]);
    expect(await saved[0]?.blob.text()).toBe(screen.getByTestId('export-code').textContent);
  });
});

describe('Import: an Ingress with ingress-nginx annotations', () => {
  const MANIFEST = `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: api
  annotations:
    nginx.ingress.kubernetes.io/limit-rps: "10"
    nginx.ingress.kubernetes.io/limit-connections: "4"
    nginx.ingress.kubernetes.io/limit-whitelist: "10.0.0.0/8"
`;

  it('loads ingress-nginx beside Traefik in compare mode and says what is not modelled', () => {
    const store = createPlaygroundStore(defaultInputs());
    const scenario = store.getState().scenario;
    renderPanel(store);
    fireEvent.change(screen.getByLabelText(/^Paste nginx/), { target: { value: MANIFEST } });
    expect(
      screen.getByRole('option', { name: /Detect \(ingress-nginx annotations\)/ }),
    ).toBeInTheDocument();
    fireEvent.click(screen.getByRole('button', { name: /^Import into/ }));
    const st = store.getState();
    expect(st.mode).toBe('compare');
    expect(st.scenario).toBe(scenario);
    expect(st.limiters).toEqual([
      {
        name: 'nginx limit-rps 10',
        config: { kind: 'leaky-bucket', rate: 10, rateUnit: 'r/s', burst: 50, delay: 'nodelay' },
      },
      {
        name: 'Traefik limit-rps 10',
        system: 'traefik',
        config: {
          kind: 'token-bucket',
          maxTokens: 50,
          tokensPerFill: 10,
          fillIntervalMs: 1000,
          maxDelayMs: 50,
          idleResetS: 2,
        },
      },
    ]);
    const done = screen.getByTestId('import-ingress');
    expect(done).toHaveTextContent(
      /ingress-nginx beside Traefik: "default\/api" as nginx limit-rps 10/,
    );
    expect(done).toHaveTextContent(/limit-connections 4: at most 4 connections .* Not modelled/);
    expect(done).toHaveTextContent(/limit-whitelist 10\.0\.0\.0\/8: ingress-nginx does not limit/);
    expect(done).toHaveTextContent('limit_req zone=default_api_<uid>_rps burst=50 nodelay;');
  });

  it('a bad annotation changes nothing and points at it', () => {
    const store = createPlaygroundStore(defaultInputs());
    const before = store.getState().limiters;
    renderPanel(store);
    fireEvent.change(screen.getByLabelText(/^Paste nginx/), {
      target: { value: MANIFEST.replace('"10"', '"10r/s"') },
    });
    fireEvent.click(screen.getByRole('button', { name: /^Import into/ }));
    expect(store.getState().limiters).toBe(before);
    expect(screen.getByTestId('import-errors')).toHaveTextContent(
      '6:44 nginx.ingress.kubernetes.io/limit-rps: expected a whole number in quotes ("10"), got "10r/s"',
    );
  });
});
