/**
 * An access log line whose client address is written `-` has no address: an access log writes `-`
 * for a value it does not have, and neither nginx (`$remote_addr`) nor Apache (`%h`) writes it for a
 * real client (src/trace/nginx.ts addressOf). Under Kong, which keys an empty-key request by its
 * client address, such a line stays under the one empty key (the rule for a line with no address)
 * instead of being keyed under a client named `-`, held and streamed alike, and the page counts it
 * among the lines with no address.
 */
import { describe, expect, it } from 'vitest';
import { systemById } from '../../src/systems';
import {
  BlobSink,
  StreamPass,
  emptyKeyId,
  emptyKeyWords,
  holdTrace,
  keyEmptyByClient,
  parseTrace,
  streamRead,
} from '../../src/trace';
import type { KeySpec } from '../../src/trace';
import { addressed } from '../../src/ui/traffic/EmptyKeyRow';
import { MAIN, SPEC, mainLine as line } from './emptyKeyLog';
import { readModes, streamSource } from './emptyKeyStream';

/**
 * Without X-Forwarded-For: 203.0.113.7 twice and three lines whose address is `-`; with it, two
 * requests of 198.51.100.9 through a proxy.
 */
const LINES = [
  line(1, '203.0.113.7', '-'),
  line(2, '-', '-'),
  line(3, '10.0.0.1', '198.51.100.9'),
  line(4, '-', '-'),
  line(5, '203.0.113.7', '-'),
  line(6, '10.0.0.1', '198.51.100.9'),
  line(7, '-', '-'),
];
const BYTES = new TextEncoder().encode(`${LINES.join('\n')}\n`);
const KONG = systemById('kong')!;
const CONFIG = { kind: 'fixed-window', limit: 1, windowMs: 60_000 } as const;

function held(spec: KeySpec = SPEC) {
  return holdTrace(parseTrace(BYTES, { name: 'access.log', logFormat: MAIN, keySpec: spec })).held;
}

describe('a log line whose address is `-` has no address', () => {
  it('held: only the real addresses are kept for the empty-key requests', () => {
    const h = held();
    const ec = h.emptyClients!;
    expect(Array.from(ec.client, (c) => (c === 0 ? null : ec.names[c - 1]))).toEqual([
      '203.0.113.7',
      null,
      null,
      '203.0.113.7',
      null,
    ]);
    expect(addressed(ec)).toBe(2);
  });

  it('under Kong the `-` lines stay under the one empty key, not a client named `-`', () => {
    const h = held();
    const moved = keyEmptyByClient(h, h.emptyClients)!;
    expect(moved.moved).toBe(2);
    const empty = emptyKeyId(h);
    expect(Array.from(moved.keyId).filter((k) => k === empty)).toHaveLength(3);
    // One key is named `-`: the empty key itself.
    expect(moved.keys.filter((k) => k === '-')).toHaveLength(1);
    expect(moved.keys[moved.keyId[6] as number]).toBe('-');
    expect(moved.keyId[6]).toBe(empty);
  });

  it('keyed by the client address, a `-` line is the empty key, with no address kept', () => {
    const h = held([{ kind: 'client' }]);
    const empty = emptyKeyId(h);
    expect(h.keys[empty]).toBe('-');
    expect(Array.from(h.keyId).filter((k) => k === empty)).toHaveLength(3);
    expect(h.emptyClients).toBeUndefined();
  });

  it('a `-` address is no client behind which many user agents hide (no NAT hint)', () => {
    // Twelve user agents on lines with no address, and as many behind 192.0.2.1: only that
    // address is a hint, by the byte reader (keyed by the address) and the string reader alike.
    const text = Array.from({ length: 24 }, (_, i) =>
      line(i, i % 2 === 0 ? '-' : '192.0.2.1', '-').replace('"curl/8"', `"agent/${i >> 1}"`),
    ).join('\n');
    for (const keySpec of [[{ kind: 'client' }], SPEC] as KeySpec[]) {
      const t = parseTrace(new TextEncoder().encode(`${text}\n`), {
        name: 'access.log',
        logFormat: MAIN,
        keySpec,
      });
      expect(
        t.natHints.map((n) => n.client),
        JSON.stringify(keySpec),
      ).toEqual(['192.0.2.1']);
    }
  });

  const { modes } = readModes(BYTES);
  for (const [mode, hooks] of modes) {
    it(`streamed (${mode}): the same count with an address as the held read`, async () => {
      const pass = new StreamPass(
        'access.log',
        SPEC,
        [CONFIG],
        'recorded',
        new BlobSink(),
        'client',
      );
      const r = await streamRead(
        streamSource(BYTES),
        pass,
        { keySpec: SPEC, logFormat: MAIN },
        hooks,
      );
      expect(r.requests).toBe(7);
      expect(r.empty).toMatchObject({ key: '-', requests: 5, withAddress: 2 });
      // Kong's dry run: each 203.0.113.7 line with its address (1 a minute: one rejected), the
      // three with no address under one key (two rejected), 198.51.100.9 (one rejected).
      expect(r.decisions[0]?.rejected).toBe(4);
    });
  }

  it('the page counts the `-` lines among those with no address', () => {
    const h = held();
    expect(emptyKeyWords(h.emptyRequests, SPEC, KONG, addressed(h.emptyClients))).toBe(
      "5 requests have no X-Forwarded-For: Kong uses the client address as the key instead. The stage, the dry run and the sweep count the 2 that have one with their address's other requests, and the other 3 (no address on their lines) under one shared key.",
    );
  });
});
