/**
 * Caddy `rate_limit` (github.com/mholt/caddy-ratelimit) as a Caddyfile site block. The module is
 * not in standard Caddy: build with `xcaddy build --with github.com/mholt/caddy-ratelimit`.
 */
import type { AlgorithmConfig } from '../core';
import { assertAlgorithmConfig } from '../core';
import type { SystemExportOutcome } from './systems-types';

/** A Go duration for whole ms (Caddyfile durations use Go's syntax). */
function goDuration(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  if (ms % 1000 === 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}

export function toCaddy(config: AlgorithmConfig): SystemExportOutcome {
  const c = assertAlgorithmConfig(config);
  if (c.kind !== 'sliding-log' || c.windowMs < 2) {
    return {
      ok: false,
      target: 'caddy',
      kind: c.kind,
      reason:
        'caddy-ratelimit is an exact sliding log of `events` per `window`: choose the Caddy system (sliding log, window ≥ 2 ms here) to export it.',
    };
  }
  // ringbuffer.go allows iff now − oldest > window; the model's log counts while < windowMs, so
  // Caddy's window is windowMs − 1 ms.
  const window = goDuration(c.windowMs - 1);
  const text = `{
\torder rate_limit before reverse_proxy
}

example.com {
\trate_limit {
\t\tzone per_client {
\t\t\tkey    {remote_host}
\t\t\tevents ${c.limit}
\t\t\twindow ${window}
\t\t}
\t}
\treverse_proxy localhost:8080
}
`;
  const differences: string[] = [];
  if (c.logRejected === true) {
    differences.push('Caddy logs only allowed events; this limiter logs rejected ones too.');
  }
  return {
    ok: true,
    target: 'caddy',
    language: 'caddyfile',
    text,
    assumes:
      'Caddy 2 built with github.com/mholt/caddy-ratelimit (xcaddy build --with github.com/mholt/caddy-ratelimit); read at master 5625512',
    differences,
    notes: [
      `window is the playground's window − 1 ms: Caddy still counts an event exactly window old.`,
      'Rejected requests get 429 with Retry-After (seconds, rounded); jitter 0.',
    ],
  };
}
