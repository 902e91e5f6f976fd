/**
 * Caddy's rate_limit (caddy-ratelimit 5625512) against a reference written the way its source is:
 * ringbuffer.go keeps a ring of `events` times per key with a cursor at the oldest; an event is
 * allowed iff now − ring[cursor] > window (then it is recorded), else When() = ring[cursor] +
 * window − now; handler.go refuses only when When() > 0, with Retry-After =
 * strconv.FormatFloat(wait.Seconds() + 0.5, 'f', 0, 64). Caddy does not run here (it is built with
 * xcaddy from Go modules this machine cannot fetch): these are known answers from that source,
 * on traces that put requests exactly `window` after an event.
 */
import { describe, expect, it } from 'vitest';
import { createLimiter } from '../../src/core';
import { toCaddy } from '../../src/export';
import { deriveConfig, systemById } from '../../src/systems';
import { int, seeded } from '../export/gen';
import { entryResponse } from '../../src/systems/respond';
import { proofCount } from './proofCounts';

const caddy = systemById('caddy');
if (caddy === undefined) throw new Error('caddy is registered');

/** Go's FormatFloat(x, 'f', 0, 64): the nearest whole number, ties to even. */
function goRound0(x: number): string {
  const f = Math.floor(x);
  const frac = x - f;
  if (frac > 0.5) return String(f + 1);
  if (frac < 0.5) return String(f);
  return String(f % 2 === 0 ? f : f + 1);
}

/** One key's ring, as ringbuffer.go keeps it (null: Go's zero time, always allowed). */
class Ring {
  private readonly ring: Array<number | null>;
  private cursor = 0;
  constructor(
    events: number,
    private readonly windowMs: number,
  ) {
    this.ring = Array<number | null>(events).fill(null);
  }
  /** handler.go: the status and Retry-After for a request at `now`. */
  serve(now: number): { status: number; retryAfter?: string } {
    const oldest = this.ring[this.cursor] ?? null;
    if (oldest === null || now - oldest > this.windowMs) {
      this.ring[this.cursor] = now;
      this.cursor = (this.cursor + 1) % this.ring.length;
      return { status: 200 };
    }
    const waitMs = oldest + this.windowMs - now; // When()
    if (waitMs <= 0) return { status: 200 }; // dur > 0 is false: passes, nothing reserved
    const seconds = Math.floor(waitMs / 1000) + (waitMs % 1000) / 1000; // Duration.Seconds()
    return { status: 429, retryAfter: goRound0(seconds + 0.5) };
  }
}

describe('Caddy rate_limit = its ring buffer and handler', () => {
  it('a request exactly window after the oldest event passes and is not recorded', () => {
    // events 2, window 1s: the Caddy system's window + 1 ms is 1001.
    const config = deriveConfig(caddy, { kind: 'sliding-log', limit: 2, windowMs: 1001 });
    const l = createLimiter(config);
    const at = (t: number) => entryResponse({ system: 'caddy', config }, l.decide(t, 'k'), 'x');
    expect([at(0).status, at(0).status, at(999).status]).toEqual([200, 200, 429]);
    expect(at(999).headers).toEqual([['Retry-After', '1']]);
    // Exactly 1 s after the oldest: When() = 0, the handler lets it through unrecorded …
    expect(at(1000).status).toBe(200);
    expect(at(1000).status).toBe(200);
    // … so the ring still holds 0 and 0: 1 ms later both have expired and two pass again.
    expect([at(1001).status, at(1001).status, at(1001).status]).toEqual([200, 200, 429]);
  });

  it('decides and answers as the ring on traces with steps of exactly window', () => {
    const rng = seeded(4141);
    let compared = 0;
    let edge = 0;
    let rejected = 0;
    for (let run = 0; run < 200; run += 1) {
      const events = int(rng, 1, 6);
      const windowMs = [1, 2, 10, 250, 1000, 1500, 60_000][int(rng, 0, 6)] as number;
      const config = deriveConfig(caddy, {
        kind: 'sliding-log',
        limit: events,
        windowMs: windowMs + 1,
      });
      const model = createLimiter(config);
      const rings = new Map<string, Ring>();
      let t = int(rng, 0, 10_000);
      const times: number[] = [];
      for (let i = 0; i < 60; i += 1) {
        const r = rng();
        // Same instant, a little later, exactly window after an earlier request, or anything.
        if (r < 0.3) t += 0;
        else if (r < 0.55) t += int(rng, 1, Math.max(1, windowMs));
        else if (r < 0.85 && times.length > 0)
          t = Math.max(t, (times[int(rng, 0, times.length - 1)] as number) + windowMs);
        else t += int(rng, 1, 3 * windowMs + 1);
        times.push(t);
        const key = rng() < 0.8 ? 'a' : 'b';
        const ring = rings.get(key) ?? new Ring(events, windowMs);
        rings.set(key, ring);
        const want = ring.serve(t);
        const before = model.inspect(t, key);
        const d = model.decide(t, key);
        const got = entryResponse({ system: 'caddy', config }, d, 'x');
        const shown = {
          status: got.status,
          retryAfter: got.headers.find(([n]) => n === 'Retry-After')?.[1],
        };
        expect(shown, `events ${events}, window ${windowMs} ms, ${key} at ${t}`).toEqual(
          want.retryAfter === undefined ? { status: want.status, retryAfter: undefined } : want,
        );
        compared += 1;
        if (want.status === 429) rejected += 1;
        if (
          d.outcome === 'admit' &&
          before.kind === 'sliding-log' &&
          before.entries.length >= events
        ) {
          edge += 1;
        }
      }
    }
    console.info(
      `caddy-ratelimit ring vs model: ${compared} decisions and Retry-After compared (${rejected} refused, ${edge} passed unrecorded at exactly window), 0 disagreements`,
    );
    expect(rejected).toBeGreaterThan(500);
    expect(edge).toBeGreaterThan(100);
    // The counts the README's proof table states.
    expect(compared).toBe(proofCount('Caddy `rate_limit`', 'decisions'));
    expect(rejected).toBe(proofCount('Caddy `rate_limit`', 'refused'));
    expect(edge).toBe(proofCount('Caddy `rate_limit`', 'passedUnrecorded'));
  });

  it("the export's window is Caddy's: the model's window − 1 ms", () => {
    const out = toCaddy(deriveConfig(caddy, { kind: 'sliding-log', limit: 10, windowMs: 60_001 }));
    expect(out.ok && out.text).toContain('window 1m');
    expect(out.ok && out.text).toContain('events 10');
  });
});
