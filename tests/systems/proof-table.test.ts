/**
 * The README's systems table is the proof table: every registered system has a row, every row says
 * what it is proven against, and every test file a row names exists. A system added to the registry
 * without a row, or a row pointing at a test that was moved or deleted, fails here.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SYSTEMS } from '../../src/systems';
import type { SystemId } from '../../src/systems';

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
