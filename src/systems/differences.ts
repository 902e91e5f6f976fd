/**
 * What each system's model leaves out or does differently from the real product, in plain words
 * (the version and files each model follows are in its own module). Shown under the limiter's
 * parameters; a separate module so the first load does not carry the text.
 */
import type { SystemId } from './types';

const APP_STATUS =
  'Redis answers commands, not HTTP: the 429 is what most applications send; the status and headers are the application’s choice.';

export const SYSTEM_DIFFERENCES: Readonly<Record<SystemId, readonly string[]>> = {
  caddy: [
    "Caddy counts an event while now − event ≤ window; the sliding log here counts while < window, so its window is Caddy's window + 1 ms (the export subtracts it back). A request exactly window after the oldest event passes without being recorded, as in Caddy (When() is 0 there). Decisions are then identical on a millisecond clock.",
    'Caddy compares nanosecond times; the playground uses whole milliseconds.',
    'jitter (a random addition to Retry-After) and the distributed mode (instances sharing state through storage) are not modelled.',
  ],
  'redis-sliding-window': [
    'Upstash’s script (@upstash/ratelimit) rounds the previous window’s weighted count down before it compares; the count here is exact (as the Redis export’s script), so near the limit Upstash admits a request or two more.',
    APP_STATUS,
  ],
  cloudflare: [
    'Cloudflare counts at each data centre and only approximately; it also keeps blocking for the rule’s mitigation timeout (10 s to 1 day, or throttling with the Block action on Enterprise plans), which the playground does not model.',
    'Which periods the dashboard offers depends on the plan; the API takes 10 s, 1, 2, 5 or 10 min and 1 h.',
    'Retry-After on the 1015 page is a fixed 30 s, not the time the window needs.',
  ],
  'envoy-global': [
    'One descriptor per unit on one key; real descriptors can each carry their own key (remote_address, a header …).',
    'shadow_mode is one switch for all descriptors (per descriptor in the service).',
    'The local over-limit cache (LOCAL_CACHE_SIZE_IN_BYTES, off by default) and STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT (off by default) stop counting some over-limit hits; not modelled.',
    'EXPIRATION_JITTER_MAX_SECONDS only lengthens key lifetimes; it does not change decisions.',
    'The service is reached over gRPC: its latency and failure_mode_deny are not modelled.',
  ],
  envoy: [
    "x-ratelimit-reset: Envoy reports its bucket's own reset seconds; the playground shows the seconds until the bucket is full again.",
    'Envoy never sends Retry-After from this filter; response_headers_to_add holds constants only.',
  ],
  'express-rate-limit': [
    'Only the default MemoryStore is modelled; other stores (Redis, Memcached …) keep their own windows.',
    'skip, skipFailedRequests and skipSuccessfulRequests (which decrement after the response) are not modelled.',
    'A key is keyed by what keyGenerator returns (by default the IP, IPv6 grouped by /56); here by the simulated client key.',
  ],
  haproxy: [
    'HAProxy’s clock is a 32-bit millisecond counter that wraps every 49.7 days; a new entry created while it is within one period of 0 is not re-anchored there. The playground’s clock does not wrap.',
    'Entry expiry runs as a task at the expiry millisecond: a request in that very millisecond may still find the entry. The playground forgets it from that millisecond on.',
    'The table’s size is not modelled: a full table frees its (size / 256) + 1 entries closest to expiry, or with nopurge tracks nothing (new clients pass).',
    'Keys are the playground’s clients (track-sc0 src keys by source address); peers synchronisation between HAProxy instances is not modelled.',
    'Times are whole milliseconds, as HAProxy’s now_ms is; HAProxy samples it once per event-loop wake-up.',
    'With several threads, simultaneous requests of one client at a period’s rotation can see other counts than one at a time (seen with 2 threads; the proof runs nbthread 1).',
  ],
  kong: [
    'Kong increments in a timer after the access phase, so requests that arrive together on one worker are all checked against the same count (Kong #2629); here each request sees the ones before it on the same node.',
    'cluster and redis (sync_rate −1) policies: see the fleet store policy. redis with sync_rate > 0 is not modelled.',
    'The local policy keeps one counter per Kong node (nginx shared dict): N nodes allow N times the limit.',
    'limit_by picks the key (consumer, credential, ip, service, header, path); here the simulated client key. fault_tolerant and hide_client_headers are not modelled.',
    "RateLimit-Reset uses each period's nominal length (a month is 30 days), as Kong does, so near the end of a 31-day month it is not the time to the reset.",
  ],
  nginx: [
    'limit_req adds no rate-limit headers; the added ones come from add_header lines, which hold constants: no per-request Retry-After and no remaining count.',
  ],
  'rate-limiter-flexible': [
    'Only RateLimiterMemory is modelled (RateLimiterRedis and the other stores share the rules but not the clock).',
    'duration 0 (never expires), points 0 and penalty/reward/block/set calls are not modelled; consume(key, points) is modelled with the same points on every request (pointsToConsume).',
    'The store also drops each record with a setTimeout of its duration, which Node may run up to a millisecond before Date.now() reaches the record’s expiry: a request in a window’s very last millisecond can find a new window. The playground follows the expiry time.',
    "The library sends no HTTP response; the headers shown are the README's suggestion and are marked as added.",
  ],
  'redis-cell': [
    'redis-cell answers a Redis command, not HTTP: the 429 is what most applications send; the status and headers are the application’s choice.',
    'redis-cell works in whole seconds for period, retry_after and reset_after; the playground keeps milliseconds.',
  ],
  'redis-fixed-window': [APP_STATUS],
  'redis-sliding-log': [APP_STATUS],
  'spring-gateway': [
    'requestedTokens other than 1 is not modelled (the playground takes one token per request).',
    'When ⌊2 · burstCapacity / replenishRate⌋ = 0 (burstCapacity < replenishRate / 2) the script stores no state and lets every request through; the model still limits (the export warns).',
    "On a Redis error the filter allows the request (remaining -1); Redis's own key expiry runs on real time and cannot change a decision otherwise (the bucket is full again by then).",
  ],
  traefik: [
    'x/time/rate keeps float64 tokens and nanoseconds; the playground keeps exact tokens and requests on whole ms, and decides with Traefik’s maxDelay to the ns (16,000 decisions compared with the real library, none differs). A delayed request is drawn waiting to the next whole ms.',
    'X-Retry-In replays x/time/rate’s float64 bucket over the requests that met the row’s own bucket: one instance’s, or in a fleet the replica the balancer chose (started again when a scale-in removed it), as proven per replica against the real library. Where no one bucket holds the key’s history (racy shared state, a fleet’s batched copies), it shows the exact wait of the state the request met, which Traefik can write 1 ns apart (13.999999ms for 14ms).',
    'A shared store (shared atomic state, a fleet’s store) is Traefik’s Redis limiter (redis:, redis_limiter.go and lua.go @ v3.7.9): the playground runs its script’s arithmetic — the bucket in µs on doubles, a wait returned with 14 significant digits and read back as a Duration, a wait between ⌊maxDelay⌋ µs and maxDelay passed without taking its token, the key dropped by Redis ttl seconds after its last request, to the ms — proven on a real redis-server. Traefik’s and Redis’s clocks are taken to be one.',
    'Racy shared state has no Traefik counterpart: its script runs atomically in Redis. The playground shows that script’s bucket read and written back late, as a read-then-write store would.',
    'sourceCriterion (ipStrategy, requestHeaderName, requestHost) picks the key; the playground’s clients are the keys.',
  ],
};
