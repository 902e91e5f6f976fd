/**
 * Kong keys a request whose key is empty by its client address: the trace keeps those requests'
 * addresses (and only theirs), and the dry run counts each with its address's other requests.
 */
import { describe, expect, it } from 'vitest';
import { systemById } from '../../src/systems';
import {
  REJECT,
  emptyKeyId,
  emptyKeyWords,
  holdTrace,
  keyEmptyByClient,
  parseTrace,
  replayWithEmptyKey,
} from '../../src/trace';
import { MAIN, SPEC, mainLine as line } from './emptyKeyLog';

/**
 * 203.0.113.7 behind a proxy (X-Forwarded-For names it) four times, and directly (no header)
 * three times; 198.51.100.9 directly three times. One of the direct lines is written late (out of
 * order), so the trace sorts it into place.
 */
const LINES = [
  line(1, '10.0.0.1', '203.0.113.7'),
  line(2, '203.0.113.7', '-'),
  line(3, '10.0.0.1', '203.0.113.7'),
  line(4, '198.51.100.9', '-'),
  line(6, '10.0.0.1', '203.0.113.7'),
  line(7, '198.51.100.9', '-'),
  line(8, '10.0.0.1', '203.0.113.7'),
  line(9, '203.0.113.7', '-'),
  line(5, '203.0.113.7', '-'),
  line(10, '198.51.100.9', '-'),
];

function built() {
  const text = `${LINES.join('\n')}\n`;
  return parseTrace(new TextEncoder().encode(text), {
    name: 'access.log',
    logFormat: MAIN,
    keySpec: SPEC,
  });
}

/** Kong's default: 5 a minute (and 100 an hour). */
const KONG = systemById('kong')!;
const CONFIG = KONG.derive?.(KONG.defaultConfig) ?? KONG.defaultConfig;

describe("Kong: an empty key falls back to the client's address", () => {
  it('the trace keeps the addresses of the empty-key requests only, in trace order', () => {
    const t = built();
    const empty = emptyKeyId(t);
    expect(empty).toBeGreaterThanOrEqual(0);
    const ec = t.emptyClients!;
    expect(ec).toBeDefined();
    // Six requests have no X-Forwarded-For; in time order their addresses are these.
    expect(Array.from(ec.client, (c) => ec.names[c - 1])).toEqual([
      '203.0.113.7',
      '198.51.100.9',
      '203.0.113.7',
      '198.51.100.9',
      '203.0.113.7',
      '198.51.100.9',
    ]);
  });

  it("the dry run counts them with their address's other requests", () => {
    const { held } = holdTrace(built());
    const moved = keyEmptyByClient(held, held.emptyClients)!;
    expect(moved.moved).toBe(6);
    // The header's 203.0.113.7 and the connection's 203.0.113.7 are one key; 198.51.100.9 is new.
    const xffId = held.keys.indexOf('203.0.113.7');
    const rows = (id: number) => Array.from(moved.keyId).filter((k) => k === id).length;
    expect(rows(xffId)).toBe(7);
    expect(rows(moved.keys.indexOf('198.51.100.9'))).toBe(3);
    expect(rows(emptyKeyId(held))).toBe(0);
    const times = held.times as Int32Array;
    const replay = replayWithEmptyKey(
      { timeMs: times, keyId: moved.keyId, keys: moved.keys },
      CONFIG,
      null,
    );
    // Seven requests of 203.0.113.7 in one minute against 5 a minute: the last two are rejected.
    expect(replay.rejected).toBe(2);
    const rejectedKeys = Array.from(replay.outcome)
      .map((o, i) => (o === REJECT ? moved.keys[moved.keyId[i] as number] : null))
      .filter((k) => k !== null);
    expect(rejectedKeys).toEqual(['203.0.113.7', '203.0.113.7']);
    // One shared key instead (what the lab did): the six would be limited together.
    const shared = replayWithEmptyKey(
      { timeMs: times, keyId: held.keyId, keys: held.keys },
      CONFIG,
      null,
    );
    expect(shared.rejected).toBe(1);
  });

  it('a key that is the address itself, or a log without addresses, keeps nothing', () => {
    const byClient = parseTrace(new TextEncoder().encode(`${LINES.join('\n')}\n`), {
      name: 'access.log',
      logFormat: MAIN,
    });
    expect(byClient.emptyClients).toBeUndefined();
    const csv = 'time,user\n2026-12-07T10:00:00Z,a\n2026-12-07T10:00:01Z,\n';
    const t = parseTrace(new TextEncoder().encode(csv), {
      name: 'x.csv',
      keySpec: [{ kind: 'field', name: 'user' }],
    });
    expect(emptyKeyId(t)).toBeGreaterThanOrEqual(0);
    expect(t.emptyClients).toBeUndefined();
    expect(keyEmptyByClient(t, t.emptyClients)).toBeNull();
  });

  it('says what Kong does, and where', () => {
    expect(emptyKeyWords(6, SPEC, KONG, 6)).toBe(
      "6 requests have no X-Forwarded-For: Kong uses the client address as the key instead. The stage, the dry run and the sweep count them with their address's other requests.",
    );
    expect(emptyKeyWords(1, SPEC, KONG, 1)).toBe(
      "1 request has no X-Forwarded-For: Kong uses the client address as the key instead. The stage, the dry run and the sweep count it with its address's other requests.",
    );
    expect(emptyKeyWords(3, SPEC, KONG)).toBe(
      '3 requests have no X-Forwarded-For: Kong uses the client address as the key instead; the lab has no address for them here, so it counts them under one shared key.',
    );
  });
});
