/**
 * The `fleet=` link parameter: a deployment's fleet settings, readable, as
 * `<option>=<value>,…` with `;` between list items. Absent means no fleet (links from before fleets
 * open unchanged). Options:
 *
 *   weights=4;3;3          weight per replica slot (weighted balancer)
 *   service=exponential:40ms   hold time for least-outstanding (fixed | uniform | exponential)
 *   scale=5@10s;2@30s      replica count N at time D
 *   autoscale=20r/s:1s:1-8[:offered]   target per replica, period, min-max, load basis
 *   store_rtt=2ms, jitter=3ms, timeout=20ms   the store's round trip
 *   outage=200s-260s;300s-310s   store down in [from, to)
 *   down=open|closed|local, status=429|500   policy when unreachable
 *   sync=1s                batched increments (Kong sync_rate)
 *   cache                  envoyproxy/ratelimit's over-limit cache
 *   kong=cluster|redis     Kong rate-limiting policy of the store (replicas are Kong nodes)
 *
 * Decoding never throws: unreadable values are left as text for the schema to name.
 */
import type { Fleet, StoreModel } from '../sim';
import { formatDuration, parseDuration, parseWhole } from './format';

const num = (text: string): number | string => {
  const n = Number(text);
  return text !== '' && Number.isFinite(n) ? n : text;
};
const dur = (text: string): number | string => parseDuration(text) ?? text;
const whole = (text: string): number | string => parseWhole(text) ?? text;

/** The text of `fleet` (without `fleet=`). */
export function encodeFleet(fleet: Fleet): string {
  const parts: string[] = [];
  if (fleet.weights !== undefined) parts.push(`weights=${fleet.weights.join(';')}`);
  if (fleet.service !== undefined)
    parts.push(`service=${fleet.service.kind}:${formatDuration(fleet.service.meanMs)}`);
  if (fleet.scale !== undefined)
    parts.push(
      `scale=${fleet.scale.map((e) => `${e.instances}@${formatDuration(e.atMs)}`).join(';')}`,
    );
  const a = fleet.autoscale;
  if (a !== undefined) {
    parts.push(
      `autoscale=${a.perReplicaRps}r/s:${formatDuration(a.everyMs)}:${a.min}-${a.max}${a.on === undefined ? '' : `:${a.on}`}`,
    );
  }
  const s = fleet.store;
  if (s !== undefined) {
    parts.push(`store_rtt=${formatDuration(s.rttMs)}`);
    if (s.jitterMs !== 0) parts.push(`jitter=${formatDuration(s.jitterMs)}`);
    if (s.timeoutMs !== undefined) parts.push(`timeout=${formatDuration(s.timeoutMs)}`);
    if (s.outages.length > 0)
      parts.push(
        `outage=${s.outages.map((o) => `${formatDuration(o.fromMs)}-${formatDuration(o.toMs)}`).join(';')}`,
      );
    parts.push(`down=${s.onDown}`);
    if (s.downStatus !== undefined) parts.push(`status=${s.downStatus}`);
    if (s.syncMs !== undefined) parts.push(`sync=${formatDuration(s.syncMs)}`);
    if (s.cacheOverLimit === true) parts.push('cache');
    if (s.kong !== undefined) parts.push(`kong=${s.kong}`);
  }
  return parts.join(',');
}

/** Where a part of the decoded fleet came from: its path inside the fleet, option and text. */
export interface FleetOrigin {
  path: Array<string | number>;
  option: string;
  text: string;
}

/** Problems met while reading (option names unknown): the schema checks the values. */
export interface FleetDecode {
  fleet: Record<string, unknown>;
  unknown: string[];
  /** Each option's parts, so a message names the option (`fleet outage`) and what it said. */
  origins: FleetOrigin[];
}

/** Reads the text of `fleet=` into a candidate fleet object. Never throws. */
export function decodeFleet(text: string): FleetDecode {
  const fleet: Record<string, unknown> = {};
  const unknown: string[] = [];
  const origins: FleetOrigin[] = [];
  const from = (option: string, path: Array<string | number>, text: string): void => {
    origins.push({ path, option, text });
  };
  let store: Record<string, unknown> | null = null;
  const storeOf = (): Record<string, unknown> => {
    store ??= { rttMs: 1, jitterMs: 0, outages: [], onDown: 'open' } satisfies StoreModel;
    return store;
  };
  const list = (v: string): string[] => (v === '' ? [] : v.split(';'));
  for (const part of text.split(',')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const key = eq < 0 ? part : part.slice(0, eq);
    const value = eq < 0 ? '' : part.slice(eq + 1);
    switch (key) {
      case 'weights':
        fleet.weights = list(value).map(whole);
        from(key, ['weights'], value);
        list(value).forEach((item, i) => from(key, ['weights', i], item));
        break;
      case 'service': {
        const [kind = '', mean = ''] = value.split(':');
        fleet.service = { kind, meanMs: dur(mean) };
        from(key, ['service'], value);
        from(key, ['service', 'kind'], kind);
        from(key, ['service', 'meanMs'], mean);
        break;
      }
      case 'scale':
        fleet.scale = list(value).map((item, i) => {
          const at = item.indexOf('@');
          from(key, ['scale', i], item);
          from(key, ['scale', i, 'instances'], at < 0 ? item : item.slice(0, at));
          from(key, ['scale', i, 'atMs'], at < 0 ? item : item.slice(at + 1));
          return at < 0
            ? { instances: item, atMs: item }
            : { instances: whole(item.slice(0, at)), atMs: dur(item.slice(at + 1)) };
        });
        break;
      case 'autoscale': {
        const [rate = '', every = '', range = '', on] = value.split(':');
        const perMin = rate.endsWith('r/m');
        const perSec = num(rate.replace(/r\/[sm]$/, ''));
        const [min = '', max = ''] = range.split('-');
        fleet.autoscale = {
          perReplicaRps: typeof perSec === 'number' && perMin ? perSec / 60 : perSec,
          everyMs: dur(every),
          min: whole(min),
          max: whole(max),
          ...(on === undefined ? {} : { on }),
        };
        from(key, ['autoscale'], value);
        from(key, ['autoscale', 'perReplicaRps'], rate);
        from(key, ['autoscale', 'everyMs'], every);
        from(key, ['autoscale', 'min'], min);
        from(key, ['autoscale', 'max'], max);
        if (on !== undefined) from(key, ['autoscale', 'on'], on);
        break;
      }
      case 'store_rtt':
        storeOf().rttMs = dur(value);
        from(key, ['store', 'rttMs'], value);
        break;
      case 'jitter':
        storeOf().jitterMs = dur(value);
        from(key, ['store', 'jitterMs'], value);
        break;
      case 'timeout':
        storeOf().timeoutMs = dur(value);
        from(key, ['store', 'timeoutMs'], value);
        break;
      case 'outage':
        storeOf().outages = list(value).map((item, i) => {
          const dash = item.indexOf('-', 1);
          from(key, ['store', 'outages', i], item);
          from(key, ['store', 'outages', i, 'fromMs'], dash < 0 ? item : item.slice(0, dash));
          from(key, ['store', 'outages', i, 'toMs'], dash < 0 ? item : item.slice(dash + 1));
          return dash < 0
            ? { fromMs: item, toMs: item }
            : { fromMs: dur(item.slice(0, dash)), toMs: dur(item.slice(dash + 1)) };
        });
        break;
      case 'down':
        storeOf().onDown = value;
        from(key, ['store', 'onDown'], value);
        break;
      case 'status':
        storeOf().downStatus = num(value);
        from(key, ['store', 'downStatus'], value);
        break;
      case 'sync':
        storeOf().syncMs = dur(value);
        from(key, ['store', 'syncMs'], value);
        break;
      case 'cache':
        storeOf().cacheOverLimit = value === '' || value === 'true' ? true : value;
        from(key, ['store', 'cacheOverLimit'], value);
        break;
      case 'kong':
        storeOf().kong = value;
        from(key, ['store', 'kong'], value);
        break;
      default:
        unknown.push(key);
    }
  }
  if (store !== null) fleet.store = store;
  return { fleet, unknown, origins };
}
