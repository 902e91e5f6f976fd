/**
 * The key a loaded log is replayed with (src/trace/keys.ts KeySpec), as nginx and HAProxy key a
 * limiter: the variable or sample fetch that gives the same key from the same request, or why the
 * product's config cannot express it.
 */
import { describeKeySpec } from '../trace/keys';
import type { KeySpec, TraceFormat } from '../trace/types';

/** The replay's key and the format of the log it came from (what a field names depends on it). */
export interface ReplayKey {
  spec: KeySpec;
  /** The log's format; null when the file is not loaded here (a link names only its key). */
  format: TraceFormat | null;
}

/** How nginx keys by the replay's key: `limit_req_zone`'s key, and `map` blocks it needs. */
export interface NginxKey {
  key: string;
  /** Lines for the http { } block before limit_req_zone (a `map` making the key), or none. */
  map: string[];
  /** What the key is, in words, for the export's notes. */
  note: string;
}

/** How HAProxy keys by the replay's key: track-sc0's sample expression and the table's type. */
export interface HaproxyKey {
  fetch: string;
  /** The stick-table's `type …` words. */
  type: string;
  note: string;
  /**
   * Track only when the fetch gives a non-empty string. HAProxy 2.6 tracks an empty result as the
   * key "" (checked on haproxy 2.6.12: `X-Forwarded-For: , b` under req.hdr(x-forwarded-for,1) is
   * tracked and counted with every other empty first hop), while nginx does not account an empty
   * key (ngx_http_limit_req_module) and the replay does not count it: with this, HAProxy leaves it
   * untracked too.
   */
  nonEmpty?: boolean;
}

/** Why the product cannot key by the replay's key, in one sentence for the Export panel. */
export interface KeyGap {
  gap: string;
}

/**
 * Characters of the string keys HAProxy's table stores (stick-table `type string len <n>`): a
 * longer key is cut to this length before it is stored (HAProxy 2.6 configuration.txt,
 * "stick-table type").
 */
export const HAPROXY_KEY_LEN = 128;

/** A header name nginx's `$http_<name>` and HAProxy's `req.fhdr(<name>)` can both name. */
const HEADER_NAME = /^[A-Za-z0-9-]{1,64}$/;
/** An nginx variable name a log_format can write (`$http_x_api_key`, `$remote_user`, …). */
const NGINX_VARIABLE = /^[A-Za-z0-9_]{1,64}$/;

/**
 * nginx `map`s giving one hop of X-Forwarded-For with the lab's trimming (src/trace/keys.ts
 * xffHops): the first or the last comma-separated value, without the spaces around it; "" when
 * the header is absent or that hop is empty, and nginx does not account a request whose key is ""
 * (ngx_http_limit_req_module, nginx 1.22). ngx_http_map_module takes PCRE regexes (`~`) and named
 * captures as the value.
 */
const XFF_MAPS = {
  first: {
    variable: '$xff_first_hop',
    regex: '"~^\\s*(?<hop>[^,]*[^,\\s])"',
  },
  last: {
    variable: '$xff_last_hop',
    regex: '"~(?:^|,)\\s*(?<hop>[^,]*[^,\\s])\\s*$"',
  },
} as const;

function xffMap(which: 'first' | 'last'): string[] {
  const m = XFF_MAPS[which];
  return [
    `map $http_x_forwarded_for ${m.variable} {`,
    `    ${m.regex} $hop;`,
    '    default "";',
    '}',
  ];
}

/** The nginx variable of a request header `name` (ngx_http_variables.c: `-` → `_`, lower case). */
function nginxHeaderVariable(name: string): string {
  return `$http_${name.toLowerCase().replace(/-/g, '_')}`;
}

/** What the field names as a request header, or null when it is a column of the file. */
function headerOfField(name: string, format: TraceFormat | null): string | null {
  if (format === 'har') return HEADER_NAME.test(name) ? name : null;
  // An nginx log's field is the variable it logged: `http_x_api_key` is the header X-Api-Key.
  if (format === 'nginx' && /^http_[a-z0-9_]+$/i.test(name))
    return name.slice('http_'.length).replace(/_/g, '-');
  return null;
}

/** Where the field comes from, in words, for the sentence saying a product cannot key by it. */
function fieldWhat(name: string, format: TraceFormat | null): string {
  if (format === null) return `field "${name}" of a log not loaded here`;
  return format === 'nginx' ? `nginx variable $${name}` : `column "${name}" of the file`;
}

/** nginx's key for the replay's key, or why nginx cannot key by it. */
export function nginxReplayKey(replay: ReplayKey): NginxKey | KeyGap {
  const { spec, format } = replay;
  const what = describeKeySpec(spec);
  if (spec.length === 0) {
    // A key without variables is one bucket for every request.
    return {
      key: 'all',
      map: [],
      note: 'The key is the constant "all": one bucket for every request, as the replay counts them.',
    };
  }
  const parts: string[] = [];
  const maps: string[] = [];
  for (const p of spec) {
    switch (p.kind) {
      case 'client':
        parts.push('$binary_remote_addr');
        break;
      case 'xff-first':
      case 'xff-last': {
        const which = p.kind === 'xff-first' ? 'first' : 'last';
        parts.push(XFF_MAPS[which].variable);
        maps.push(...xffMap(which));
        break;
      }
      case 'path':
        parts.push('$uri');
        break;
      case 'field': {
        if (format === 'nginx' && NGINX_VARIABLE.test(p.name)) {
          parts.push(`$${p.name}`);
          break;
        }
        const header = headerOfField(p.name, format);
        if (header === null) {
          return {
            gap: `The nginx export keys by the client address while the replay keys by ${fieldWhat(p.name, format)}, which is not part of a request nginx sees.`,
          };
        }
        parts.push(nginxHeaderVariable(header));
        break;
      }
    }
  }
  const notes = [`Keyed by ${what}, as the loaded log is replayed (${parts.join(' + ')}).`];
  if (spec.some((p) => p.kind === 'path'))
    notes.push(
      '$uri is the path as nginx routes it (percent-decoded, // merged): paths a log writes differently but that decode alike share a bucket in nginx.',
    );
  // A key of several parts is never empty (the replay writes an empty part as `-`, nginx joins
  // the variables); a single part can be.
  if (spec.length === 1)
    notes.push('A request whose key is empty is not accounted by nginx (its documented rule).');
  return { key: parts.join(''), map: maps, note: notes.join(' ') };
}

/** HAProxy's track-sc0 key for the replay's key, or why HAProxy's export cannot key by it. */
export function haproxyReplayKey(replay: ReplayKey): HaproxyKey | KeyGap {
  const { spec, format } = replay;
  const what = describeKeySpec(spec);
  const string = `string len ${HAPROXY_KEY_LEN}`;
  if (spec.length > 1) {
    return {
      gap: `The HAProxy export keys by the client address while the replay keys by ${what}: track-sc0 here tracks one sample fetch.`,
    };
  }
  const only = spec[0];
  if (only === undefined)
    return {
      fetch: 'str(all)',
      type: string,
      note: 'Keyed by the constant "all": one counter for every request, as the replay counts them.',
    };
  switch (only.kind) {
    case 'client':
      return { fetch: 'src', type: 'ip', note: '' };
    case 'xff-first':
    case 'xff-last':
      // req.hdr splits the header at commas and trims each value; occurrence 1 is the first,
      // -1 the last (HAProxy 2.6 configuration.txt, req.hdr).
      return {
        fetch: `req.hdr(x-forwarded-for,${only.kind === 'xff-first' ? 1 : -1})`,
        type: string,
        nonEmpty: true,
        note: `Keyed by the ${only.kind === 'xff-first' ? 'first' : 'last'} X-Forwarded-For hop, as the loaded log is replayed; a request without the header, or whose ${only.kind === 'xff-first' ? 'first' : 'last'} hop is empty (\`X-Forwarded-For: ${only.kind === 'xff-first' ? ', b' : 'a, '}\`), is not tracked, so not limited.`,
      };
    case 'path':
      return {
        fetch: 'path',
        type: string,
        note: 'Keyed by the path (without the query string), as the loaded log is replayed.',
      };
    case 'field': {
      const header = headerOfField(only.name, format);
      if (header === null) {
        return {
          gap: `The HAProxy export keys by the client address while the replay keys by ${fieldWhat(only.name, format)}, which is not part of a request HAProxy sees.`,
        };
      }
      // req.fhdr: the whole value, commas included, as nginx's $http_ and the log hold it;
      // occurrence 1 is the first header of that name (HAProxy 2.6 configuration.txt, req.fhdr).
      // A header nginx joins over several lines (X-Forwarded-For with ", ", Cookie with "; ";
      // src/trace/har.ts headerValue) is one line for req.fhdr: HAProxy 2.6 has no fetch that
      // joins them, so the export says where it keys otherwise.
      const joined = ['x-forwarded-for', 'cookie'].includes(header.toLowerCase())
        ? ` A request that sends ${header} on several lines is keyed by its first line only; the replay joins them, as nginx does.`
        : '';
      return {
        fetch: `req.fhdr(${header.toLowerCase()},1)`,
        type: string,
        nonEmpty: true,
        note: `Keyed by the header ${header}, as the loaded log is replayed; a request without it, or with it empty, is not tracked, so not limited.${joined}`,
      };
    }
  }
}

/** Whether `k` is a key the product can use. */
export function isKeyGap(k: NginxKey | HaproxyKey | KeyGap): k is KeyGap {
  return 'gap' in k;
}
