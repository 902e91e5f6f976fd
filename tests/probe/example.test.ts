/**
 * examples/probe/nginx.conf, the gateway the README's loop starts, holds the lab's own export of
 * the link in its header, line for line: when the export changes, this fails until the example
 * follows.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { decodeConfig } from '../../src/config/url';
import { toNginx } from '../../src/export';

const FILE = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../examples/probe/nginx.conf',
);

it('the example gateway runs the export of the link it names', () => {
  const text = readFileSync(FILE, 'utf8');
  const link = /^#\s+(\?v=1&\S+)$/m.exec(text)?.[1];
  expect(link).toBe('?v=1&l=nginx:rate=10r/s,burst=5,nodelay,limit_req_status=429');
  const decoded = decodeConfig(link as string);
  expect(decoded.errors).toEqual([]);
  const out = toNginx((decoded.config.limiters[0] as { config: never }).config);
  if (!out.ok) throw new Error(out.reason);
  const directives = out.text.split('\n').filter((l) => l !== '' && !l.startsWith('#'));
  expect(directives.length).toBeGreaterThanOrEqual(3);
  const lines = text.split('\n').map((l) => l.trim());
  for (const d of directives) expect(lines, `the example holds "${d}"`).toContain(d);
});
