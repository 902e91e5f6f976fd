/**
 * One parsed request before it is keyed: what every format gives (arrival, status, cost) and the
 * fields a key can be built from. Format parsers return a record or a reason the line is malformed.
 */
export interface RequestRecord {
  /** Arrival ms since the epoch. */
  timeMs: number;
  /** Recorded HTTP status, 0 when none. */
  status: number;
  /** Cost (weight), 1 when none. */
  cost: number;
  /** Connection address ('' when the format has none, e.g. HAR). */
  client: string;
  /** Raw X-Forwarded-For ('' or '-' when absent). */
  xff: string;
  /** Path without the query string ('' when absent). */
  path: string;
  /** User-Agent ('' when absent); used for the NAT hint only. */
  userAgent: string;
  /** A named field (log variable without `$`, column, header; case as the format defines). */
  field(name: string): string | undefined;
}

/** A line parser: a record, or why the line is malformed. */
export type LineParser = (line: string) => RequestRecord | string;

/** `GET /a/b?x=1 HTTP/1.1` → `/a/b`; an absolute URL keeps its path only. */
export function pathOfRequestLine(request: string): string {
  const sp = request.indexOf(' ');
  if (sp < 0) return '';
  const end = request.indexOf(' ', sp + 1);
  return pathOfUrl(end < 0 ? request.slice(sp + 1) : request.slice(sp + 1, end));
}

/** `/a?x` → `/a`; `https://h:443/a?x` → `/a`. */
export function pathOfUrl(url: string): string {
  let u = url;
  const scheme = u.indexOf('://');
  if (scheme >= 0) {
    const slash = u.indexOf('/', scheme + 3);
    u = slash < 0 ? '/' : u.slice(slash);
  }
  const q = u.search(/[?#]/);
  return q < 0 ? u : u.slice(0, q);
}

/** A whole-number cost from text; NaN when it is not a whole number 0 – 65,535. */
export function parseCost(text: string | undefined): number {
  if (text === undefined || text === '' || text === '-') return 1;
  if (!/^\d{1,5}$/.test(text)) return NaN;
  const v = Number(text);
  return v <= 65_535 ? v : NaN;
}

/** A status 100 – 599, 0 when absent (`-`, empty); NaN when it is something else. */
export function parseStatus(text: string | undefined): number {
  if (text === undefined || text === '' || text === '-') return 0;
  if (!/^\d{3}$/.test(text)) return NaN;
  const v = Number(text);
  return v >= 100 && v <= 599 ? v : NaN;
}
