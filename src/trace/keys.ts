/** Keys as a gateway builds them from a request (see KeySpec in types.ts). */
import { quoteText } from '../core';
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
          return `field ${quoteText(p.name)}`;
      }
    })
    .join(' + ');
}

/** A field key part's prefix in `keySpecText`. */
const FIELD_PREFIX = 'field:';

/** The built-in keys by their text (the client address, the default, included). */
const KEY_TEXTS: Readonly<Record<string, KeySpec>> = {
  client: [{ kind: 'client' }],
  'xff-first': [{ kind: 'xff-first' }],
  'xff-last': [{ kind: 'xff-last' }],
  path: [{ kind: 'path' }],
  'client+path': [{ kind: 'client' }, { kind: 'path' }],
  all: [],
};

/**
 * A key as one word (the key picker's value, a link's `key=`): `client`, `xff-first`, `xff-last`,
 * `path`, `client+path`, `all`, or `field:<name>`; null for a combination none of them names.
 */
export function keySpecText(spec: KeySpec): string | null {
  const only = spec.length === 1 ? spec[0] : undefined;
  if (only?.kind === 'field') return FIELD_PREFIX + only.name;
  const name = describeKeySpec(spec);
  for (const [text, s] of Object.entries(KEY_TEXTS)) if (describeKeySpec(s) === name) return text;
  return null;
}

/** The key `keySpecText` wrote as `text`, or null when it names none. */
export function keySpecOfText(text: string): KeySpec | null {
  if (text.startsWith(FIELD_PREFIX) && text.length > FIELD_PREFIX.length)
    return [{ kind: 'field', name: text.slice(FIELD_PREFIX.length) }];
  const s = Object.hasOwn(KEY_TEXTS, text) ? KEY_TEXTS[text] : undefined;
  return s === undefined ? null : s.map((p) => ({ ...p }));
}
