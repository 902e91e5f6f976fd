/**
 * Names in CPU profiles of the built site, for the bench's profiling tools: a minified function's
 * original name and place, read from the dist folder's source maps (each map parsed once).
 */
import { existsSync, readFileSync } from 'node:fs';
import { SourceMapConsumer } from 'source-map-js';

const consumers = new Map<string, SourceMapConsumer | null>();

/**
 * `name file:line` of the code at (`line`, `column`) (0-based, as CPU profiles give them) of
 * `dist/assets/<file>`, or `fallback` when there is no map or no mapping there.
 */
export function originalName(
  dist: string,
  file: string,
  line: number,
  column: number,
  fallback: string,
): string {
  const path = `${dist}/assets/${file}.map`;
  let c = consumers.get(path);
  if (c === undefined) {
    c = existsSync(path) ? new SourceMapConsumer(readFileSync(path, 'utf8')) : null;
    consumers.set(path, c);
  }
  if (c === null) return fallback;
  const pos = c.originalPositionFor({ line: line + 1, column });
  if (pos.source === null) return fallback;
  return `${pos.name ?? fallback.split(' ')[0]} ${pos.source.split('/').slice(-2).join('/')}:${pos.line}`;
}
