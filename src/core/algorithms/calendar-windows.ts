import { CALENDAR_UNITS, UNIT_SECONDS, periodOf } from '../calendar';
import type { CalendarWindowState, CalendarWindowsInspection } from '../inspect';
import { KeyedLimiter } from '../keyed';
import type { CalendarUnit, CalendarWindowsConfig, Decision, StateSize } from '../types';

interface Counter {
  /** Start of the period this count belongs to. */
  startMs: number;
  count: number;
  /** The counter is gone from here on: its period's end, or earlier with Kong's counter TTL. */
  expiresAtMs: number;
}

interface State {
  /** The latest time decided at: a clock that goes backwards reasons at this time. */
  lastMs: number;
  /** One counter per configured unit, in the order of `units`; null until first counted. */
  counters: (Counter | null)[];
}

interface Unit {
  unit: CalendarUnit;
  limit: number;
}

/** The configured units with their limits, shortest first. */
export function calendarUnits(config: CalendarWindowsConfig): Unit[] {
  const out: Unit[] = [];
  for (const unit of CALENDAR_UNITS) {
    const limit = config[unit];
    if (limit !== undefined) out.push({ unit, limit });
  }
  return out;
}

/**
 * Several fixed windows at once, each aligned to its UTC period; a request passes only if every
 * window has room, and then counts in all of them.
 *
 * Kong 3.10 `kong/plugins/rate-limiting/handler.lua` (access → get_usage): for every configured
 * period, remaining = limit − usage; any remaining ≤ 0 stops the request; only a passed request is
 * incremented (`increment` in a timer after the check), in every period. `policies/init.lua`
 * ("local"): the counter key carries the period's start (`kong/tools/timestamp.lua`
 * get_timestamps: UTC second, minute, hour, day, month, year), and `shm:incr(key, 1, 0,
 * EXPIRATION[period])` gives a new counter a TTL of the period's nominal length
 * (`expiration.lua`: month 2,592,000 s, year 31,536,000 s) — `counterTtl`.
 *
 * envoyproxy/ratelimit (`src/limiter/cache_key.go`, `src/redis/fixed_cache_impl.go`): the key
 * carries (now / divider) · divider, epoch-aligned (`src/utils/utilities.go` UnitToDivider: month
 * 30 days, year 365 days — `align: 'epoch'`); INCRBY comes before the comparison, so over-limit
 * hits are counted too — `countRejected` — and a request with several descriptors increments all
 * of them (`base_limiter.go` GetResponseDescriptorStatus: over limit iff after-increase > limit).
 * `shadowMode` (base_limiter.go, same function): an over-limit status is reported OK, its
 * limit_remaining staying 0; the counts are the same as without it.
 */
export class CalendarWindowsLimiter extends KeyedLimiter<CalendarWindowsConfig, State> {
  private readonly units = calendarUnits(this.config);
  private readonly align = this.config.align ?? 'calendar';
  private readonly countRejected = this.config.countRejected === true;
  private readonly ttl = this.config.counterTtl === true;
  private readonly shadow = this.config.shadowMode === true;

  /**
   * The period of `unit` containing virtual time t, in virtual time: the UTC period (or epoch
   * multiple) containing epoch ms t + originMs, less originMs. Whole ms within 2^52: exact.
   */
  private period(unit: CalendarUnit, t: number): [startMs: number, endMs: number] {
    const o = this.originMs;
    const [start, end] = periodOf(unit, t + o, this.align);
    return [start - o, end - o];
  }

  /**
   * The last period worked out for each window, [start, end) in virtual time (none yet: NaN). A
   * period holds every time from its start to its end, so a time inside it has that period: the
   * decisions ask for it again and again without making a new pair for each request (a streamed
   * log's dry run decides millions, and the garbage grew the worker's heap).
   */
  private readonly lastStart = new Float64Array(this.units.length).fill(Number.NaN);
  private readonly lastEnd = new Float64Array(this.units.length).fill(Number.NaN);

  /** The start of window i's period holding t (`period`); its end is then lastEnd[i]. */
  private periodStart(i: number, t: number): number {
    if (!(t >= (this.lastStart[i] as number) && t < (this.lastEnd[i] as number))) {
      const [start, end] = this.period((this.units[i] as Unit).unit, t);
      this.lastStart[i] = start;
      this.lastEnd[i] = end;
    }
    return this.lastStart[i] as number;
  }

  /** The live count of window i at effective time t (0 when its counter is gone or stale). */
  private countAt(c: Counter | null | undefined, i: number, t: number): number {
    if (c === null || c === undefined) return 0;
    return c.startMs === this.periodStart(i, t) && t < c.expiresAtMs ? c.count : 0;
  }

  /** Counts one hit in every window at effective time t. */
  private countAll(s: State, t: number): void {
    for (let i = 0; i < this.units.length; i += 1) {
      const c = s.counters[i];
      if (c !== null && c !== undefined && this.countAt(c, i, t) > 0) {
        c.count += 1;
        continue;
      }
      const u = this.units[i] as Unit;
      const startMs = this.periodStart(i, t);
      const endMs = this.lastEnd[i] as number;
      const expiresAtMs = this.ttl ? Math.min(endMs, t + UNIT_SECONDS[u.unit] * 1000) : endMs;
      s.counters[i] = { startMs, count: 1, expiresAtMs };
    }
  }

  protected decideAt(nowMs: number, key: string, k: number): Decision {
    let s = this.find(key, k);
    if (s === undefined) {
      s = { lastMs: nowMs, counters: this.units.map(() => null) };
      this.put(key, k, s);
    }
    if (nowMs > s.lastMs) s.lastMs = nowMs;
    const t = s.lastMs;
    const m = this.units.length;
    let blocked = false;
    for (let i = 0; i < m && !blocked; i += 1) {
      blocked = this.countAt(s.counters[i], i, t) >= (this.units[i] as Unit).limit;
    }
    // shadow_mode: the hit is counted like every hit (fixed_cache_impl.go increments before
    // base_limiter.go compares) and the OVER_LIMIT status is turned into OK afterwards.
    if (!blocked || this.countRejected || this.shadow) this.countAll(s, t);
    let remaining = Number.MAX_SAFE_INTEGER;
    let retryAt = nowMs;
    let resetAt = nowMs;
    for (let i = 0; i < m; i += 1) {
      const u = this.units[i] as Unit;
      const c = s.counters[i];
      const n = this.countAt(c, i, t);
      remaining = Math.min(remaining, Math.max(0, u.limit - n));
      if (c === null || c === undefined || n === 0) continue;
      resetAt = Math.max(resetAt, c.expiresAtMs);
      if (n >= u.limit) retryAt = Math.max(retryAt, c.expiresAtMs);
    }
    const limit = (this.units[0] as Unit).limit;
    if (blocked && this.shadow) {
      // base_limiter.go: the status was built as OVER_LIMIT with limit_remaining 0; shadow_mode
      // changes only its code to OK.
      return this.result('admit', 0, 0, 0, limit, resetAt - nowMs);
    }
    if (blocked) {
      return this.result('reject', 0, retryAt - nowMs, 0, limit, resetAt - nowMs);
    }
    return this.result('admit', 0, 0, remaining, limit, resetAt - nowMs);
  }

  protected inspectAt(nowMs: number, key: string, s: State | undefined): CalendarWindowsInspection {
    const t = s !== undefined && s.lastMs > nowMs ? s.lastMs : nowMs;
    const windows: CalendarWindowState[] = this.units.map((u, i) => {
      const c = s?.counters[i];
      const [startMs, endMs] = this.period(u.unit, t);
      const count = this.countAt(c, i, t);
      const expiresAtMs = count > 0 && c !== null && c !== undefined ? c.expiresAtMs : endMs;
      return { unit: u.unit, limit: u.limit, startMs, endMs, count, expiresAtMs };
    });
    return {
      kind: 'calendar-windows',
      key,
      nowMs,
      effectiveNowMs: t,
      seen: s !== undefined,
      limit: (this.units[0] as Unit).limit,
      align: this.align,
      countRejected: this.countRejected,
      shadowMode: this.shadow,
      windows,
    };
  }

  protected copyState(s: State): State {
    return { lastMs: s.lastMs, counters: s.counters.map((c) => (c === null ? null : { ...c })) };
  }

  protected isIdle(s: State, nowMs: number): boolean {
    const t = Math.max(nowMs, s.lastMs);
    return s.counters.every((c, i) => this.countAt(c, i, t) === 0);
  }

  protected sizeOf(s: State, nowMs: number): StateSize {
    const t = Math.max(nowMs, s.lastMs);
    const entries = s.counters.filter((c, i) => this.countAt(c, i, t) > 0).length;
    // One shared-dict / Redis integer counter per live window.
    return { entries, bytes: entries * 16 };
  }

  protected empty(): CalendarWindowsLimiter {
    return new CalendarWindowsLimiter(this.config, this.originMs);
  }
}
