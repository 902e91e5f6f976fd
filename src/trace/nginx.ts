/**
 * nginx access logs: a `log_format` string compiled into a line parser.
 *
 * Facts from nginx 1.22 (src/http/modules/ngx_http_log_module.c and its documentation):
 * - `combined` is predefined as
 *   `$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent"`;
 * - the default `escape=default` writes `"`, `\` and bytes < 0x20 or ≥ 0x7f as `\xHH`, so a
 *   quoted variable never contains a raw `"`; an empty variable is written `-`;
 * - the line is written when the request ends: `$msec` ("time in seconds with a milliseconds
 *   resolution at the time of the log write") and `$time_local` are that moment, and
 *   `$request_time` is the time "elapsed between the first bytes were read from the client and
 *   the log write", so the arrival is `$msec − $request_time`.
 */
import { pathOfRequestLine, parseCost, parseStatus, pathOfUrl } from './record';
import type { LineParser, RequestRecord } from './record';
import { parseIso, parseTimeLocal } from './time';
import { TraceError } from './types';
import { quoteText } from '../core';

/** Formats recognised without being told, most specific first (detection prefers earlier ones). */
export const NGINX_PRESETS: readonly { name: string; format: string }[] = [
  {
    // The log_format of the nginx blog post on upstream timing ("Using NGINX Logging for
    // Application Performance Monitoring"), plus $msec.
    name: 'nginx upstream_time + $msec',
    format:
      '$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" "$http_x_forwarded_for" rt=$request_time msec=$msec',
  },
  {
    name: 'nginx main + $request_time $msec',
    format:
      '$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" "$http_x_forwarded_for" $request_time $msec',
  },
  {
    name: 'nginx upstream_time',
    format:
      '$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" rt=$request_time uct="$upstream_connect_time" uht="$upstream_header_time" urt="$upstream_response_time"',
  },
  {
    // The `main` format of the stock nginx.conf.
    name: 'nginx main',
    format:
      '$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" "$http_x_forwarded_for"',
  },
  {
    name: 'nginx combined',
    format:
      '$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent"',
  },
  {
    name: 'common log format',
    format: '$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent',
  },
];

/** A compiled log_format. */
export interface NginxFormat {
  name: string;
  /** The log_format string it was compiled from. */
  source: string;
  variables: string[];
  regex: RegExp;
  /** Finest time step: 1 with $msec, else 1000. */
  resolutionMs: number;
  timeSource: string;
  parse: LineParser;
}

const VAR = /\$(?:\{([a-z0-9_]+)\}|([a-z0-9_]+))/gi;

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Compiles a log_format (the string after the format name, quotes already joined). */
export function compileLogFormat(
  format: string,
  name = `nginx log_format "${format}"`,
  costField?: string,
): NginxFormat {
  const variables: string[] = [];
  const pieces: string[] = [];
  let last = 0;
  const matches = [...format.matchAll(VAR)];
  if (matches.length === 0) {
    throw new TraceError(`log_format "${format}" has no $variables; nothing can be read from it.`);
  }
  for (let i = 0; i < matches.length; i += 1) {
    const m = matches[i] as RegExpExecArray;
    const v = (m[1] ?? m[2] ?? '').toLowerCase();
    pieces.push(escapeRegex(format.slice(last, m.index)));
    last = m.index + m[0].length;
    const next =
      i + 1 < matches.length
        ? format.slice(last, (matches[i + 1] as RegExpExecArray).index)
        : format.slice(last);
    if (v === 'time_local') {
      pieces.push('(\\d{2}/[A-Za-z]{3}/\\d{4}:\\d{2}:\\d{2}:\\d{2} [+-]\\d{4})');
    } else if (next === '') {
      pieces.push(i + 1 < matches.length ? '(\\S*?)' : '(.*)');
    } else {
      const stop = next[0] as string;
      pieces.push(`([^${escapeRegex(stop)}]*)`);
    }
    variables.push(v);
  }
  pieces.push(escapeRegex(format.slice(last)));
  const regex = new RegExp(`^${pieces.join('')}$`);
  const idx = (v: string): number => variables.indexOf(v);
  const iMsec = idx('msec');
  const iRt = idx('request_time');
  const iLocal = idx('time_local');
  const iIso = idx('time_iso8601');
  const iAddr = idx('remote_addr');
  const iXff = idx('http_x_forwarded_for');
  const iReq = idx('request');
  const iUri = idx('request_uri') >= 0 ? idx('request_uri') : idx('uri');
  const iStatus = idx('status');
  const iUa = idx('http_user_agent');
  const iCost = costField === undefined ? -1 : idx(costField.replace(/^\$/, '').toLowerCase());
  if (iMsec < 0 && iLocal < 0 && iIso < 0) {
    throw new TraceError(
      `log_format "${format}" has no time: it needs $msec, $time_local or $time_iso8601.`,
    );
  }
  const resolutionMs = iMsec >= 0 ? 1 : 1000;
  const endTime = iMsec >= 0 ? '$msec' : iLocal >= 0 ? '$time_local' : '$time_iso8601';
  const timeSource =
    iRt >= 0
      ? `arrival = ${endTime} − $request_time (nginx writes the line when the response ends)` +
        (resolutionMs === 1000 ? `; ${endTime} has 1-second resolution` : '')
      : `arrival ≈ ${endTime}, the time the line was written (no $request_time in the format)` +
        (resolutionMs === 1000 ? `; 1-second resolution only` : '');

  const parse: LineParser = (line) => {
    const m = regex.exec(line);
    if (!m) return `does not match ${name}`;
    const get = (i: number): string => (i >= 0 ? (m[i + 1] as string) : '');
    let endMs: number;
    if (iMsec >= 0) {
      const s = get(iMsec);
      if (!/^\d+(\.\d{1,3})?$/.test(s)) return `$msec ${quoteText(s)} is not seconds.milliseconds`;
      endMs = Math.round(Number(s) * 1000);
    } else if (iLocal >= 0) {
      endMs = parseTimeLocal(get(iLocal));
      if (Number.isNaN(endMs)) return `$time_local ${quoteText(get(iLocal))} is not a date`;
    } else {
      const t = parseIso(get(iIso));
      if (!t) return `$time_iso8601 ${quoteText(get(iIso))} is not a date`;
      endMs = t.ms;
    }
    let timeMs = endMs;
    if (iRt >= 0) {
      const rt = get(iRt);
      if (rt !== '-' && rt !== '') {
        if (!/^\d+(\.\d{1,3})?$/.test(rt)) return `$request_time ${quoteText(rt)} is not seconds`;
        timeMs = endMs - Math.round(Number(rt) * 1000);
      }
    }
    const status = parseStatus(iStatus >= 0 ? get(iStatus) : undefined);
    if (Number.isNaN(status)) return `$status ${quoteText(get(iStatus))} is not an HTTP status`;
    const cost = parseCost(iCost >= 0 ? get(iCost) : undefined);
    if (Number.isNaN(cost)) return `cost ${quoteText(get(iCost))} is not a whole number 0 – 65535`;
    const rec: RequestRecord = {
      timeMs,
      status,
      cost,
      client: addressOf(get(iAddr)),
      xff: get(iXff),
      path: iUri >= 0 ? pathOfUrl(get(iUri)) : iReq >= 0 ? pathOfRequestLine(get(iReq)) : '',
      userAgent: get(iUa),
      field: (f) => {
        const i = idx(f.replace(/^\$/, '').toLowerCase());
        return i >= 0 ? get(i) : undefined;
      },
    };
    return rec;
  };
  return { name, source: format, variables, regex, resolutionMs, timeSource, parse };
}

/**
 * The client address a log line records, '' for none. An access log writes `-` for a value it does
 * not have (nginx's log module for an empty variable; Apache's mod_log_config for an item with no
 * value), and neither server writes `-` for a real client: nginx's `$remote_addr` is the
 * connection's address text, always set (src/http/ngx_http_variables.c,
 * ngx_http_variable_remote_addr, 1.22), and Apache's `%h` is the remote host name or, without
 * one, its IP address (modules/loggers/mod_log_config.c log_remote_host → ap_get_remote_host with
 * REMOTE_NAME, httpd 2.4). So a `-` there is a line with no address: its request goes to the
 * system's rule for an empty key, not to a client named `-`.
 */
export function addressOf(field: string): string {
  return field === '-' ? '' : field;
}

/** Joins a log_format as written in nginx.conf (`log_format name 'a' 'b';`) into one string. */
export function logFormatFromConf(text: string): string {
  const t = text.trim();
  const m = /^log_format\s+\S+\s+(?:escape=\S+\s+)?([\s\S]*?);?\s*$/.exec(t);
  const body = m ? (m[1] as string) : t;
  const quoted = [...body.matchAll(/'([^']*)'|"((?:[^"\\]|\\.)*)"/g)];
  if (quoted.length === 0) return body;
  return quoted.map((q) => q[1] ?? q[2] ?? '').join('');
}
