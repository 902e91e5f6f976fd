/**
 * The probe against a real nginx running the lab's own export: as exported, the verdict is "as
 * configured" (observed = expected, request by request); with a fault planted in the server's
 * config — burst off by one, limit_req_status left at its 503, nodelay missing — the verdict says
 * what differs and the diagnosis names the fault. Each case has its own location and zone; the
 * probes run one after another (about 5 s each), so that one's sending does not delay another's,
 * and a run the verdict calls too uneven to time (a busy machine) is probed again (proof.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LeakyBucketConfig } from '../../src/core';
import type { Gateway } from './gateways';
import { NGINX, startNginx } from './gateways';
import { loudSkip } from '../export/servers';
import { linkOf } from './fake';
import { differing, expectAsConfigured, expectDiagnosis, nginxExport, probeUntil } from './proof';

if (NGINX === undefined)
  loudSkip('the probe against nginx (tests/probe/nginx.server.test.ts)', 'nginx');

/** What the lab is configured with. */
const LAB: LeakyBucketConfig = {
  kind: 'leaky-bucket',
  rate: 10,
  rateUnit: 'r/s',
  burst: 5,
  delay: 'nodelay',
  limitReqStatus: 429,
};

/** What each location of the real nginx runs: the export of these (the lab's, or a planted fault). */
const SERVED: Record<string, LeakyBucketConfig> = {
  exported: LAB,
  'burst-off-by-one': { ...LAB, burst: 4 },
  'status-503': { kind: 'leaky-bucket', rate: 10, rateUnit: 'r/s', burst: 5, delay: 'nodelay' },
  'nodelay-missing': { ...LAB, delay: 0 },
};

describe.skipIf(NGINX === undefined)('the probe against a real nginx', () => {
  let gateway: Gateway | undefined;
  const link = linkOf({ config: LAB });
  const at = (name: string) => `${(gateway as Gateway).url}/${name}/`;
  const ADDRESS = { kind: 'address' } as const;

  beforeAll(async () => {
    const parts = Object.entries(SERVED).map(([name, config], i) => ({
      name,
      ...nginxExport(config, { zone: `z${i}`, zoneSize: '1m' }),
    }));
    gateway = await startNginx(
      parts.flatMap((p) => p.http),
      (port) => `  server {
    listen 127.0.0.1:${port};
${parts.map((p) => `    location /${p.name}/ {\n${p.location.map((l) => `      ${l}`).join('\n')}\n      try_files /index.html =404;\n    }`).join('\n')}
  }`,
    );
  }, 30_000);

  afterAll(async () => {
    await gateway?.stop();
  });

  it('as exported: every request gets the model’s decision, status and headers', async () => {
    await probeUntil(at('exported'), link, ADDRESS, 'nginx as exported', (run) => {
      expectAsConfigured(run);
      expect(run.verdict.findings.find((f) => f.check === 'burst')?.text).toBe(
        'burst: 6 passed of 14 sent at once, as configured',
      );
    });
  }, 60_000);

  it('burst off by one: the burst check and the diagnosis say burst 4', async () => {
    await probeUntil(at('burst-off-by-one'), link, ADDRESS, 'nginx burst 4', (run) => {
      expect(run.verdict.findings.find((f) => f.check === 'burst')?.text).toBe(
        'burst: expected 6 to pass of 14 sent at once, got 5',
      );
      expectDiagnosis(run, 'consistent with burst 4 (configured: burst 5)');
    });
  }, 60_000);

  it('limit_req_status left out: status 503, decisions as configured', async () => {
    await probeUntil(at('status-503'), link, ADDRESS, 'nginx without limit_req_status', (run) => {
      const { verdict } = run;
      expect(verdict.overall).toBe('differs');
      expect(differing(verdict)).toEqual([
        expect.stringMatching(
          /^status: expected 429, got 503 \(nginx’s default: limit_req_status is not set\) on \d+ rejected requests$/,
        ),
      ]);
      expect(verdict.diagnosis.configuredExplains).toBe(true);
    });
  }, 60_000);

  it('nodelay missing: requests delayed, the diagnosis says delay=0', async () => {
    await probeUntil(at('nodelay-missing'), link, ADDRESS, 'nginx without nodelay', (run) => {
      // The burst's expected count is the plan's own (the configured model at the planned
      // times): 6 pass at once; nginx passed one and held five.
      expect(run.verdict.findings.find((f) => f.check === 'burst')?.text).toBe(
        'burst: expected 6 to pass of 14 sent at once, got 1 at once and 5 delayed',
      );
      expectDiagnosis(run, 'consistent with delay=0 (configured: nodelay)');
    });
  }, 60_000);
});
