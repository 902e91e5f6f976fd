import { describe, expect, it } from 'vitest';
import type { AlgorithmConfig } from '../../src/core';
import { SYSTEMS, systemById } from '../../src/systems';
import {
  ADMIT,
  REJECT,
  emptyKeyId,
  emptyKeyName,
  emptyKeyOutcome,
  emptyKeyWords,
  parseTrace,
  replayColumns,
  replayWithEmptyKey,
  virtualTimes,
} from '../../src/trace';
import type { KeySpec } from '../../src/trace';

const enc = (s: string) => new TextEncoder().encode(s);

/** A JSON-lines log: every request at t = 0, keyed by `user` ('' = the field is missing). */
function jsonl(users: string[]): string {
  return users
    .map((u, i) =>
      JSON.stringify({
        ts: 1_700_000_000_000 + i,
        ...(u === '' ? {} : { api: u }),
      }),
    )
    .join('\n');
}

/** Two requests a key pass; a third within 100 s is rejected. */
const TIGHT: AlgorithmConfig = { kind: 'fixed-window', limit: 2, windowMs: 100_000 };

describe("each system's rule for an empty key", () => {
  it('is the rule its source says, for every system', () => {
    const rules = Object.fromEntries(SYSTEMS.map((s) => [s.id, s.emptyKey]));
    expect(rules).toEqual({
      nginx: 'not-limited',
      envoy: 'shared',
      traefik: 'shared',
      haproxy: 'not-limited',
      'redis-cell': 'shared',
      'redis-fixed-window': 'shared',
      'redis-sliding-log': 'shared',
      'redis-sliding-window': 'shared',
      cloudflare: 'shared',
      kong: 'client',
      'envoy-global': 'not-limited',
      caddy: 'shared',
      'spring-gateway': { denied: 403 },
      'express-rate-limit': 'shared',
      'rate-limiter-flexible': 'shared',
    });
  });

  it('gives the replay outcome of each rule', () => {
    expect(emptyKeyOutcome('not-limited')).toBe('admit');
    expect(emptyKeyOutcome({ denied: 403 })).toBe('reject');
    expect(emptyKeyOutcome('shared')).toBeNull();
    expect(emptyKeyOutcome('client')).toBeNull();
    expect(emptyKeyOutcome(undefined)).toBeNull();
  });

  it('names the empty key as the trace writes it', () => {
    expect(emptyKeyName([{ kind: 'xff-first' }])).toBe('-');
    expect(emptyKeyName([{ kind: 'client' }, { kind: 'path' }])).toBe('- | -');
    expect(emptyKeyName([])).toBeNull();
  });
});

describe('a replay with an empty key', () => {
  const users = ['a', '', 'a', '', '', 'a', '', 'b'];
  const spec: KeySpec = [{ kind: 'field', name: 'api' }];
  const trace = parseTrace(enc(jsonl(users)), { name: 'x.jsonl', keySpec: spec });
  const columns = { timeMs: virtualTimes(trace), keyId: trace.keyId, keys: trace.keys };
  const id = emptyKeyId(trace);

  it('finds the requests without the field under one key', () => {
    expect(id).toBeGreaterThanOrEqual(0);
    expect(trace.keys[id]).toBe('-');
    expect(Array.from(trace.keyId).filter((k) => k === id).length).toBe(4);
  });

  it('nginx: admits them without counting them; the others decide as before', () => {
    const r = replayWithEmptyKey(columns, TIGHT, { id, outcome: 'admit' });
    expect(Array.from(r.outcome)).toEqual([
      ADMIT,
      ADMIT,
      ADMIT,
      ADMIT,
      ADMIT,
      REJECT,
      ADMIT,
      ADMIT,
    ]);
    expect([r.admitted, r.delayed, r.rejected]).toEqual([7, 0, 1]);
  });

  it('Spring Cloud Gateway: denies them, and counts nothing for them', () => {
    const r = replayWithEmptyKey(columns, TIGHT, { id, outcome: 'reject' });
    expect(Array.from(r.outcome)).toEqual([
      ADMIT,
      REJECT,
      ADMIT,
      REJECT,
      REJECT,
      REJECT,
      REJECT,
      ADMIT,
    ]);
    expect([r.admitted, r.rejected]).toEqual([3, 5]);
  });

  it('a shared key: the replay without an exemption (two of the four pass)', () => {
    const shared = replayWithEmptyKey(columns, TIGHT, null);
    expect(shared).toEqual(replayColumns(columns, TIGHT));
    expect(
      Array.from(shared.outcome).filter((o, i) => users[i] === '' && o === REJECT).length,
    ).toBe(2);
  });

  it('says what each system does, with the count', () => {
    const sys = (id: string) => systemById(id) as NonNullable<ReturnType<typeof systemById>>;
    const xff: KeySpec = [{ kind: 'xff-first' }];
    expect(emptyKeyWords(1204, xff, sys('nginx'))).toBe(
      '1,204 requests have no X-Forwarded-For: nginx does not limit them (not counted).',
    );
    expect(emptyKeyWords(1, spec, sys('spring-gateway'))).toBe(
      '1 request has no value in "api": Spring Cloud Gateway denies it with 403, without counting it.',
    );
    expect(emptyKeyWords(3, xff, sys('express-rate-limit'))).toBe(
      '3 requests have no X-Forwarded-For: express-rate-limit counts them all under one empty key.',
    );
    expect(emptyKeyWords(3, xff, sys('kong'))).toContain(
      'uses the client address as the key instead',
    );
  });
});
