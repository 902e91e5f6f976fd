/** Keys as a gateway builds them from a request (see KeySpec in types.ts). */
import type { RequestRecord } from './record';
import type { KeyPart, KeySpec } from './types';

/** First and last hop of an X-Forwarded-For value (`a, b, c`), '' when absent. */
export function xffHops(xff: string): { first: string; last: string } {
  if (xff === '' || xff === '-') return { first: '', last: '' };
  const comma = xff.indexOf(',');
  if (comma < 0) {
    const h = xff.trim();
    return { first: h, last: h };
  }
  return { first: xff.slice(0, comma).trim(), last: xff.slice(xff.lastIndexOf(',') + 1).trim() };
}

function part(rec: RequestRecord, p: KeyPart): string {
  switch (p.kind) {
    case 'client':
      return rec.client;
    case 'xff-first':
      return xffHops(rec.xff).first;
    case 'xff-last':
      return xffHops(rec.xff).last;
    case 'path':
      return rec.path;
    case 'field': {
      const v = rec.field(p.name);
      return v === undefined || v === '-' ? '' : v;
    }
  }
}

/** The key of a request; parts joined by ` | `; an empty part is written `-`. */
export function keyOf(rec: RequestRecord, spec: KeySpec): string {
  if (spec.length === 0) return 'all';
  if (spec.length === 1) {
    const v = part(rec, spec[0] as KeyPart);
    return v === '' ? '-' : v;
  }
  let out = '';
  for (let i = 0; i < spec.length; i += 1) {
    const v = part(rec, spec[i] as KeyPart);
    out += (i > 0 ? ' | ' : '') + (v === '' ? '-' : v);
  }
  return out;
}

/** A readable name of a key spec, e.g. `client address + path`. */
export function describeKeySpec(spec: KeySpec): string {
  if (spec.length === 0) return 'one key for all requests';
  return spec
    .map((p) => {
      switch (p.kind) {
        case 'client':
          return 'client address';
        case 'xff-first':
          return 'first X-Forwarded-For hop';
        case 'xff-last':
          return 'last X-Forwarded-For hop';
        case 'path':
          return 'path';
        case 'field':
          return `field ${p.name}`;
      }
    })
    .join(' + ');
}
