/**
 * Caddy's `rate_limit` handler (github.com/mholt/caddy-ratelimit, master 5625512, v0.1.0+7),
 * modelled on the sliding-log algorithm. ringbuffer.go: a ring of `events` timestamps per key; an
 * event is allowed iff now − (oldest in the ring) > window, then it replaces the oldest; a refused
 * event is not recorded; When() = oldest + window − now when not allowed. handler.go ServeHTTP
 * refuses only when When() > 0: a request exactly `window` after the oldest event gets 0 and passes
 * without being recorded (the sliding log's `lastMsPasses`). rateLimitExceeded: 429 with
 * Retry-After = the wait in seconds + 0.5, printed with no decimals (strconv 'f', 0: round half to
 * even).
 */
import type { SystemInfo } from './types';

export const CADDY_RATELIMIT_VERSION = 'mholt/caddy-ratelimit master 5625512 (v0.1.0+7)';
const V = CADDY_RATELIMIT_VERSION;

export const caddy: SystemInfo = {
  id: 'caddy',
  name: 'Caddy rate_limit (caddy-ratelimit)',
  version: V,
  group: 'Proxies and gateways',
  kind: 'sliding-log',
  algorithms: ['sliding-log'],
  urlName: 'caddy',
  summary:
    'Keeps the times of the last `events` passed requests per key in a ring; a request passes once the oldest is more than `window` old.',
  // handler.go: `key := repl.ReplaceAll(rl.Key, "")` — an unknown or empty placeholder becomes
  // "", and limitersMap.getOrInsert keys the ring buffer by that string: one shared key "".
  emptyKey: 'shared',
  params: [
    { key: 'events', field: 'limit', help: 'Events allowed in any window.', input: 'int' },
    {
      key: 'window + 1 ms',
      // The link writes Caddy's own window (caddyfile.go `window`): plain words, Caddy's value.
      urlKey: 'window',
      urlOffset: 1,
      field: 'windowMs',
      unit: 'ms',
      url: 'duration',
      help: "Caddy's window plus 1 ms (Caddy still counts an event exactly window old).",
      input: 'int',
    },
  ],
  defaultConfig: { kind: 'sliding-log', limit: 5, windowMs: 1001, lastMsPasses: true },
  derive(config) {
    // ringbuffer.go reserves only allowed events: refused ones are not logged; and handler.go lets
    // a request through unrecorded when When() is 0 (the oldest exactly `window` old).
    if (config.kind !== 'sliding-log') return config;
    const { kind, limit, windowMs } = config;
    return { kind, limit, windowMs, lastMsPasses: true };
  },
  standardHeadersSent: false,
  standardHeadersHow:
    'caddy-ratelimit sends only Retry-After on its 429, and the Caddy export does not add RateLimit headers: a header directive can only send constants and placeholders, and caddy-ratelimit’s one placeholder is the zone’s name, not its remaining or reset. The response shown is what the exported Caddyfile sends.',
};
