// @vitest-environment jsdom
/**
 * The request flow's label counts what its strip holds, for any traffic and moment: the requests
 * waiting in the limiter, those passed to the backend and those rejected in the last moments (each
 * request's phase from `flowPhase`), and the latest rejection only when there is one. The counts
 * are made in one pass over the placed requests (a filter per count made a list per
 * frame); this holds them to a count made here, request by request.
 */
import fc from 'fast-check';
import { cleanup, render } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { RequestFlow } from '../../src/viz';
import { FLOW_LINGER_MS, flowPhase } from '../../src/viz/requests';
import { frame } from './fixtures';

afterEach(cleanup);

describe('RequestFlow label', () => {
  it('counts waiting, passed and rejected requests as their phases say', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 3000 }), { minLength: 1, maxLength: 60 }),
        fc.integer({ min: 0, max: 3500 }),
        (times, nowMs) => {
          // nginx limit_req with a small queue: requests pass, wait or are rejected.
          const f = frame(
            { kind: 'leaky-bucket', rate: 10, rateUnit: 'r/s', burst: 3, delay: 1 },
            times,
            nowMs,
          );
          const { container } = render(
            <RequestFlow nowMs={nowMs} requests={f.requests} reducedMotion={false} />,
          );
          const label = container.querySelector('svg')?.getAttribute('aria-label') ?? '';
          let waiting = 0;
          let passed = 0;
          let rejected = 0;
          for (const r of f.requests) {
            const phase = flowPhase(r, nowMs, 400, FLOW_LINGER_MS)?.phase;
            if (phase === 'waiting') waiting += 1;
            if (phase === 'to-backend' || phase === 'at-backend') passed += 1;
            if (phase === 'bounce' || phase === 'at-client') rejected += 1;
          }
          const waitingText = `${waiting} ${waiting === 1 ? 'request' : 'requests'} waiting`;
          expect(label).toContain(`Request flow: ${waitingText} in the limiter;`);
          expect(label).toContain(` ${passed} passed to the backend and ${rejected} rejected`);
          expect(label.includes('latest rejection')).toBe(rejected > 0);
          cleanup();
        },
      ),
      { numRuns: 150 },
    );
  });
});
