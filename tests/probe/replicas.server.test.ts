/**
 * Two replicas behind an nginx upstream (round robin), each with its own limit_req zone: the lab's
 * export on each replica. Configured as one instance, the probe's burst passes twice what it
 * should and the diagnosis says "2 replicas each holding its own bucket"; configured as two
 * instances each with local state, the verdict is "as configured". The replicas key by the
 * X-Forwarded-For header (which the front nginx passes on) and the path, so each case has keys of
 * its own.
 *
 * With RLL_PROBE_FIXTURE=<file>, the one-instance case's result file is written there (the browser
 * test's fixture, tests/probe/fixtures/two-replicas.json, was made so).
 */
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LeakyBucketConfig } from '../../src/core';
import { resultText } from '../../src/probe';
import { loudSkip } from '../export/servers';
import { linkOf } from './fake';
import type { Gateway } from './gateways';
import { NGINX, startNginx } from './gateways';
import { expectAsConfigured, expectDiagnosis, nginxExport, probeUntil } from './proof';

if (NGINX === undefined) {
  loudSkip('the probe against two nginx replicas (tests/probe/replicas.server.test.ts)', 'nginx');
}

const LAB: LeakyBucketConfig = {
  kind: 'leaky-bucket',
  rate: 10,
  rateUnit: 'r/s',
  burst: 5,
  delay: 'nodelay',
  limitReqStatus: 429,
};
const KEY = { kind: 'header', name: 'X-Forwarded-For' } as const;

describe.skipIf(NGINX === undefined)('the probe against two replicas behind nginx', () => {
  let gateway: Gateway | undefined;

  beforeAll(async () => {
    const replicas = [0, 1].map((i) =>
      nginxExport(LAB, { zone: `replica${i}`, zoneSize: '1m', key: '$http_x_forwarded_for$uri' }),
    );
    gateway = await startNginx(
      replicas.flatMap((r) => r.http),
      (port, ports) => {
        return `  upstream replicas {
${ports.map((p) => `    server 127.0.0.1:${p};`).join('\n')}
  }
  server {
    listen 127.0.0.1:${port};
    location / { proxy_pass http://replicas; }
  }
${replicas
  .map(
    (r, i) => `  server {
    listen 127.0.0.1:${ports[i] as number};
    location / {
${r.location.map((l) => `      ${l}`).join('\n')}
      try_files /index.html =404;
    }
  }`,
  )
  .join('\n')}`;
      },
      'replicas',
      2,
    );
  }, 30_000);

  afterAll(async () => {
    await gateway?.stop();
  });

  it('configured as one instance: the diagnosis finds two replicas each with its own bucket', async () => {
    const one = await probeUntil(
      `${(gateway as Gateway).url}/one/`,
      linkOf({ config: LAB }),
      KEY,
      'two replicas, one instance configured',
      (run) => {
        expect(run.verdict.findings.find((f) => f.check === 'burst')?.text).toBe(
          'burst: expected 6 to pass of 14 sent at once, got 12',
        );
        expectDiagnosis(run, 'consistent with 2 replicas each holding its own bucket of burst 5');
      },
    );
    const fixture = process.env.RLL_PROBE_FIXTURE;
    if (fixture !== undefined && fixture !== '') writeFileSync(fixture, resultText(one.result));
  }, 90_000);

  it('configured as two instances each with local state: as configured', async () => {
    await probeUntil(
      `${(gateway as Gateway).url}/two/`,
      linkOf({ config: LAB }, 2, 'local'),
      KEY,
      'two replicas, two instances configured',
      expectAsConfigured,
    );
  }, 90_000);
});
