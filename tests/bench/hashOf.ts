/**
 * A short hash of any value the simulator returns (plain objects, arrays, Maps, typed arrays,
 * numbers with -0 told apart), for the byte-identity scripts (fleet-identity.ts, lane-identity.ts):
 * equal hashes on two commits mean equal results, column by column.
 */
import { createHash } from 'node:crypto';

function feed(h: ReturnType<typeof createHash>, v: unknown, seen: Set<unknown>): void {
  if (v === null) return void h.update('n');
  if (v === undefined) return void h.update('u');
  if (typeof v === 'number') return void h.update(`#${Object.is(v, -0) ? '-0' : String(v)};`);
  if (typeof v === 'string') return void h.update(`s${v.length}:${v}`);
  if (typeof v === 'boolean') return void h.update(v ? 'T' : 'F');
  if (typeof v === 'function') return void h.update('fn');
  if (ArrayBuffer.isView(v)) {
    h.update(`ta${v.constructor.name}${v.byteLength}:`);
    h.update(new Uint8Array(v.buffer, v.byteOffset, v.byteLength));
    return;
  }
  if (seen.has(v)) return void h.update('cyc');
  seen.add(v);
  if (v instanceof Map) {
    h.update('M');
    for (const [k, x] of v) {
      feed(h, k, seen);
      feed(h, x, seen);
    }
  } else if (Array.isArray(v)) {
    h.update(`A${v.length}`);
    for (const x of v) feed(h, x, seen);
  } else {
    h.update('O');
    for (const k of Object.keys(v)) {
      h.update(k);
      feed(h, (v as Record<string, unknown>)[k], seen);
    }
  }
  seen.delete(v);
}
export function hashOf(v: unknown): string {
  const h = createHash('sha256');
  feed(h, v, new Set());
  return h.digest('hex').slice(0, 16);
}
