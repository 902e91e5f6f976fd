// @vitest-environment jsdom
/**
 * Lanes are named by their systems everywhere: the one naming rule (config's laneNames), the run's
 * lanes, the compare table, the timeline, the charts' screen-reader names, the decision log and the
 * downloads' file names. The walk of a person leaving ingress-nginx: nginx, Traefik, Kong and
 * HAProxy side by side, and a second nginx.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import { defaultConfig, laneNames } from '../../src/config';
import type { LimiterEntry, PlaygroundConfig } from '../../src/config';
import { decisionLogCsv, decisionLogJson } from '../../src/export/decision-log';
import { simulationOf } from '../../src/store';
import type { SimResult } from '../../src/sim';
import { SYSTEMS, systemById } from '../../src/systems';
import { CompareTable, Timeline } from '../../src/viz';
import { DelayHistogram } from '../../src/viz/charts';
import { fileSlug } from '../../src/ui/share/downloads';

afterEach(cleanup);

const entry = (id: string): LimiterEntry => {
  const s = systemById(id);
  if (s === undefined) throw new Error(id);
  return id === 'nginx'
    ? { config: { kind: 'leaky-bucket', rate: 10, rateUnit: 'r/s', burst: 20, delay: 'nodelay' } }
    : { system: id, config: s.defaultConfig };
};

/** nginx, Traefik, Kong, HAProxy and a second nginx, on the same burst. */
function config(): PlaygroundConfig {
  const c = defaultConfig();
  c.limiters = [entry('nginx'), entry('traefik'), entry('kong'), entry('haproxy'), entry('nginx')];
  c.scenario = { ...c.scenario, sources: [{ kind: 'burst', atMs: 100, count: 40 }] };
  c.view = { ...c.view, untilMs: 3000, mode: 'compare' };
  return c;
}

const EXPECTED = ['nginx', 'Traefik', 'Kong', 'HAProxy', 'nginx #2'];

function run(c: PlaygroundConfig): SimResult {
  const o = simulationOf({
    limiters: c.limiters,
    scenario: c.scenario,
    untilMs: c.view.untilMs,
  });
  if (!o.ok) throw new Error('the run failed');
  return o.result;
}

describe('laneNames: the one rule', () => {
  it('names a lane by its system, a second of the same system "#2", and keeps a given name', () => {
    expect(laneNames(config().limiters)).toEqual(EXPECTED);
    expect(
      laneNames([{ name: 'edge', ...entry('envoy') }, entry('envoy'), entry('envoy')]),
    ).toEqual(['edge', 'Envoy', 'Envoy #2']);
  });

  it('never gives two lanes one name, and editing a lane does not rename it', () => {
    const named = laneNames([
      { name: 'nginx #2', ...entry('nginx') },
      entry('nginx'),
      entry('nginx'),
    ]);
    expect(new Set(named).size).toBe(3);
    expect(named).toEqual(['nginx #2', 'nginx', 'nginx #3']);
    const c = config();
    const edited = c.limiters.map((l, i) =>
      i === 4 && l.config.kind === 'leaky-bucket' ? { ...l, config: { ...l.config, burst: 5 } } : l,
    );
    expect(laneNames(edited)).toEqual(EXPECTED);
  });

  it('names lanes of every system by the product, each system apart', () => {
    const ids = ['envoy', 'redis-cell', 'cloudflare', 'caddy', 'spring-gateway', 'envoy-global'];
    expect(ids.map((id) => laneNames([entry(id)])[0])).toEqual([
      'Envoy',
      'redis-cell',
      'Cloudflare',
      'Caddy',
      'Spring Cloud Gateway',
      'Envoy ratelimit service',
    ]);
    const all = SYSTEMS.map((s) => laneNames([entry(s.id)])[0]);
    expect(new Set(all).size).toBe(SYSTEMS.length);
  });
});

describe('the run and what shows it', () => {
  const result = run(config());

  it('the run carries the names', () => {
    expect(result.lanes.map((l) => l.name)).toEqual(EXPECTED);
  });

  it('the compare table and the timeline say the systems, never the algorithms', () => {
    render(<CompareTable result={result} />);
    const table = screen.getByRole('table');
    for (const name of EXPECTED) expect(table).toHaveTextContent(name);
    expect(table).not.toHaveTextContent(/Leaky bucket|Token bucket|Calendar windows|counter/);
    cleanup();
    render(
      <Timeline
        result={result}
        lanes={[0, 1, 2, 3, 4]}
        tMs={1000}
        width={600}
        selected={null}
        onSeek={() => {}}
        onSelect={() => {}}
      />,
    );
    expect(screen.getByTestId('timeline')).toHaveAccessibleName(
      `Timeline of ${EXPECTED.join(', ')}`,
    );
  });

  it('a chart names its lane by its system for screen readers', () => {
    render(<DelayHistogram result={result} lane={1} width={400} />);
    expect(screen.getByRole('img').getAttribute('aria-label')).toMatch(
      /^Delay distribution for Traefik/,
    );
  });

  it('the decision log names each lane and its system; the file name says the system', () => {
    const c = config();
    const csv = decisionLogCsv(result, c).parts.join('');
    const lanes = new Set(
      csv
        .split('\r\n')
        .slice(1, -1)
        .map((line) => line.split(',')[0]),
    );
    expect([...lanes]).toEqual(EXPECTED);
    const json = JSON.parse(decisionLogJson(result, c).parts.join('')) as {
      lanes: Array<{ name: string; system: string }>;
    };
    expect(json.lanes.map((l) => [l.name, l.system])).toEqual([
      ['nginx', 'nginx'],
      ['Traefik', 'traefik'],
      ['Kong', 'kong'],
      ['HAProxy', 'haproxy'],
      ['nginx #2', 'nginx'],
    ]);
    expect(fileSlug('nginx #2')).toBe('nginx-2');
    expect(fileSlug('Envoy ratelimit service')).toBe('envoy-ratelimit-service');
    expect(fileSlug('日本')).toBe('lane');
  });
});
