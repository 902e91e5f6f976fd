/**
 * The streaming pass's dry run (src/trace/stream.ts) decides each request through core's limiter
 * by the key's id (Limiter.useKeyIndex over the merger's live key index, decideKey) rather than
 * through `decide`, which makes a Decision per request and looks the key up in a Map. It must make
 * the same decisions: checked call by call against a fresh core limiter deciding the same request
 * through `decide`, for every system's default limiter and empty-key rule at once, over a log read
 * in segments whose later parts bring new keys, with lines further back than the reorder window
 * (decided at an earlier time) and idle keys the limiters forget; and the whole result equals the
 * one the same pass gives with every key found through the limiters' Maps.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLimiter, emptyKeyOutcome } from '../../src/core';
import type { AlgorithmConfig, Decision, Limiter } from '../../src/core';
import { SYSTEMS } from '../../src/systems';
import { StreamPass, TraceStream, streamRead } from '../../src/trace';
import type {
  KeySpec,
  RangeReader,
  StreamEmptyOutcome,
  StreamResult,
  StreamSource,
} from '../../src/trace';

const T0 = 1_767_571_200_000;
const SPEC: KeySpec = [{ kind: 'field', name: 'user' }];

/**
 * `n` JSON lines, seeded: users from a pool that grows through the log (later segments bring new
 * keys), a few users much busier than the rest, pauses long enough for keys to go idle; every 10th
 * line names no user but has an address, every 17th has neither; every 400th line is 20 to 40
 * minutes late (further back than the 5-minute reorder window). About one in eleven is a 429.
 */
function log(n: number, seed: number): string {
  const out: string[] = [];
  let ms = T0;
  let x = seed;
  for (let i = 0; i < n; i += 1) {
    x = (x * 1_103_515_245 + 12_345) % 2 ** 31;
    const r = Math.floor(x / 65_536);
    ms += r % 97 === 0 ? 4_000 : r % 40;
    const late = i % 400 === 399 ? 1_200_000 + (r % 1_200_000) : 0;
    const time = new Date(ms - late).toISOString();
    const status = r % 11 === 0 ? 429 : 200;
    const pool = 20 + Math.floor(i / 200);
    const user = r % 3 === 0 ? `busy${r % 4}` : `u${r % pool}`;
    if (i % 17 === 0) out.push(JSON.stringify({ time, ip: '', user: '', status }));
    else if (i % 10 === 0) {
      out.push(JSON.stringify({ time, ip: `10.0.${r % 3}.${r % 7}`, user: '', status }));
    } else out.push(JSON.stringify({ time, ip: '192.0.2.9', user, status }));
  }
  return out.join('\n') + '\n';
}

const BYTES = new TextEncoder().encode(log(100_000, 7));

function source(): StreamSource {
  const blob = new Blob([BYTES]);
  return {
    name: 'big.jsonl',
    size: blob.size,
    slice: (a, b) => blob.slice(a, b),
    stream: () => blob.stream(),
  };
}

/** Every system's default limiter and its rule for empty-key requests, as the page passes them. */
const CONFIGS: AlgorithmConfig[] = SYSTEMS.map((s) => s.defaultConfig);
const RULES: StreamEmptyOutcome[] = SYSTEMS.map((s) =>
  s.emptyKey === 'client' ? 'client' : emptyKeyOutcome(s.emptyKey),
);

/** The pass over the log read in 6 segments, 2 at once (range readers in this thread). */
function pass(): Promise<StreamResult> {
  const file = source();
  const readRange: RangeReader = async (start, end, options) => {
    const s = new TraceStream({ ...options, rangeStart: start });
    s.push(new Uint8Array(await file.slice(start, end).arrayBuffer()));
    return s.finishPart();
  };
  const p = new StreamPass(file.name, SPEC, CONFIGS, 'recorded', null, RULES);
  return streamRead(
    file,
    p,
    { keySpec: SPEC },
    {
      parallel: 2,
      readRange,
      progress: () => {},
      segmentBytes: Math.ceil(BYTES.length / 6),
    },
  );
}

/** The prototype every core limiter's `decide`, `decideKey` and `useKeyIndex` come from. */
const KEYED = Object.getPrototypeOf(
  Object.getPrototypeOf(createLimiter({ kind: 'fixed-window', limit: 1, windowMs: 1000 })),
) as Limiter;

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the streaming dry run decides by key id, as core decides', () => {
  it('every request is decided through decideKey, with the key’s id for a limiter that is not keyed by address; never through decide', async () => {
    const decide = vi.spyOn(KEYED, 'decide');
    const decideKey = vi.spyOn(KEYED, 'decideKey');
    const indexed = vi.spyOn(KEYED, 'useKeyIndex');
    const r = await pass();
    expect(decide).not.toHaveBeenCalled();
    expect(decideKey.mock.calls.length).toBeGreaterThan(r.requests);
    const slotted = RULES.filter((x) => x !== 'client').length;
    // Given the index again as later parts bring keys: more than once per slotted limiter.
    expect(indexed.mock.calls.length).toBeGreaterThan(slotted);
    const withId = decideKey.mock.calls.filter(([, , k]) => k >= 0).length;
    expect(withId).toBeGreaterThan(r.requests);
  });

  it('each decision equals a fresh core limiter’s `decide` of the same request, limiter by limiter', async () => {
    const reference = new Map<Limiter, Limiter>();
    // The prototype's own method, called below on each limiter as `this`.
    const original = Object.getOwnPropertyDescriptor(KEYED, 'decideKey')?.value as (
      this: Limiter,
      nowMs: number,
      key: string,
      k: number,
    ) => Decision;
    let calls = 0;
    const mismatches: string[] = [];
    vi.spyOn(KEYED, 'decideKey').mockImplementation(function (
      this: Limiter,
      nowMs: number,
      key: string,
      k: number,
    ): Decision {
      let ref = reference.get(this);
      if (ref === undefined) {
        ref = createLimiter(this.config, { originMs: this.originMs });
        reference.set(this, ref);
      }
      const want = ref.decide(nowMs, key);
      const got = original.call(this, nowMs, key, k);
      calls += 1;
      if (JSON.stringify(got) !== JSON.stringify(want) && mismatches.length < 5) {
        mismatches.push(`${this.config.kind} at ${nowMs} for ${key}: ${JSON.stringify(got)}`);
      }
      return got;
    });
    const r = await pass();
    expect(mismatches).toEqual([]);
    expect(calls).toBeGreaterThan(r.requests);
    // One reference per limiter of the pass (made afresh at the first request, on its clock).
    expect(reference.size).toBe(CONFIGS.length);
    // The log holds what the slots must get right: requests outside the window, the empty key's
    // three rules, Kong's addresses.
    expect(r.outsideWindow).toBeGreaterThan(40);
    expect(r.exact).toBe(false);
    expect(r.empty?.withAddress).toBeGreaterThan(0);
  });

  it('the whole result equals the pass that finds every key through the limiters’ Maps', async () => {
    const slotted = await pass();
    // Without an index, decideKey finds each state through the Map, as `decide` does.
    vi.spyOn(KEYED, 'useKeyIndex').mockImplementation(() => undefined);
    const mapped = await pass();
    expect(slotted).toEqual(mapped);
    expect(slotted.keys).toBeGreaterThan(500);
    expect(slotted.decisions.some((d) => d.rejected > 0)).toBe(true);
    expect(slotted.decisions.some((d) => d.delayed > 0)).toBe(true);
  });
});
