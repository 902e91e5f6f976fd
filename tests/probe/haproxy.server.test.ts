/**
 * The probe against a real haproxy (Debian's 2.6.12) running the lab's own HAProxy export: a
 * stick-table counting http_req_rate per client address (each key from its own 127.0.0.x), deny
 * above the limit. As exported: "as configured". Without deny_status, HAProxy denies with 403:
 * the verdict says so, and the diagnosis that every decision is the configuration's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SlidingWindowCounterConfig } from '../../src/core';
import { toHaproxy } from '../../src/export';
import { loudSkip } from '../export/servers';
import { linkOf } from './fake';
import type { Gateway } from './gateways';
import { HAPROXY, startHaproxy } from './gateways';
import { differing, expectAsConfigured, probeUntil } from './proof';

if (HAPROXY === undefined) {
  loudSkip('the probe against haproxy (tests/probe/haproxy.server.test.ts)', 'haproxy');
}

const LAB: SlidingWindowCounterConfig = {
  kind: 'sliding-window-counter',
  limit: 5,
  windowMs: 1000,
  anchor: 'entry',
  expireMs: 30_000,
  denyStatus: 429,
};

/** The exported frontend lines, bound to `port`, answering 200 to what passes. */
function frontend(config: SlidingWindowCounterConfig, name: string, port: number): string {
  const out = toHaproxy(config, { frontend: name, size: '10k' });
  if (!out.ok) throw new Error(out.reason);
  const [head, ...body] = out.text.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('#'));
  return [
    head,
    `    bind 127.0.0.1:${port}`,
    ...body,
    '    http-request return status 200',
    '',
  ].join('\n');
}

describe.skipIf(HAPROXY === undefined)('the probe against a real haproxy', () => {
  let exported: Gateway | undefined;
  let noStatus: Gateway | undefined;
  const link = linkOf({ system: 'haproxy', config: LAB });
  const ADDRESS = { kind: 'address' } as const;

  beforeAll(async () => {
    exported = await startHaproxy((port) => frontend(LAB, 'exported', port));
    const withoutStatus: SlidingWindowCounterConfig = { ...LAB };
    delete withoutStatus.denyStatus;
    noStatus = await startHaproxy((port) => frontend(withoutStatus, 'no_status', port));
  }, 30_000);

  afterAll(async () => {
    await exported?.stop();
    await noStatus?.stop();
  });

  it('as exported: every request gets the model’s decision, status and headers', async () => {
    await probeUntil(
      `${(exported as Gateway).url}/`,
      link,
      ADDRESS,
      'haproxy as exported',
      (run) => {
        expect(run.plan.phases.map((p) => p.id)).toEqual([
          'burst',
          'steady',
          'refill',
          'keys',
          'boundary',
        ]);
        expectAsConfigured(run);
      },
    );
  }, 90_000);

  it('deny_status left out: 403, decisions as configured', async () => {
    await probeUntil(
      `${(noStatus as Gateway).url}/`,
      link,
      ADDRESS,
      'haproxy without deny_status',
      (run) => {
        expect(differing(run.verdict)).toEqual([
          expect.stringMatching(
            /^status: expected 429, got 403 \(HAProxy’s deny without deny_status\) on \d+ rejected requests$/,
          ),
        ]);
        expect(run.verdict.diagnosis.configuredExplains).toBe(true);
      },
    );
  }, 90_000);
});
