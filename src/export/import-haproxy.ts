// Long file on purpose: a line tokenizer, the three statements that make HAProxy's stick-table
// rate limiting (stick-table, track-sc, deny with its ACL) and their cross-checks share the
// position bookkeeping every error message needs.
/**
 * Pasted haproxy.cfg -> an HAProxy limiter (sliding-window counter, anchor 'entry'). Reads, in any
 * section, `stick-table … store http_req_rate(<period>)`, `http-request track-scN <key> [table t]`,
 * `acl <name> sc_http_req_rate(N) gt <limit>` (or `scN_http_req_rate`, `ge`), and
 * `http-request deny [deny_status S] if <acl or { inline condition }>`; other lines are skipped.
 * Arguments are checked as HAProxy 2.6 checks them (src/stick_table.c stktable_parse,
 * src/http_act.c parse_http_deny, src/http_htx.c http_parse_http_reply). Never throws.
 */
import type { SlidingWindowCounterConfig } from '../core';
import { HAPROXY_DENY_STATUSES, MAX_COUNT, MAX_DURATION_MS, quoteText } from '../core';
import { capImportErrors, sizeProblem } from './import-limits';
import type { ImportError, ImportResult } from './types';

/** What the snippet says beyond the limiter: pass it back to toHaproxy for the same lines. */
export interface HaproxyExtras {
  /** The section holding the stick-table (the frontend's name when it is there). */
  frontend?: string;
  /** The table's `size` as written (e.g. "100k"). */
  size?: string;
}

interface Word {
  text: string;
  line: number;
  column: number;
}

type Line = Word[];

const quote = quoteText;
const at = (w: Word, message: string): ImportError => ({
  line: w.line,
  column: w.column,
  message,
});

/**
 * Splits the text into lines of words as HAProxy's parser does (src/cfgparse.c parse_line): spaces
 * and tabs separate words, `#` outside quotes starts a comment, "…" and '…' group a word, a
 * backslash escapes the next character.
 */
function lines(text: string): Line[] {
  const out: Line[] = [];
  let lineNo = 0;
  for (const raw of text.split('\n')) {
    lineNo += 1;
    const words: Word[] = [];
    let i = 0;
    const n = raw.length;
    while (i < n) {
      const ch = raw[i] as string;
      if (ch === ' ' || ch === '\t' || ch === '\r') {
        i += 1;
        continue;
      }
      if (ch === '#') break;
      const start = i;
      let word = '';
      let q = '';
      while (i < n) {
        const c = raw[i] as string;
        if (q === '' && (c === ' ' || c === '\t' || c === '\r' || c === '#')) break;
        if (c === '\\' && q !== "'" && i + 1 < n) {
          word += raw[i + 1];
          i += 2;
          continue;
        }
        if (q === '' && (c === '"' || c === "'")) q = c;
        else if (c === q) q = '';
        else word += c;
        i += 1;
      }
      words.push({ text: word, line: lineNo, column: start + 1 });
    }
    if (words.length > 0) out.push(words);
  }
  return out;
}

/** Sections that start a new proxy (src/cfgparse.c), and the others HAProxy knows. */
const PROXY_SECTIONS = new Set(['frontend', 'backend', 'listen', 'defaults']);
const OTHER_SECTIONS = new Set([
  'global',
  'peers',
  'resolvers',
  'userlist',
  'mailers',
  'program',
  'http-errors',
  'ring',
  'cache',
]);

const TIME_UNITS: Record<string, number> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/**
 * A time as src/tools.c parse_time_err reads it (ms by default; us, ms, s, m, h, d), in whole ms;
 * a string saying what is wrong otherwise.
 */
function parseTime(text: string, what: string): number | string {
  const m = /^([0-9]{1,12})(us|ms|s|m|h|d)?$/.exec(text);
  if (m === null) {
    return `expected ${what} as a whole number with an optional unit (ms, s, m, h, d), got ${quote(text)}`;
  }
  const value = Number(m[1]);
  const unit = m[2] ?? 'ms';
  if (unit === 'us') {
    if (value % 1000 !== 0) return `${what} ${quote(text)} is not a whole number of milliseconds`;
    return value / 1000;
  }
  return value * (TIME_UNITS[unit] as number);
}

interface Table {
  section: string | undefined;
  periodMs: number;
  expireMs?: number;
  size?: string;
  word: Word;
}

interface Track {
  counter: number;
  table?: string;
  key: Word;
  word: Word;
}

interface Threshold {
  counter: number;
  /** Deny iff rate > limit. */
  limit: number;
  word: Word;
}

interface Deny {
  status?: number;
  condition: Threshold | { acl: string; negated: boolean; word: Word };
  word: Word;
}

class Fail {
  constructor(readonly error: ImportError) {}
}

/** `store` data types: the one we need, or the others as written (ignored). */
function parseStickTable(words: Line, section: string | undefined): Table | Fail {
  const head = words[0] as Word;
  let periodMs: number | undefined;
  let expireMs: number | undefined;
  let size: string | undefined;
  let storeWord: Word | undefined;
  for (let i = 1; i < words.length; i += 1) {
    const w = words[i] as Word;
    const arg = words[i + 1];
    switch (w.text) {
      case 'type': {
        if (arg === undefined) return new Fail(at(w, 'expected a table type after "type"'));
        if (!['ip', 'ipv6', 'integer', 'string', 'binary'].includes(arg.text)) {
          return new Fail(
            at(arg, `expected type ip, ipv6, integer, string or binary, got ${quote(arg.text)}`),
          );
        }
        i += 1;
        if (words[i + 1]?.text === 'len') i += 2;
        break;
      }
      case 'size':
        if (arg === undefined || !/^[1-9][0-9]{0,9}[kmg]?$/.test(arg.text)) {
          return new Fail(
            at(
              arg ?? w,
              `expected size as a whole number with k, m or g, got ${quote(arg?.text ?? '')}`,
            ),
          );
        }
        size = arg.text;
        i += 1;
        break;
      case 'expire': {
        if (arg === undefined) return new Fail(at(w, 'expected a time after "expire"'));
        const t = parseTime(arg.text, 'expire');
        if (typeof t === 'string') return new Fail(at(arg, t));
        if (t < 1 || t > MAX_DURATION_MS) {
          return new Fail(at(arg, `expire must be from 1ms to 24h here, got ${quote(arg.text)}`));
        }
        expireMs = t;
        i += 1;
        break;
      }
      case 'store': {
        if (arg === undefined) return new Fail(at(w, 'expected data types after "store"'));
        storeWord = arg;
        for (const item of arg.text.split(',')) {
          const m = /^http_req_rate\(([^)]*)\)$/.exec(item);
          if (m === null) continue;
          const t = parseTime(m[1] ?? '', 'the http_req_rate period');
          if (typeof t === 'string') return new Fail(at(arg, t));
          if (t < 2 || t > MAX_DURATION_MS) {
            return new Fail(
              at(
                arg,
                `the http_req_rate period must be from 2ms to 24h here, got ${quote(m[1] ?? '')}`,
              ),
            );
          }
          periodMs = t;
        }
        i += 1;
        break;
      }
      case 'nopurge':
      case 'recv-only':
        break;
      case 'peers':
      case 'srvkey':
      case 'write-to':
        i += 1;
        break;
      default:
        return new Fail(at(w, `unknown stick-table option ${quote(w.text)}`));
    }
  }
  if (periodMs === undefined) {
    return new Fail(
      at(
        storeWord ?? head,
        'this stick-table stores no http_req_rate(<period>): the playground models HAProxy’s request rate counter only',
      ),
    );
  }
  return {
    section,
    periodMs,
    word: head,
    ...(expireMs === undefined ? {} : { expireMs }),
    ...(size === undefined ? {} : { size }),
  };
}

/**
 * `sc_http_req_rate(N[,table])`, `scN_http_req_rate[(table)]` followed by `gt|ge <n>`, as the words
 * of an ACL or an inline condition. The counter number, or a string saying what is wrong.
 */
function parseThreshold(words: Word[]): Threshold | Fail {
  const fetch = words[0];
  if (fetch === undefined) return new Fail({ line: 1, column: 1, message: 'expected a condition' });
  const m =
    /^sc_http_req_rate\(([0-9])(?:,[^)]*)?\)$/.exec(fetch.text) ??
    /^sc([0-9])_http_req_rate(?:\([^)]*\))?$/.exec(fetch.text);
  if (m === null) {
    return new Fail(
      at(
        fetch,
        `expected sc_http_req_rate(<n>) or sc<n>_http_req_rate (the rate the playground models), got ${quote(fetch.text)}`,
      ),
    );
  }
  const op = words[1];
  const value = words[2];
  if (op === undefined || value === undefined) {
    return new Fail(at(fetch, 'expected "gt <number>" or "ge <number>" after the rate'));
  }
  if (op.text !== 'gt' && op.text !== 'ge') {
    return new Fail(
      at(
        op,
        `expected gt or ge (deny above a rate), got ${quote(op.text)}: other comparisons do not make a rate limit`,
      ),
    );
  }
  if (!/^[0-9]{1,10}$/.test(value.text)) {
    return new Fail(at(value, `expected a whole number, got ${quote(value.text)}`));
  }
  const n = Number(value.text);
  const limit = op.text === 'gt' ? n : n - 1;
  if (limit < 1 || limit > MAX_COUNT) {
    return new Fail(
      at(
        value,
        `the playground takes a limit from 1 to ${MAX_COUNT} requests per period (gt 1 … gt ${MAX_COUNT}, ge 2 … ge ${MAX_COUNT + 1}), got ${op.text} ${value.text}`,
      ),
    );
  }
  if (words.length > 3) {
    return new Fail(
      at(
        words[3] as Word,
        `expected the condition to end after ${op.text} ${value.text}: conditions combined with others are not modelled`,
      ),
    );
  }
  return { counter: Number(m[1]), limit, word: fetch };
}

/** `http-request deny [deny_status S] if <condition>`. */
function parseDeny(words: Line): Deny | Fail {
  const head = words[1] as Word;
  let i = 2;
  let status: number | undefined;
  if (words[i]?.text === 'deny_status') {
    const s = words[i + 1];
    if (s === undefined)
      return new Fail(at(words[i] as Word, 'expected a status after deny_status'));
    const code = /^[0-9]{3}$/.test(s.text) ? Number(s.text) : NaN;
    if (!HAPROXY_DENY_STATUSES.includes(code)) {
      return new Fail(
        at(
          s,
          `expected deny_status ${HAPROXY_DENY_STATUSES.join(', ')} (statuses with a built-in reply), got ${quote(s.text)}`,
        ),
      );
    }
    status = code;
    i += 2;
  }
  const cond = words[i];
  if (cond === undefined) {
    return new Fail(at(head, 'a deny without a condition denies every request: nothing to model'));
  }
  if (cond.text === 'unless') {
    return new Fail(at(cond, 'expected "if <condition>"; "unless" does not make a rate limit'));
  }
  if (cond.text !== 'if') {
    return new Fail(
      at(
        cond,
        `expected "if <condition>" (a custom reply is not modelled), got ${quote(cond.text)}`,
      ),
    );
  }
  const rest = words.slice(i + 1);
  const first = rest[0];
  if (first === undefined) return new Fail(at(cond, 'expected a condition after "if"'));
  if (first.text === '{') {
    const close = rest.findIndex((w) => w.text === '}');
    if (close < 0) return new Fail(at(first, 'expected "}" to close the condition'));
    if (close !== rest.length - 1) {
      return new Fail(
        at(rest[close + 1] as Word, 'conditions combined with others are not modelled'),
      );
    }
    const t = parseThreshold(rest.slice(1, close));
    if (t instanceof Fail) return t;
    return { ...(status === undefined ? {} : { status }), condition: t, word: head };
  }
  const negated = first.text.startsWith('!');
  if (rest.length > 1) {
    return new Fail(at(rest[1] as Word, 'conditions combined with others are not modelled'));
  }
  return {
    ...(status === undefined ? {} : { status }),
    condition: { acl: negated ? first.text.slice(1) : first.text, negated, word: first },
    word: head,
  };
}

/** Reads an HAProxy stick-table rate limit from pasted haproxy.cfg text. */
export function importHaproxy(text: string): ImportResult<HaproxyExtras> {
  const refused = sizeProblem(text);
  if (refused !== null) return { ok: false, errors: [refused] };
  const errors: ImportError[] = [];
  const warnings: ImportError[] = [];
  const tables: Table[] = [];
  const tracks: Track[] = [];
  const acls = new Map<string, Threshold | Fail>();
  const denies: Deny[] = [];
  let section: string | undefined;
  let sectionKind = '';
  for (const words of lines(text)) {
    const head = words[0] as Word;
    if (PROXY_SECTIONS.has(head.text) || OTHER_SECTIONS.has(head.text)) {
      sectionKind = head.text;
      section = words[1]?.text;
      continue;
    }
    if (head.text === 'stick-table') {
      const t = parseStickTable(words, section);
      if (t instanceof Fail) errors.push(t.error);
      else tables.push(t);
      continue;
    }
    if (head.text === 'acl' && words.length >= 3) {
      const name = (words[1] as Word).text;
      const fetch = words[2] as Word;
      if (/http_req_rate/.test(fetch.text)) acls.set(name, parseThreshold(words.slice(2)));
      continue;
    }
    if (head.text !== 'http-request' || words.length < 2) continue;
    const action = words[1] as Word;
    const track = /^track-sc([0-9])$/.exec(action.text);
    if (track !== null) {
      const key = words[2];
      if (key === undefined) {
        errors.push(at(action, `expected a key after ${action.text} (e.g. src)`));
        continue;
      }
      let table: string | undefined;
      if (words[3]?.text === 'table') table = words[4]?.text;
      if (key.text !== 'src') {
        warnings.push(
          at(
            key,
            `tracked by ${quote(key.text)}: the playground's clients stand for each value of it (it shows src, the client address)`,
          ),
        );
      }
      if (sectionKind === 'backend') {
        warnings.push(
          at(action, 'tracked in a backend: only the requests routed to it are counted'),
        );
      }
      tracks.push({
        counter: Number(track[1]),
        key,
        word: action,
        ...(table === undefined ? {} : { table }),
      });
      continue;
    }
    if (action.text === 'deny') {
      const d = parseDeny(words);
      if (d instanceof Fail) errors.push(d.error);
      else denies.push(d);
      continue;
    }
    if (action.text === 'tarpit' && words.some((w) => /http_req_rate/.test(w.text))) {
      errors.push(
        at(action, 'tarpit holds the connection before answering 500: not modelled (use deny)'),
      );
    }
  }
  if (errors.length > 0) return { ok: false, errors: capImportErrors(errors) };

  const deny = denies[0];
  if (deny === undefined) {
    return {
      ok: false,
      errors: [
        {
          line: 1,
          column: 1,
          message:
            'expected "http-request deny … if { sc_http_req_rate(0) gt <limit> }" (or an acl on sc0_http_req_rate); found none',
        },
      ],
    };
  }
  for (const extra of denies.slice(1)) {
    warnings.push(at(extra.word, 'a further deny rule: only the first is loaded'));
  }
  let threshold: Threshold;
  if ('acl' in deny.condition) {
    const named = deny.condition;
    const acl = acls.get(named.acl);
    if (acl === undefined) {
      return {
        ok: false,
        errors: [
          at(
            named.word,
            `expected an acl ${quote(named.acl)} on sc_http_req_rate(<n>) gt <limit> in the snippet`,
          ),
        ],
      };
    }
    if (acl instanceof Fail) return { ok: false, errors: [acl.error] };
    if (named.negated) {
      return {
        ok: false,
        errors: [at(named.word, 'a negated rate condition denies slow clients: not a rate limit')],
      };
    }
    threshold = acl;
  } else threshold = deny.condition;

  const track = tracks.find((t) => t.counter === threshold.counter);
  if (track === undefined) {
    return {
      ok: false,
      errors: [
        at(
          threshold.word,
          `expected "http-request track-sc${threshold.counter} src" before the deny rule: sc${threshold.counter} tracks nothing`,
        ),
      ],
    };
  }
  if (
    track.word.line > deny.word.line ||
    (track.word.line === deny.word.line && track.word.column > deny.word.column)
  ) {
    return {
      ok: false,
      errors: [
        at(
          track.word,
          `expected track-sc${track.counter} before the deny rule: rules run in order, and the rate of an untracked request is not read`,
        ),
      ],
    };
  }
  const table =
    track.table !== undefined
      ? tables.find((t) => t.section === track.table)
      : (tables.find((t) => t.section === sectionOf(text, track.word.line)) ?? tables[0]);
  if (table === undefined) {
    return {
      ok: false,
      errors: [
        at(
          track.word,
          track.table === undefined
            ? 'expected a stick-table with store http_req_rate(<period>) in the snippet'
            : `expected a stick-table in a section named ${quote(track.table)}`,
        ),
      ],
    };
  }
  const config: SlidingWindowCounterConfig = {
    kind: 'sliding-window-counter',
    limit: threshold.limit,
    windowMs: table.periodMs,
    anchor: 'entry',
    ...(table.expireMs === undefined ? {} : { expireMs: table.expireMs }),
    ...(deny.status === undefined ? {} : { denyStatus: deny.status }),
  };
  if (table.expireMs === undefined) {
    warnings.push(
      at(table.word, 'no expire: entries are freed only when the table is full (not modelled)'),
    );
  } else if (table.expireMs < table.periodMs) {
    warnings.push(
      at(
        table.word,
        'expire is shorter than the period: a client idle that long is forgotten, counter and all',
      ),
    );
  }
  const extras: HaproxyExtras = {
    ...(table.section === undefined || !/^[A-Za-z0-9_.:-]{1,64}$/.test(table.section)
      ? {}
      : { frontend: table.section }),
    ...(table.size === undefined ? {} : { size: table.size }),
  };
  return { ok: true, config, extras, warnings };
}

/** The name of the section a 1-based line is in, or undefined before any section. */
function sectionOf(text: string, line: number): string | undefined {
  let name: string | undefined;
  for (const words of lines(text)) {
    const head = words[0] as Word;
    if (head.line > line) break;
    if (PROXY_SECTIONS.has(head.text) || OTHER_SECTIONS.has(head.text)) name = words[1]?.text;
  }
  return name;
}
