/**
 * redis-cell `CL.THROTTLE key max_burst count period` (brandur/redis-cell 0.3.x), on the GCRA
 * algorithm. It returns an array — [limited 0/1, limit, remaining, retry_after s (-1 when allowed),
 * reset_after s] (README.md, "Response") — and sends nothing over HTTP: the application picks the
 * status. The README maps the array onto X-RateLimit-Limit / -Remaining / -Reset and Retry-After,
 * which is what the "standard headers" option adds (with the IETF RateLimit fields).
 */
import type { SystemInfo } from './types';

export const redisCell: SystemInfo = {
  id: 'redis-cell',
  name: 'redis-cell CL.THROTTLE',
  version: 'redis-cell 0.3.1',
  group: 'Redis and app libraries',
  kind: 'gcra',
  algorithms: ['gcra'],
  urlName: 'gcra',
  summary:
    'Tracks a theoretical arrival time (TAT) that advances by period/count per request; admits while TAT is within burst+1 intervals of now.',
  // src/lib.rs (redis-cell 0.3.1): CL.THROTTLE takes the key as the caller passes it; an empty
  // key is one Redis key like any other, so every such request shares it.
  emptyKey: 'shared',
  params: [
    { key: 'count', field: 'count', help: 'Requests per period (sustained rate).', input: 'int' },
    {
      key: 'period',
      field: 'periodMs',
      unit: 'ms',
      url: 'duration',
      help: 'The period count is measured over.',
      input: 'int',
    },
    {
      key: 'max_burst',
      field: 'burst',
      help: 'Requests allowed on top of the first at once (limit = max_burst + 1).',
      input: 'int',
    },
  ],
  defaultConfig: { kind: 'gcra', count: 5, periodMs: 1000, burst: 4 },
  standardHeadersHow:
    'The application sets them from the CL.THROTTLE reply (limit, remaining, retry_after, reset_after).',
};
