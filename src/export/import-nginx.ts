// Long file on purpose: a tokenizer, a directive parser and the mapping to limiter configs for
// nginx's grammar, which share the position bookkeeping every error message needs.
/**
 * Pasted nginx config -> a leaky-bucket config. Reads `limit_req_zone`, `limit_req` and
 * `limit_req_status` wherever they stand (a whole server block may be pasted: other directives and
 * braces are skipped) and checks their arguments as ngx_http_limit_req_module does. Never throws.
 */
import type { LeakyBucketConfig } from '../core';
import { MAX_COUNT, plural, quoteText } from '../core';
import { nginxSizeBytes } from './nginx';
import { capImportErrors, sizeProblem } from './import-limits';
import type { ImportError, ImportResult } from './types';

/** What the snippet says beyond the limiter: pass it back to toNginx to get the same lines. */
export interface NginxExtras {
  key: string;
  zone: string;
  zoneSize: string;
}

interface Token {
  text: string;
  line: number;
  column: number;
  /** Where the token's text starts (after an opening quote). */
  textColumn: number;
}

interface Directive {
  name: Token;
  args: Token[];
}

class Fail {
  constructor(readonly error: ImportError) {}
}

function at(token: Token, message: string, offset = 0): ImportError {
  return { line: token.line, column: token.textColumn + offset, message };
}

const quote = quoteText;

/**
 * Splits nginx config text into directives, as ngx_conf_read_token does: words separated by
 * whitespace, `;` ends a directive, `{` and `}` open and close blocks, `#` starts a comment, quotes
 * group a word. Returns the directives or the first syntax error.
 */
function directives(text: string): Directive[] | Fail {
  const out: Directive[] = [];
  let words: Token[] = [];
  let line = 1;
  let column = 1;
  let i = 0;
  const advance = (): string => {
    const ch = text[i] as string;
    i += 1;
    if (ch === '\n') {
      line += 1;
      column = 1;
    } else column += 1;
    return ch;
  };
  while (i < text.length) {
    const ch = text[i] as string;
    if (/\s/.test(ch)) {
      advance();
      continue;
    }
    if (ch === '#') {
      while (i < text.length && text[i] !== '\n') advance();
      continue;
    }
    if (ch === ';' || ch === '{' || ch === '}') {
      if (ch === '}' && words.length > 0) {
        const last = words[words.length - 1] as Token;
        return new Fail({
          line,
          column,
          message: `expected ";" after ${quote(last.text)}, got "}"`,
        });
      }
      if (words.length > 0) out.push({ name: words[0] as Token, args: words.slice(1) });
      else if (ch === ';') return new Fail({ line, column, message: 'unexpected ";"' });
      words = [];
      advance();
      continue;
    }
    const startLine = line;
    const startColumn = column;
    if (ch === '"' || ch === "'") {
      advance();
      let value = '';
      for (;;) {
        if (i >= text.length) {
          return new Fail({
            line: startLine,
            column: startColumn,
            message: `unterminated ${ch === '"' ? 'double' : 'single'}-quoted string`,
          });
        }
        const c = advance();
        if (c === ch) break;
        if (c === '\\' && i < text.length) value += advance();
        else value += c;
      }
      words.push({
        text: value,
        line: startLine,
        column: startColumn,
        textColumn: startColumn + 1,
      });
      continue;
    }
    let value = '';
    while (i < text.length) {
      const c = text[i] as string;
      if (/\s/.test(c) || c === ';' || c === '}') break;
      // "${name}" is a variable inside a word, not a block.
      if (c === '{' && !value.endsWith('$')) break;
      if (c === '{') {
        while (i < text.length && text[i] !== '}' && !/\s/.test(text[i] as string))
          value += advance();
        if (text[i] === '}') value += advance();
        continue;
      }
      if (c === '\\' && i + 1 < text.length) {
        advance();
        value += advance();
        continue;
      }
      value += advance();
    }
    words.push({ text: value, line: startLine, column: startColumn, textColumn: startColumn });
  }
  if (words.length > 0) {
    const last = words[words.length - 1] as Token;
    return new Fail({
      line,
      column,
      message: `expected ";" after ${quote(last.text)}, got the end of the text`,
    });
  }
  return out;
}

/** ngx_atoi: plain digits, no sign; null when it is not a number or too large to matter. */
function atoi(text: string): number | null {
  if (!/^[0-9]+$/.test(text) || text.length > 15) return null;
  return Number(text);
}

interface Zone {
  directive: Directive;
  key: Token;
  name: string;
  nameToken: Token;
  size: string;
  rate: number;
  rateUnit: 'r/s' | 'r/m';
}

function parseZone(d: Directive): Zone | Fail {
  // limit_req_zone is NGX_CONF_TAKE3: a key and two parameters.
  if (d.args.length > 3) {
    return new Fail(
      at(
        d.args[3] as Token,
        `expected ";" after ${quote((d.args[2] as Token).text)} (limit_req_zone takes <key> zone=<name>:<size> rate=<n>r/s), got ${quote((d.args[3] as Token).text)}`,
      ),
    );
  }
  if (d.args.length !== 3) {
    return new Fail(
      at(
        d.args[3] ?? d.name,
        `expected limit_req_zone <key> zone=<name>:<size> rate=<n>r/s; got ${plural(d.args.length, 'argument')}`,
      ),
    );
  }
  const key = d.args[0] as Token;
  let zone: { name: string; size: string; token: Token } | undefined;
  let rate: { n: number; unit: 'r/s' | 'r/m' } | undefined;
  for (const arg of d.args.slice(1)) {
    if (arg.text.startsWith('zone=')) {
      const spec = arg.text.slice(5);
      const colon = spec.indexOf(':');
      if (colon <= 0) {
        return new Fail(
          at(arg, `expected zone=<name>:<size> (e.g. zone=one:10m), got ${quote(spec)}`, 5),
        );
      }
      const size = spec.slice(colon + 1);
      if (!/^[0-9]+[kKmM]?$/.test(size)) {
        return new Fail(
          at(arg, `expected a zone size like 10m or 512k, got ${quote(size)}`, 5 + colon + 1),
        );
      }
      if (nginxSizeBytes(size) < 32 * 1024) {
        return new Fail(
          at(
            arg,
            `zone ${quote(spec.slice(0, colon))} is too small: nginx needs at least 32k, got ${quote(size)}`,
            5 + colon + 1,
          ),
        );
      }
      zone = { name: spec.slice(0, colon), size, token: arg };
    } else if (arg.text.startsWith('rate=')) {
      const value = arg.text.slice(5);
      // As nginx: an r/s or r/m suffix, otherwise the whole value is a number of requests per second.
      const unit = value.endsWith('r/m') ? 'r/m' : 'r/s';
      const digits = value.endsWith('r/s') || value.endsWith('r/m') ? value.slice(0, -3) : value;
      const n = atoi(digits);
      if (n === null || n <= 0) {
        return new Fail(at(arg, `expected rate=<n>r/s or r/m, got ${quote(value)}`, 5));
      }
      if (n > MAX_COUNT) {
        return new Fail(at(arg, `expected a rate from 1 to ${MAX_COUNT}, got ${n}`, 5));
      }
      rate = { n, unit };
    } else {
      return new Fail(
        at(arg, `expected zone=<name>:<size> or rate=<n>r/s, got ${quote(arg.text)}`),
      );
    }
  }
  if (zone === undefined)
    return new Fail(at(d.name, 'limit_req_zone must have a zone=<name>:<size> parameter'));
  if (rate === undefined)
    return new Fail(at(d.name, 'limit_req_zone must have a rate=<n>r/s or rate=<n>r/m parameter'));
  return {
    directive: d,
    key,
    name: zone.name,
    nameToken: zone.token,
    size: zone.size,
    rate: rate.n,
    rateUnit: rate.unit,
  };
}

interface Limit {
  zone: string;
  zoneToken: Token;
  burst: number;
  delay: number | 'nodelay';
}

function parseLimit(d: Directive): Limit | Fail {
  // limit_req is NGX_CONF_TAKE123.
  if (d.args.length === 0 || d.args.length > 3) {
    return new Fail(
      at(d.args[3] ?? d.name, 'expected limit_req zone=<name> [burst=<n>] [nodelay | delay=<n>]'),
    );
  }
  let zone: { name: string; token: Token } | undefined;
  let burst = 0;
  let delay: number | 'nodelay' = 0;
  for (const arg of d.args) {
    if (arg.text.startsWith('zone=')) {
      zone = { name: arg.text.slice(5), token: arg };
    } else if (arg.text.startsWith('burst=')) {
      const n = atoi(arg.text.slice(6));
      // nginx rejects burst=0 ("invalid burst value"): leave burst out for none.
      if (n === null || n <= 0 || n > MAX_COUNT) {
        return new Fail(
          at(
            arg,
            `expected burst=<n> with n from 1 to ${MAX_COUNT}, got ${quote(arg.text.slice(6))}`,
            6,
          ),
        );
      }
      burst = n;
    } else if (arg.text.startsWith('delay=')) {
      const n = atoi(arg.text.slice(6));
      if (n === null || n <= 0 || n > MAX_COUNT) {
        return new Fail(
          at(
            arg,
            `expected delay=<n> with n from 1 to ${MAX_COUNT}, got ${quote(arg.text.slice(6))}`,
            6,
          ),
        );
      }
      delay = n; // as nginx, the last of delay= and nodelay wins
    } else if (arg.text === 'nodelay') {
      delay = 'nodelay';
    } else {
      return new Fail(at(arg, `expected zone=, burst=, delay= or nodelay, got ${quote(arg.text)}`));
    }
  }
  if (zone === undefined)
    return new Fail(at(d.name, 'limit_req must have a zone=<name> parameter'));
  return { zone: zone.name, zoneToken: zone.token, burst, delay };
}

function parseStatus(d: Directive): number | Fail {
  if (d.args.length !== 1) {
    return new Fail(
      at(d.args[1] ?? d.name, 'expected limit_req_status <code>; with one code from 400 to 599'),
    );
  }
  const arg = d.args[0] as Token;
  const n = atoi(arg.text);
  if (n === null || n < 400 || n > 599) {
    return new Fail(at(arg, `expected a status code from 400 to 599, got ${quote(arg.text)}`));
  }
  return n;
}

/**
 * The leaky-bucket config (and zone key, name, size) in pasted nginx config text, or every error
 * found, each with its line and column. Never throws.
 */
export function importNginx(text: string): ImportResult<NginxExtras> {
  const refused = sizeProblem(text);
  if (refused !== null) return { ok: false, errors: [refused] };
  const parsed = directives(text);
  if (parsed instanceof Fail) return { ok: false, errors: [parsed.error] };
  const errors: ImportError[] = [];
  const warnings: ImportError[] = [];
  const zones: Zone[] = [];
  const limits: Array<{ limit: Limit; directive: Directive }> = [];
  const statuses: Array<{ code: number; directive: Directive }> = [];
  for (const d of parsed) {
    switch (d.name.text) {
      case 'limit_req_zone': {
        const z = parseZone(d);
        if (z instanceof Fail) errors.push(z.error);
        else zones.push(z);
        break;
      }
      case 'limit_req': {
        const l = parseLimit(d);
        if (l instanceof Fail) errors.push(l.error);
        else limits.push({ limit: l, directive: d });
        break;
      }
      case 'limit_req_status': {
        const s = parseStatus(d);
        if (s instanceof Fail) errors.push(s.error);
        else statuses.push({ code: s, directive: d });
        break;
      }
      case 'limit_req_dry_run':
        if (d.args[0]?.text === 'on') {
          warnings.push(
            at(d.name, 'limit_req_dry_run is on: nginx counts but never rejects or delays'),
          );
        }
        break;
      default:
        break;
    }
  }
  if (errors.length > 0) return { ok: false, errors: capImportErrors(errors) };

  if (limits.length === 0) {
    const where = zones[0]?.directive.name;
    return {
      ok: false,
      errors: [
        where === undefined
          ? { line: 1, column: 1, message: 'expected a limit_req_zone line and a limit_req line' }
          : at(
              where,
              `expected a limit_req zone=${zones[0]?.name ?? '<name>'} line to go with this zone`,
            ),
      ],
    };
  }
  if (statuses.length > 1) {
    const second = statuses[1] as { directive: Directive };
    return { ok: false, errors: [at(second.directive.name, 'limit_req_status is duplicate')] };
  }
  const status = statuses[0];
  const lanes: Array<{ config: LeakyBucketConfig; extras: NginxExtras }> = [];
  for (const { limit } of limits) {
    const lane = laneOf(limit, zones, status?.code);
    if (lane instanceof Fail) errors.push(lane.error);
    else lanes.push(lane);
  }
  if (errors.length > 0) return { ok: false, errors };
  const first = lanes[0] as { config: LeakyBucketConfig; extras: NginxExtras };
  if (lanes.length > 1) {
    const second = limits[1] as { directive: Directive };
    // ngx_http_limit_req_handler (nginx 1.22, src/http/modules/ngx_http_limit_req_module.c) runs
    // every limit_req of a location on each request, and the strictest one decides.
    warnings.push(
      at(
        second.directive.name,
        `${lanes.length} limit_req lines become ${plural(lanes.length, 'limiter')} to compare side by side; ` +
          'nginx applies all of them to each request of a location, and the strictest decides',
      ),
    );
  }
  return {
    ok: true,
    config: first.config,
    extras: first.extras,
    warnings,
    ...(lanes.length > 1 ? { lanes } : {}),
  };
}

/** One limit_req with the zone it names: a leaky-bucket config, or the error at its zone=. */
function laneOf(
  limit: Limit,
  zones: readonly Zone[],
  status: number | undefined,
): { config: LeakyBucketConfig; extras: NginxExtras } | Fail {
  const matching = zones.filter((z) => z.name === limit.zone);
  if (matching.length === 0) {
    const known =
      zones
        .slice(0, 5)
        .map((z) => quote(z.name))
        .join(', ') + (zones.length > 5 ? `, … (${zones.length} in all)` : '');
    return new Fail(
      at(
        limit.zoneToken,
        zones.length === 0
          ? `expected a limit_req_zone line that defines zone ${quote(limit.zone)} and its rate`
          : `unknown limit_req_zone ${quote(limit.zone)}: expected one of ${known}`,
        5,
      ),
    );
  }
  if (matching.length > 1) {
    const second = matching[1] as Zone;
    return new Fail(
      at(
        second.nameToken,
        `zone ${quote(second.name)} is already defined on line ${(matching[0] as Zone).directive.name.line}`,
        5,
      ),
    );
  }
  const zone = matching[0] as Zone;
  const config: LeakyBucketConfig = {
    kind: 'leaky-bucket',
    rate: zone.rate,
    rateUnit: zone.rateUnit,
    burst: limit.burst,
    delay: limit.delay,
  };
  if (status !== undefined) config.limitReqStatus = status;
  return { config, extras: { key: zone.key.text, zone: zone.name, zoneSize: zone.size } };
}
