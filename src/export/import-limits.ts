/**
 * Bounds on pasted snippets, so an import takes a bounded time and memory whatever is pasted: a
 * size limit checked first, a nesting limit checked before the YAML parser sees the text (the `yaml`
 * package recurses per level: 64 k of `[` or of `- ` overflowed its stack or exhausted memory), and a
 * cap on the errors listed.
 */
import { isMap, isScalar, isSeq } from 'yaml';
import type { Node } from 'yaml';
import type { ImportError } from './types';

/**
 * The longest snippet read, in characters (UTF-16 units): 16 Ki, ten times a full Envoy
 * local_ratelimit filter config. The `yaml` parser spends about a millisecond per 100 characters of
 * its worst text (thousands of tiny flow collections, each an error), so this bounds an import to
 * about 200 ms.
 */
export const MAX_IMPORT_CHARS = 16_384;
/** The deepest nesting read (flow brackets and block levels together); Envoy configs nest ~15. */
export const MAX_IMPORT_DEPTH = 64;
/**
 * The most flow indicators (`[ ] { } ,` outside quotes and comments) read. Each can be a YAML
 * error, and the parser spends about 10 µs on each error (16 Ki of `[]` took 200 ms); a JSON-form
 * Envoy config of the largest size has about one per ten characters, well under this.
 */
export const MAX_IMPORT_FLOW = 4096;
/** Errors listed per import; further ones are counted in one last error. */
export const MAX_IMPORT_ERRORS = 50;

const formatCount = (n: number): string => n.toLocaleString('en-US');

/** The refusal of a snippet longer than MAX_IMPORT_CHARS, with its size; null when it fits. */
export function sizeProblem(text: string): ImportError | null {
  if (text.length <= MAX_IMPORT_CHARS) return null;
  return {
    line: 1,
    column: 1,
    message: `the pasted text is ${formatCount(text.length)} characters; a snippet may have at most ${formatCount(MAX_IMPORT_CHARS)} (paste only the limit_req lines or the token_bucket block)`,
  };
}

/** A line that opens a block scalar: ends in `|` or `>` with optional indicators (and a comment). */
const BLOCK_SCALAR = /(?:^|[ :-])[|>][-+0-9]*[ \t]*(?:#.*)?\r?$/;

/**
 * The first place where YAML text nests deeper than MAX_IMPORT_DEPTH or has more than
 * MAX_IMPORT_FLOW flow indicators, or null. One pass, no
 * parsing: a block level per indentation step still open and per compact `- ` / `? ` / `: ` at the
 * start of a line's content, a flow level per `[` or `{` until its own closer, outside quoted
 * scalars (which may run over several lines) and comments. Made to count no fewer levels than the
 * YAML parser makes, so what passes is safe to parse; it may count more for odd text (a `[` inside a
 * plain or block scalar), which only refuses sooner.
 */
export function yamlDepthProblem(text: string): ImportError | null {
  const indents: number[] = [];
  const open: string[] = [];
  let quote = '';
  // The indentation of the line that opened a block scalar, while in one; else -1.
  let literalIndent = -1;
  let line = 1;
  let i = 0;
  let flow = 0;
  const fail = (column: number): ImportError => ({
    line,
    column,
    message: `expected YAML nested at most ${MAX_IMPORT_DEPTH} levels deep; it is deeper at this point`,
  });
  const tooMuchFlow = (column: number): ImportError => ({
    line,
    column,
    message: `expected at most ${formatCount(MAX_IMPORT_FLOW)} flow brackets and commas ([ ] { } ,) outside quotes; there are more from this point (write the YAML in block style)`,
  });
  while (i <= text.length) {
    const newline = text.indexOf('\n', i);
    const end = newline < 0 ? text.length : newline;
    let j = i;
    while (j < end && text[j] === ' ') j += 1;
    const blank = j === end || text[j] === '#' || text[j] === '\r';
    // The lines of a block scalar (`key: |`) are text, not structure: skipped.
    if (literalIndent >= 0 && (blank || j - i > literalIndent)) {
      line += 1;
      i = end + 1;
      continue;
    }
    literalIndent = -1;
    if (quote === '' && open.length === 0 && !blank) {
      const indent = j - i;
      while (indents.length > 0 && (indents[indents.length - 1] ?? 0) >= indent) indents.pop();
      indents.push(indent);
      // Compact nested entries on one line: `- - - x`, `? ? x`, `- a: - b`.
      let compact = 0;
      while (j + 1 < end && '-?:'.includes(text[j] ?? '') && /[ \t]/.test(text[j + 1] ?? '')) {
        compact += 1;
        j += 2;
        while (j < end && (text[j] === ' ' || text[j] === '\t')) j += 1;
        if (indents.length + compact > MAX_IMPORT_DEPTH) return fail(j - i + 1);
      }
      if (indents.length + compact > MAX_IMPORT_DEPTH) return fail(j - i + 1);
    }
    for (let k = j; k < end; k += 1) {
      const c = text[k] ?? '';
      if (quote !== '') {
        if (c === '\\' && quote === '"') k += 1;
        else if (c === quote) {
          if (quote === "'" && text[k + 1] === "'") k += 1;
          else quote = '';
        }
        continue;
      }
      const before = k === j ? ' ' : (text[k - 1] ?? ' ');
      const tokenStart = ' \t[{,'.includes(before);
      if ((c === '"' || c === "'") && tokenStart) quote = c;
      else if (c === '#' && (before === ' ' || before === '\t')) break;
      else if (c === '[' || c === '{' || c === ']' || c === '}' || c === ',') {
        flow += 1;
        if (flow > MAX_IMPORT_FLOW) return tooMuchFlow(k - i + 1);
        if (c === '[' || c === '{') {
          open.push(c === '[' ? ']' : '}');
          if (indents.length + open.length > MAX_IMPORT_DEPTH) return fail(k - i + 1);
        } else if (c === open[open.length - 1]) open.pop();
      }
    }
    if (quote === '' && open.length === 0 && BLOCK_SCALAR.test(text.slice(i, end))) {
      // Its text is what is indented more than the node it belongs to: the column after the
      // line's indentation and compact `- ` entries (counting from there never skips structure).
      literalIndent = j - i;
    }
    line += 1;
    i = end + 1;
  }
  return null;
}

/**
 * At most MAX_IMPORT_ERRORS errors: the first ones, then one counting the rest. `total` is how many
 * there were, when only the first ones were made into ImportErrors.
 */
export function capImportErrors(errors: ImportError[], total = errors.length): ImportError[] {
  if (total <= MAX_IMPORT_ERRORS) return errors;
  const kept = errors.slice(0, MAX_IMPORT_ERRORS - 1);
  const rest = total - kept.length;
  const last = errors[kept.length] ?? { line: 1, column: 1 };
  kept.push({
    line: last.line,
    column: last.column,
    message: `and ${formatCount(rest)} more errors not listed`,
  });
  return kept;
}

/**
 * A YAML parse (`parse`) without stack traces on its errors while it runs. Each error the parser
 * finds is an `Error`, and in V8 capturing its stack was 90% of an import of 16 Ki of `[]` (16,000
 * errors, 200 ms, of which we list 50). `Error.stackTraceLimit` is V8's (and JavaScriptCore's);
 * elsewhere the assignment does nothing, and the token count checked before parsing bounds the
 * errors anyway. Call the parser with `uniqueKeys: false`: its own unique-key check compares every
 * key with every other (a flat 64 kB mapping took a second); `duplicateKey` finds them with a set.
 */
export function parseQuietly<T>(parse: () => T): T {
  const errorType = Error as { stackTraceLimit?: number | undefined };
  const before = errorType.stackTraceLimit;
  errorType.stackTraceLimit = 0;
  try {
    return parse();
  } finally {
    errorType.stackTraceLimit = before;
  }
}

/**
 * The second key of the first mapping, in document order, that repeats a scalar key (YAML 1.2 §3.2.1.1:
 * keys are unique), or null. One set per mapping, each node visited once: linear in the document.
 */
export function duplicateKey(root: Node | null): { key: unknown; name: string } | null {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (isMap(node)) {
      const names = new Set<string>();
      for (const pair of node.items) {
        const name = isScalar(pair.key)
          ? `${typeof pair.key.value}:${String(pair.key.value)}`
          : null;
        if (name !== null && names.has(name)) {
          return { key: pair.key, name: String((pair.key as { value: unknown }).value) };
        }
        if (name !== null) names.add(name);
      }
      for (let k = node.items.length - 1; k >= 0; k -= 1) stack.push(node.items[k]?.value);
    } else if (isSeq(node)) {
      for (let k = node.items.length - 1; k >= 0; k -= 1) stack.push(node.items[k]);
    }
  }
  return null;
}
