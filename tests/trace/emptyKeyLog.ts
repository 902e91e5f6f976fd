/**
 * The access log the empty-key tests read: nginx's `main` format with X-Forwarded-For last, keyed by
 * the header's first address, so a request with no header has an empty key.
 */
import type { KeySpec } from '../../src/trace';

/** nginx's `main` log format with `$http_x_forwarded_for` (the default nginx.conf's). */
export const MAIN =
  '$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent ' +
  '"$http_referer" "$http_user_agent" "$http_x_forwarded_for"';

/** Keyed by X-Forwarded-For's first address: empty where the request has no header. */
export const SPEC: KeySpec = [{ kind: 'xff-first' }];

const p2 = (n: number): string => String(n).padStart(2, '0');

/** One `main` line `s` seconds after 10:00 UTC from `addr`, with X-Forwarded-For `xff` ('-': none). */
export function mainLine(s: number, addr: string, xff: string): string {
  const t = `07/Dec/2026:10:${p2(Math.floor(s / 60))}:${p2(s % 60)} +0000`;
  return `${addr} - - [${t}] "GET / HTTP/1.1" 200 5 "-" "curl/8" "${xff}"`;
}
