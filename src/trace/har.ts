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

/**
 * The value a proxy keys by when a request carries header `name` (lower case) on several lines,
 * `values` in the order sent; undefined when it carries none. nginx 1.22's `$http_<name>`
 * (src/http/ngx_http_variables.c, release-1.22.1): X-Forwarded-For joins every line with ", "
 * (ngx_http_variable_headers) and Cookie with "; " (ngx_http_variable_cookies); any other header
 * is its first line (ngx_http_variable_unknown_header returns the first match). HAProxy 2.6 reads
 * the same: the export's `req.hdr(x-forwarded-for,1)` / `(…,-1)` take the first / last
 * comma-separated value over all lines, which is the first / last hop of the joined value, and
 * `req.fhdr(<name>,1)` the first line (configuration.txt 7.3.6). The export says where a header
 * key of X-Forwarded-For or Cookie as a whole differs on HAProxy (src/export/replayKey.ts).
 */
export function headerValue(
  values: readonly string[] | undefined,
  name: string,
): string | undefined {
  if (values === undefined || values.length === 0) return undefined;
  if (values.length === 1 || (name !== 'x-forwarded-for' && name !== 'cookie')) return values[0];
  return values.join(name === 'cookie' ? '; ' : ', ');
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
    // Every value of each header name, in the order the request sent them.
    const lines = new Map<string, string[]>();
    for (const h of rawHeaders) {
      if (typeof h?.name === 'string' && typeof h.value === 'string') {
        const name = h.name.toLowerCase();
        const values = lines.get(name);
        if (values === undefined) lines.set(name, [h.value]);
        else values.push(h.value);
        if (seen.size < maxHeaders) seen.add(name);
      }
    }
    const header = (name: string) => headerValue(lines.get(name), name);
    const st = entry.response?.status;
    // A HAR records status 0 for a request that got no response (blocked, aborted).
    const status = typeof st === 'number' && st >= 100 && st <= 599 ? st : 0;
    return {
      timeMs: t.ms,
      status,
      cost: 1,
      client: '',
      xff: header('x-forwarded-for') ?? '',
      path: pathOfUrl(url),
      userAgent: header('user-agent') ?? '',
      field: (name) => header(name.toLowerCase()),
    };
  });
  return { records, resolutionMs, headers: [...seen] };
}
