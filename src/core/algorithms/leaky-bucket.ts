import { ceilDiv, checkTime } from '../int';
import type { LeakyBucketInspection } from '../inspect';
import { KeyedLimiter, NO_STATE, fixedSize } from '../keyed';
import { DEFAULT_KEY } from '../types';
import type { Decision, KeyState, LeakyBucketConfig, Limiter, StateSize } from '../types';
import { addRelease, pendingReleases, pruneReleases } from './releases';

/** One key's node, as ngx_http_limit_req_node_t: excess and last, on an LRU queue. */
interface Node {
  key: string;
  /** Excess in milli-requests. */
  excess: number;
  /** ngx_current_msec of the last request that moved the clock forward. */
  last: number;
  /** Release times of delayed requests (drawing only). */
  releases: number[] | null;
  /** LRU queue links: `newer` towards the head (most recent), `older` towards the tail. */
  newer: Node | null;
  older: Node | null;
}

/** nginx documents one state as 64 bytes on 64-bit platforms ("One megabyte zone can keep about 16 thousand 64-byte states"). */
const NODE_BYTES = 64;
/** One node's size, shared (see fixedSize). */
const NODE_SIZE = fixedSize(1, NODE_BYTES);
/** ngx_http_limit_req_expire only looks at nodes untouched for this long. */
const EXPIRE_AFTER_MS = 60_000;

/**
 * nginx `limit_req`, an exact integer port of src/http/modules/ngx_http_limit_req_module.c
 * (ngx_http_limit_req_lookup, ngx_http_limit_req_account, ngx_http_limit_req_expire):
 *
 *   ms = now − last (ms < −60000 → 1; ms < 0 → 0)
 *   excess = max(0, excess − ⌊rate·ms / 1000⌋ + 1000)         (milli-requests)
 *   excess > burst·1000 → reject, nothing stored
 *   else store excess (and last = now if ms ≠ 0); delay ⌊(excess − delay·1000)·1000 / rate⌋ ms
 *
 * with rate = ⌊N·1000 / (1 for r/s, 60 for r/m)⌋. A key's first request makes a node with excess 0.
 * Like nginx, creating a node first expires up to two least-recently-used nodes idle for ≥ 60 s whose
 * excess has drained; a later request from such a key starts afresh.
 */
export class LeakyBucketLimiter extends KeyedLimiter<LeakyBucketConfig, Node> {
  override readonly keySizeMax = NODE_SIZE;
  /** ctx->rate: milli-requests per second. */
  readonly rateMilli = Math.floor(
    (this.config.rate * 1000) / (this.config.rateUnit === 'r/m' ? 60 : 1),
  );
  private readonly burstMilli = this.config.burst * 1000;
  private readonly delayMilli =
    this.config.delay === 'nodelay' ? Number.POSITIVE_INFINITY : this.config.delay * 1000;
  /** Excess up to which a request gets 'admit': ≤ delay, or a delay that rounds down to 0 ms. */
  private readonly admitMilli = Math.min(
    this.burstMilli,
    this.delayMilli + Math.floor((this.rateMilli - 1) / 1000),
  );
  private head: Node | null = null;
  private tail: Node | null = null;

  /** excess − ⌊rate·ms / 1000⌋ for ms ≥ 0 (not clamped at 0). */
  private drained(excess: number, ms: number): number {
    // r·ms stays exact below 2^53; above it the drain dwarfs any excess and the sign is all that counts.
    return excess - Math.floor((this.rateMilli * ms) / 1000);
  }

  private static clampMs(ms: number): number {
    return ms < -EXPIRE_AFTER_MS ? 1 : ms < 0 ? 0 : ms;
  }

  protected decideAt(nowMs: number, key: string, k: number): Decision {
    const limit = this.config.burst + 1;
    let node = this.find(key, k);
    if (node === undefined) {
      this.expire(nowMs);
      node = { key, excess: 0, last: nowMs, releases: null, newer: null, older: null };
      this.put(key, k, node);
      this.linkHead(node);
      return this.result(
        'admit',
        0,
        0,
        this.remainingAfter(0),
        limit,
        this.resetAfter(node, nowMs),
      );
    }
    if (node !== this.head) {
      // ngx_queue_remove + ngx_queue_insert_head happen on lookup, before the burst check.
      this.unlink(node);
      this.linkHead(node);
    }
    const ms = LeakyBucketLimiter.clampMs(nowMs - node.last);
    const drained = this.drained(node.excess, ms);
    const excess = drained + 1000 > 0 ? drained + 1000 : 0;
    if (excess > this.burstMilli) {
      // The earliest time ⌊rate·ms / 1000⌋ covers the excess that must go.
      const need = node.excess + 1000 - this.burstMilli;
      const retryAt = node.last + ceilDiv(need * 1000, this.rateMilli);
      return this.result('reject', 0, retryAt - nowMs, 0, limit, this.resetAfter(node, nowMs));
    }
    node.excess = excess;
    if (ms !== 0) node.last = nowMs;
    if (node.releases !== null) pruneReleases(node.releases, nowMs);
    const delayMs =
      excess <= this.delayMilli
        ? 0
        : Math.floor(((excess - this.delayMilli) * 1000) / this.rateMilli);
    const remaining = this.remainingAfter(excess);
    const resetMs = this.resetAfter(node, nowMs);
    if (delayMs === 0) return this.result('admit', 0, 0, remaining, limit, resetMs);
    node.releases ??= [];
    addRelease(node.releases, nowMs + delayMs);
    return this.result('delay', delayMs, 0, remaining, limit, resetMs);
  }

  /**
   * Further requests at this instant that get 'admit', after one was accepted with `excess`: the next
   * one at the same instant sees ms = 0 (last was set to now, or the clamp gives 0 again), hence
   * excess + 1000, and each one after it 1000 more.
   */
  private remainingAfter(excess: number): number {
    return excess + 1000 > this.admitMilli ? 0 : Math.floor((this.admitMilli - excess) / 1000);
  }

  /** Until the next request would see excess 0, as on a new node: ⌊rate·ms/1000⌋ ≥ excess + 1000. */
  private resetAfter(node: Node, nowMs: number): number {
    const idleAt = node.last + ceilDiv((node.excess + 1000) * 1000, this.rateMilli);
    return idleAt > nowMs ? idleAt - nowMs : 0;
  }

  /** ngx_http_limit_req_expire(ctx, 1): delete up to two drained nodes idle for ≥ 60 s from the tail. */
  private expire(nowMs: number): void {
    for (let n = 0; n < 2; n += 1) {
      const node = this.tail;
      if (node === null) return;
      const ms = Math.abs(nowMs - node.last);
      if (ms < EXPIRE_AFTER_MS) return;
      if (this.drained(node.excess, ms) > 0) return;
      this.forget(node.key);
    }
  }

  private linkHead(node: Node): void {
    node.older = this.head;
    node.newer = null;
    if (this.head !== null) this.head.newer = node;
    this.head = node;
    this.tail ??= node;
  }

  private unlink(node: Node): void {
    if (node.newer !== null) node.newer.older = node.older;
    else this.head = node.older;
    if (node.older !== null) node.older.newer = node.newer;
    else this.tail = node.newer;
    node.newer = null;
    node.older = null;
  }

  protected inspectAt(nowMs: number, key: string, node: Node | undefined): LeakyBucketInspection {
    const ms = node === undefined ? 0 : LeakyBucketLimiter.clampMs(nowMs - node.last);
    const drained = node === undefined ? 0 : this.drained(node.excess, ms);
    return {
      kind: 'leaky-bucket',
      key,
      nowMs,
      effectiveNowMs: node !== undefined && node.last > nowMs ? node.last : nowMs,
      seen: node !== undefined,
      limit: this.config.burst + 1,
      rateMilli: this.rateMilli,
      excessMilli: node?.excess ?? 0,
      excessNowMilli: drained > 0 ? drained : 0,
      // A key's first request makes a node with excess 0.
      excessNextMilli: node === undefined ? 0 : Math.max(0, drained + 1000),
      lastMs: node?.last ?? nowMs,
      burst: this.config.burst,
      delay: this.config.delay === 'nodelay' ? null : this.config.delay,
      releases: pendingReleases(node?.releases ?? null, nowMs),
    };
  }

  protected copyState(node: Node): Node {
    return {
      key: node.key,
      excess: node.excess,
      last: node.last,
      releases: node.releases === null ? null : node.releases.slice(),
      newer: null,
      older: null,
    };
  }

  protected isIdle(node: Node, nowMs: number): boolean {
    return nowMs >= node.last && this.resetAfter(node, nowMs) === 0;
  }

  protected sizeOf(): StateSize {
    return NODE_SIZE;
  }

  protected empty(): LeakyBucketLimiter {
    return new LeakyBucketLimiter(this.config, this.originMs);
  }

  /**
   * Forgets nothing. In nginx a node leaves only through ngx_http_limit_req_expire, which looks at
   * up to two nodes from the LRU tail and stops at the first it may not delete. Forgetting an idle
   * node early changes what that scan reaches, and the forgotten key's next request then creates a
   * node (running the scan) where nginx would find one — either can change later decisions for
   * other keys. So the nodes stay, as they do in nginx's shared-memory zone.
   */
  override prune(nowMs: number): void {
    checkTime(nowMs);
  }

  /** A node takes its 64 bytes for as long as nginx holds it, drained or not (see `prune`). */
  override stateSize(nowMs: number, key: string = DEFAULT_KEY): StateSize {
    checkTime(nowMs);
    return this.find(key, -1) !== undefined ? NODE_SIZE : NO_STATE;
  }

  protected override sizeAt(s: Node | undefined): StateSize {
    return s !== undefined ? NODE_SIZE : NO_STATE;
  }

  /** Every node nginx holds, at once: their sizes do not change with time (see `stateSize`). */
  totalStateSize(nowMs: number): StateSize {
    checkTime(nowMs);
    return { entries: this.states.size, bytes: this.states.size * NODE_BYTES };
  }

  /**
   * nginx keeps drained nodes (they count, and expiry walks the LRU queue): the same nodes, with
   * the same excess and last, in the same LRU order. Release times are for drawing only.
   */
  override sameStateAs(other: Limiter, nowMs: number): boolean {
    void nowMs;
    if (!(other instanceof LeakyBucketLimiter) || other.states.size !== this.states.size)
      return false;
    if (JSON.stringify(other.config) !== JSON.stringify(this.config)) return false;
    let a = this.head;
    let b = other.head;
    while (a !== null && b !== null) {
      if (a.key !== b.key || a.excess !== b.excess || a.last !== b.last) return false;
      a = a.older;
      b = b.older;
    }
    return a === null && b === null;
  }

  /** Copies nodes in LRU order, so expiry in the copy matches the original. */
  override clone(): Limiter {
    const copy = this.empty();
    for (let node = this.tail; node !== null; node = node.newer) {
      const c = this.copyState(node);
      copy.put(node.key, -1, c);
      copy.linkHead(c);
    }
    return copy;
  }

  protected override forget(key: string): void {
    const node = this.states.get(key);
    if (node !== undefined && (node.newer !== null || node.older !== null || this.head === node)) {
      this.unlink(node);
    }
    super.forget(key);
  }

  override setState(key: string, state: KeyState | undefined): void {
    this.forget(key);
    if (state === undefined) return;
    super.setState(key, state);
    const node = this.states.get(key) as Node;
    node.key = key;
    this.linkHead(node);
  }
}
