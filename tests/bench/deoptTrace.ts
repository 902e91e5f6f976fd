/**
 * V8's deoptimisations while the frame bench's 1M-arrival page is edited:
 * opens `FRAMES=large`'s first page (one token bucket, 1,000,000 arrivals, paused half way; with
 * PAGE=compare, the compare page playing, as for "edit while playing"; with PAGE=scrolled, no
 * edits: 5 s of that page playing, scrolled to lanes 3-4) in the pinned Chromium
 * started with `--js-flags=--trace-deopt`, waits for it to settle, edits max_tokens EDITS times
 * (default 8; 15 on the compare page) as the bench does (`timeEdits`, which makes one untimed
 * edit first: it is logged too), and prints the deopts logged during the
 * edits, grouped by function (its minified name, and where it is defined, from the dist folder's
 * source maps), tier, bytecode offset and reason, with how often each happened. A deopt that comes
 * back edit after edit is the one to look at: the code after it runs unoptimised until V8 compiles
 * it again. Diagnostic only: the flag's logging slows the page, so the edit times it prints are not
 * figures. Run, after `npm run build`: `npx vite build --ssr tests/bench/deoptTrace.ts --outDir
 * node_modules/.cache/deopt --emptyOutDir && node node_modules/.cache/deopt/deoptTrace.js [distDir]`
 * (bundled as `npm run bench` is: under tsx, node cannot take lz-string's named imports).
 * JSFLAGS replaces the V8 flags (say `--trace-deopt --print-bytecode --print-bytecode-filter=NAME`
 * to read the bytecode at an offset; the raw log is written to deopt-trace.log in the system's
 * temporary folder).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from '@playwright/test';
import { encodeConfig } from '../../src/config';
import { BASE_CHROMIUM_ARGS, pinnedChromium } from '../chromium';
import {
  compareConfig,
  oneMillionLink,
  openPlaying,
  scrollToLanes34,
  startPreview,
  timeEdits,
} from './frames';
import { originalName } from './sourceMaps';

const SCROLLED = process.env.PAGE === 'scrolled';
const COMPARE = process.env.PAGE === 'compare' || SCROLLED;
const EDITS = Number(process.env.EDITS ?? (COMPARE ? 15 : 8));

/** Where `function NAME(` is defined in the built scripts, as `originalName` gives it. */
function definedAt(dist: string, name: string, cache: Map<string, string>): string {
  if (name === '') return '(anonymous)';
  const known = cache.get(name);
  if (known !== undefined) return known;
  const places: string[] = [];
  for (const file of readdirSync(join(dist, 'assets'))) {
    if (!file.endsWith('.js')) continue;
    const lines = readFileSync(join(dist, 'assets', file), 'utf8').split('\n');
    lines.forEach((text, line) => {
      for (const m of text.matchAll(new RegExp(`function ${name.replace(/\$/g, '\\$')}\\(`, 'g'))) {
        places.push(
          `${file.split('-')[0]}: ${originalName(dist, file, line, (m.index ?? 0) + 'function '.length, '?')}`,
        );
      }
    });
  }
  const where = places.length === 0 ? '(not a named function)' : places.join(' | ');
  cache.set(name, where);
  return where;
}

async function main(): Promise<void> {
  const dist = process.argv[2] ?? 'dist';
  const { child, url } = await startPreview(dist);
  const pinned = await pinnedChromium();
  // The browser's output reaches this process only as Playwright's `pw:browser` debug log, on
  // stderr (run with DEBUG=pw:browser: see the end of this file); it is kept, not shown.
  const log: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  const keep = (chunk: string | Uint8Array, ...rest: never[]): boolean => {
    const text = String(chunk);
    if (text.includes('pw:browser')) {
      log.push(...text.split('\n'));
      return true;
    }
    return write(chunk, ...rest);
  };
  process.stderr.write = keep;
  const browser = await chromium.launch({
    executablePath: pinned.executablePath,
    env: { ...process.env, ...pinned.env },
    args: [...BASE_CHROMIUM_ARGS, `--js-flags=${process.env.JSFLAGS ?? '--trace-deopt'}`],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    if (COMPARE) await openPlaying(page, `${url}?${encodeConfig(compareConfig())}`);
    else {
      await page.goto(`${url}?${oneMillionLink()}`);
      await page.getByLabel('max_tokens').waitFor();
      // As the bench: the worker warms its cache and JIT meanwhile.
      await page.waitForTimeout(5000);
    }
    if (SCROLLED) {
      // As the frame bench: lane 3's top at the top of the viewport.
      await scrollToLanes34(page);
      await page.waitForTimeout(1000);
    }
    const from = log.length;
    if (SCROLLED) await page.waitForTimeout(5000);
    /** When each edit began (ms since the epoch), for PER_EDIT. */
    const began: number[] = [];
    if (!SCROLLED) await timeEdits(page, EDITS, 101, () => began.push(Date.now()));
    const during = log.slice(from);
    writeFileSync(join(tmpdir(), 'deopt-trace.log'), log.join('\n'));
    writeFileSync(join(tmpdir(), 'deopt-trace-during.log'), during.join('\n'));
    const groups = new Map<string, number>();
    const names = new Map<string, string>();
    for (const line of during) {
      const d = deoptOf(line);
      if (d === null) continue;
      const { kind, reason, fn, tier, offset } = d;
      const key = `${fn} [${definedAt(dist, fn, names)}] ${tier} @${offset}: ${reason} (${kind})`;
      groups.set(key, (groups.get(key) ?? 0) + 1);
    }
    if (process.env.PER_EDIT !== undefined) perEdit(dist, during, began, names);
    console.log(
      `deopts ${SCROLLED ? 'in 5 s of the compare page playing, scrolled to lanes 3-4' : `during ${EDITS} edits (and the untimed one before them) of the ${COMPARE ? 'compare' : '1M'} page`} (raw log: ${join(tmpdir(), 'deopt-trace.log')}):`,
    );
    for (const [key, n] of [...groups].sort((a, b) => b[1] - a[1])) console.log(`  ${n}×  ${key}`);
  } finally {
    await browser.close();
    child.kill();
  }
}

/**
 * A deopt line of `--trace-deopt`, or null (also for the planned exits to on-stack replacement,
 * which are not deopts of interest).
 */
function deoptOf(
  line: string,
): { kind: string; reason: string; fn: string; tier: string; offset: string } | null {
  const m =
    /\[bailout \(kind: ([^,]+), reason: ([^)]*)\): begin\. deoptimizing 0x[0-9a-f]+ <JSFunction ([\w$]*) ?\(sfi.*?<Code (\w+)>, opt id \d+, bytecode offset (\d+)/.exec(
      line,
    );
  if (m === null) return null;
  const [, kind = '', reason = '', fn = '', tier = '', offset = ''] = m;
  if (reason.startsWith('prepare for on stack replacement')) return null;
  return { kind, reason, fn, tier, offset };
}

/**
 * PER_EDIT: the deopts and (with --trace-opt in JSFLAGS) the compiles of each edit, in order, by
 * the time Playwright logged each line (the untimed edit is -1).
 */
function perEdit(dist: string, lines: string[], began: number[], names: Map<string, string>): void {
  const editOf = (line: string): number => {
    const t = Date.parse(line.slice(0, 24));
    let k = -2;
    began.forEach((b, i) => {
      if (t >= b) k = i - 1;
    });
    return k;
  };
  let last = -3;
  for (const line of lines) {
    const deopt = deoptOf(line);
    const compiled =
      /completed compiling 0x[0-9a-f]+ <JSFunction ([\w$]*) ?\(sfi.*?\(target (\w+)\)( OSR)? - took [\d.]+, ([\d.]+)/.exec(
        line,
      );
    if (deopt === null && compiled === null) continue;
    const k = editOf(line);
    if (k !== last) console.log(`edit ${k}:`);
    last = k;
    if (deopt !== null) {
      const { reason, fn, tier, offset } = deopt;
      console.log(`  deopt ${fn} ${tier} @${offset}: ${reason} [${definedAt(dist, fn, names)}]`);
    } else if (compiled !== null) {
      const [, fn, tier, osr, ms] = compiled as unknown as string[];
      if (Number(ms) < 5) continue;
      console.log(
        `  compiled ${fn} ${tier}${osr ?? ''} ${ms} ms [${definedAt(dist, fn ?? '', names)}]`,
      );
    }
  }
}

// Playwright reads DEBUG when it loads: without pw:browser, run again with it.
if (process.env.DEBUG?.includes('pw:browser') === true) void main();
else {
  const again = spawnSync(process.execPath, process.argv.slice(1), {
    env: { ...process.env, DEBUG: 'pw:browser' },
    stdio: 'inherit',
  });
  process.exitCode = again.status ?? 1;
}
