/**
 * HAR 1.2 (the HTTP Archive format browsers export): `log.entries[]` with `startedDateTime`
 * (ISO 8601), `request.url`, `request.headers[{name, value}]` and `response.status`. A HAR is
 * recorded by one client, so it has no client address: key by a header or the path.
 */
import { pathOfUrl } from './record';
import type { RequestRecord } from './record';
import { parseIso } from './time';
import { KEY_FIELDS_LISTED, TraceError } from './types';
import { quoteText } from '../core';

interface HarHeader {
  name?: unknown;
  value?: unknown;
}

/** The entries of a HAR document as records, or a reason per entry (1-based entry numbers). */
export function parseHar(text: string): {
  records: (RequestRecord | string)[];
  resolutionMs: number;
  /** Request header names the entries carry (lower-case, first seen first, at most `maxHeaders`). */
  headers: string[];
} {
  const maxHeaders = KEY_FIELDS_LISTED;
  const seen = new Set<string>();
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new TraceError(`HAR: not valid JSON (${(e as Error).message}).`);
  }
  const log = (doc as { log?: unknown } | null)?.log;
  const entries = (log as { entries?: unknown } | undefined)?.entries;
  if (!Array.isArray(entries)) {
    throw new TraceError('HAR: no log.entries array (is this a HAR file?).');
  }
  if (entries.length === 0) {
    throw new TraceError('HAR: log.entries is empty; the archive recorded no requests.');
  }
  let resolutionMs = 1000;
  const records = entries.map((e: unknown): RequestRecord | string => {
    const entry = e as {
      startedDateTime?: unknown;
      request?: { url?: unknown; headers?: unknown };
      response?: { status?: unknown };
    } | null;
    if (entry === null || typeof entry !== 'object') return 'entry is not an object';
    if (typeof entry.startedDateTime !== 'string') return 'startedDateTime is missing';
    const t = parseIso(entry.startedDateTime);
    if (!t) return `startedDateTime ${quoteText(String(entry.startedDateTime))} is not an ISO time`;
    resolutionMs = Math.min(resolutionMs, Math.max(1, 1000 / 10 ** t.fractionDigits));
    const url = entry.request?.url;
    if (typeof url !== 'string') return 'request.url is missing';
    const rawHeaders = Array.isArray(entry.request?.headers)
      ? (entry.request.headers as HarHeader[])
      : [];
    const headers = new Map<string, string>();
    for (const h of rawHeaders) {
      if (typeof h?.name === 'string' && typeof h.value === 'string') {
        const name = h.name.toLowerCase();
        headers.set(name, h.value);
        if (seen.size < maxHeaders) seen.add(name);
      }
    }
    const st = entry.response?.status;
    // A HAR records status 0 for a request that got no response (blocked, aborted).
    const status = typeof st === 'number' && st >= 100 && st <= 599 ? st : 0;
    return {
      timeMs: t.ms,
      status,
      cost: 1,
      client: '',
      xff: headers.get('x-forwarded-for') ?? '',
      path: pathOfUrl(url),
      userAgent: headers.get('user-agent') ?? '',
      field: (name) => headers.get(name.toLowerCase()),
    };
  });
  return { records, resolutionMs, headers: [...seen] };
}
