/**
 * The README's systems table is the proof table: every registered system has a row, every row says
 * what it is proven against, and every test file a row names exists. A system added to the registry
 * without a row, or a row pointing at a test that was moved or deleted, fails here. Every number a
 * row's proof cell states is one its proofs assert (proofCounts.ts) or one of its listed words: a
 * count mistyped in the README fails here.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SYSTEMS } from '../../src/systems';
import type { SystemId } from '../../src/systems';
import { PROOF_TABLE } from './proofCounts';

const ROOT = path.resolve(__dirname, '../..');

/** The systems table's rows: cells by column name. */
function systemRows(): Array<Record<string, string>> {
  const lines = readFileSync(path.join(ROOT, 'README.md'), 'utf8').split('\n');
  const at = lines.findIndex((l) => /^\| System +\| Version modelled/.test(l));
  expect(at, 'the README has the systems table').toBeGreaterThan(0);
  const cells = (l: string) =>
    l
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim());
  const head = cells(lines[at] as string);
  const rows: Array<Record<string, string>> = [];
  for (const line of lines.slice(at + 2)) {
    if (!line.startsWith('|')) break;
    const row = cells(line);
    rows.push(Object.fromEntries(head.map((h, i) => [h, row[i] ?? ''])));
  }
  return rows;
}

/** Words of the row's first cell that name each system (the table names products, not ids). */
const ROW_OF: Readonly<Partial<Record<SystemId, RegExp>>> = {
  nginx: /^nginx `limit_req`/,
  envoy: /^Envoy `local_ratelimit`/,
  traefik: /^Traefik `RateLimit`/,
  haproxy: /^HAProxy stick-table/,
  'redis-cell': /^redis-cell/,
  'redis-fixed-window': /^Redis INCR \+ EXPIRE/,
  'redis-sliding-log': /sorted-set log/,
  'redis-sliding-window': /^Redis two-window counter/,
  cloudflare: /^Cloudflare/,
  kong: /^Kong/,
  'envoy-global': /^Envoy global/,
  caddy: /^Caddy/,
  'spring-gateway': /^Spring Cloud Gateway/,
  'express-rate-limit': /^express-rate-limit/,
  'rate-limiter-flexible': /^rate-limiter-flexible/,
};

describe('the README proof table', () => {
  const rows = systemRows();

  it('has a row for every registered system, saying what it is proven against', () => {
    for (const system of SYSTEMS) {
      const pattern = ROW_OF[system.id];
      if (pattern === undefined) throw new Error(`${system.id}: add its row's pattern to ROW_OF`);
      const row = rows.find((r) => pattern.test(r['System'] ?? ''));
      expect(row, `${system.id}: a row in the README's systems table`).toBeDefined();
      expect(row?.['Proven, and how'] ?? '', system.id).toMatch(
        /real |known answers|source|tests\//,
      );
    }
  });

  it('states exactly the counts its proofs run, and no other number', () => {
    const named = Object.keys(PROOF_TABLE);
    for (const row of rows) {
      const system = row['System'] ?? '';
      const rowName = named.find((n) => system.startsWith(n));
      if (rowName === undefined) throw new Error(`${system}: add the row to proofCounts.ts`);
      const { counts, words } = PROOF_TABLE[rowName as keyof typeof PROOF_TABLE];
      // Numbers outside code spans (file names, options): counts with thousands separators,
      // versions whole ("3.7.9").
      const stated = (row['Proven, and how'] ?? '')
        .replace(/`[^`]*`/g, '')
        .match(/\d+(?:[.,]\d+)*/g);
      const expected = [
        ...Object.values(counts as Record<string, number>).map((n) => n.toLocaleString('en-US')),
        ...words,
      ];
      expect([...(stated ?? [])].sort(), system).toEqual(expected.sort());
    }
    expect(named).toHaveLength(rows.length);
  });

  it('names only test files that exist', () => {
    let named = 0;
    for (const row of rows) {
      for (const [, file] of (row['Proven, and how'] ?? '').matchAll(/`(tests\/[^`\s]+)`/g)) {
        expect(existsSync(path.join(ROOT, file as string)), `${row['System']}: ${file}`).toBe(true);
        named += 1;
      }
    }
    expect(named).toBeGreaterThan(10);
  });
});
