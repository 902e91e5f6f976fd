/**
 * Hostile input (issue 15): CPU time to open the worst links and to import the worst pastes found,
 * then a seeded fuzz of each, reporting the slowest. Figures only (CPU time of this process, the
 * best of a few runs, so other load on the machine counts less); nothing here is a timed test.
 * Budgets: a link or saved setting opens in ≤ 50 ms, an import takes ≤ 200 ms.
 */
import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { chromium } from '@playwright/test';
import type { Browser } from '@playwright/test';
import fc from 'fast-check';
import { compressToEncodedURIComponent } from 'lz-string';
import { MAX_LINK_LENGTH, decodeConfig, defaultConfig, encodeConfig } from '../../src/config';
import { MAX_MANUAL_TIMES, MAX_SOURCES } from '../../src/sim';
import { OPEN_MEASURE, STORAGE_KEY, startFrom } from '../../src/ui/share/session';
import { CHROMIUM_ARGS, pinnedChromium } from '../chromium';
import { startPreview } from './frames';
import { MAX_IMPORT_CHARS, importEnvoy, importNginx } from '../../src/export';
import { encodeTimes } from '../../src/config/url-grammar';

/** CPU ms of `f`, best of `runs`. */
function cpuMs(f: () => unknown, runs = 5): number {
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < runs; i += 1) {
    const c0 = process.cpuUsage();
    f();
    const c = process.cpuUsage(c0);
    best = Math.min(best, (c.user + c.system) / 1000);
  }
  return best;
}

/** The longest text `make(n)` gives within `cap` characters (n found by bisection). */
function fit(make: (n: number) => string, cap: number, hi = 20_000): string {
  let lo = 1;
  while (lo < hi) {
    const m = Math.ceil((lo + hi) / 2);
    if (make(m).length <= cap) lo = m;
    else hi = m - 1;
  }
  return make(lo);
}

/** encodeTimes() of 10,000 times of −1 ms: 379 characters that unpack to 10,000 invalid clicks. */
const NEGATIVE_10K = encodeTimes(Array<number>(10_000).fill(-1));
/** encodeTimes() of 10,000 valid times one ms apart: a link may carry 20 such lists (200,000 times). */
const VALID_10K = encodeTimes(Array.from({ length: 10_000 }, (_, i) => i));

function hostileLinks(): Record<string, string> {
  const L = MAX_LINK_LENGTH;
  const neg = (n: number): string =>
    `v=1&${Array.from({ length: n }, () => `src=manual:${NEGATIVE_10K}`).join('&')}&paused`;
  return {
    'packed lists of 10,000 negative times (20 fit)': fit(neg, L, 40),
    'packed lists of 10,000 valid times (max that fit)': fit(
      (n) => `v=1&${Array.from({ length: n }, () => `src=manual:${VALID_10K}`).join('&')}&paused`,
      L,
      40,
    ),
    'lz bomb (2,000,000 "a" packed)': `v=1&src=manual:lz=${compressToEncodedURIComponent('a'.repeat(2_000_000))}`,
    'manual times of ";"': `v=1&src=manual:times=${';'.repeat(L - 21)}`,
    'clock jumps of ";"': `v=1&clock=wall:jumps=${';'.repeat(L - 21)}`,
    'clock jumps of "@;"': fit((n) => `v=1&clock=wall:jumps=${'@;'.repeat(n)}`, L),
    'unknown parameters': fit(
      (n) => `v=1&${Array.from({ length: n }, (_, i) => `x${i}=1`).join('&')}`,
      L,
    ),
    '6+ bad limiters': fit((n) => `v=1${'&l=a'.repeat(n)}`, L),
    'sources with a bad count': fit((n) => `v=1${'&src=burst:count=-1'.repeat(n)}`, L),
    'unknown options': fit(
      (n) => `v=1&l=envoy:${Array.from({ length: n }, (_, i) => `k${i}`).join(',')}`,
      L,
    ),
    'repeated options': fit((n) => `v=1&l=envoy:${'a,'.repeat(n)}`, L),
    'broken percent-encoding': fit((n) => `v=1&l=${'%E0%A4%A'.repeat(n)}`, L),
    'bidi overrides': fit((n) => `v=1&x=${'%E2%80%AE'.repeat(n)}`, L),
    'huge times': fit(
      (n) => `v=1&src=manual:times=${Array(n).fill('99999999999999999h').join(';')}`,
      L,
    ),
    'fleet options': fit((n) => `v=1&fleet=${'a,'.repeat(n)}`, L),
    'valid readable times': fit(
      (n) => `v=1&src=manual:times=${Array.from({ length: n }, (_, i) => i % 10).join(';')}`,
      L,
    ),
    'manual sources of 4 negative times': fit(
      (n) => `v=1${'&src=manual:times=-1;-2;-3;-4'.repeat(n)}`,
      L,
    ),
  };
}

function hostilePastes(): Record<string, string> {
  const N = MAX_IMPORT_CHARS;
  const fill = (unit: string): string => unit.repeat(Math.ceil(N / unit.length)).slice(0, N);
  const lines = (n: number, line: (i: number) => string): string =>
    Array.from({ length: n }, (_, i) => line(i))
      .join('\n')
      .slice(0, N);
  return {
    commas: fill(','),
    'commas in a flow sequence': `[${','.repeat(N - 2)}]`,
    '[] repeated': fill('[]'),
    '{} repeated': fill('{}'),
    '[ repeated': fill('['),
    '- repeated': fill('- '),
    'flow items': `[${'a,'.repeat((N - 2) / 2)}]`,
    'flow pairs, one key': `{${'a: b,'.repeat(Math.floor((N - 2) / 5))}}`,
    anchors: lines(1500, (i) => `a${i}: &x${i} 1`),
    aliases: `a: &x [1,2,3]\n${lines(2000, (i) => `b${i}: *x`)}`.slice(0, N),
    'long scalar': `a: ${'x'.repeat(N - 3)}`,
    'many keys': lines(3000, (i) => `k${i}: 1`),
    'duplicate bucket fields': `token_bucket:\n${fill('  max_tokens: 1\n')}`.slice(0, N),
    comments: fill('# c\n'),
    'double quotes': fill('"'),
    'quoted scalars': fill('"a" '),
    'bad indentation': fill(' a:\nb:\n'),
    'limit_req lines':
      `limit_req_zone $binary_remote_addr zone=a:10m rate=1r/s;\n${fill('limit_req zone=a burst=5 nodelay;\n')}`.slice(
        0,
        N - (N % 34),
      ),
    'limit_req_zone lines': lines(
      400,
      (i) => `limit_req_zone $binary_remote_addr zone=z${i}:10m rate=${i + 1}r/s;`,
    ),
    'nginx blocks': fill('http {'),
  };
}

/** What one fresh process measured: the first decode of one link (or saved record) in it. */
interface ColdFigures {
  cpuMs: number;
  wallMs: number;
}

/** Saved settings (the localStorage record, as JSON text) a corrupted or planted store could hold. */
function hostileSaved(): Record<string, string> {
  const record = (config: unknown): string => JSON.stringify({ config, experiment: null });
  const base = defaultConfig();
  const withSources = (sources: unknown[]): string =>
    record({ ...base, scenario: { ...base.scenario, sources } });
  const list = (f: (i: number) => unknown, n = MAX_MANUAL_TIMES): unknown[] =>
    Array.from({ length: n }, (_, i) => f(i));
  const manual = (f: (i: number) => unknown, n?: number) => ({
    kind: 'manual',
    timesMs: list(f, n),
  });
  return {
    '32 sources × 10,000 valid times': withSources(list(() => manual((i) => i), MAX_SOURCES)),
    '32 sources × 10,000 distinct negative times': withSources(
      list(() => manual((i) => -1 - i), MAX_SOURCES),
    ),
    '32 sources × 10,000 distinct strings': withSources(
      list(() => manual((i) => `t${i}`), MAX_SOURCES),
    ),
    '32 sources × 10,000 distinct fractions': withSources(
      list(() => manual((i) => i + 0.5), MAX_SOURCES),
    ),
    '300 sources × 1,000 valid times': withSources(list(() => manual((i) => i, 1000), 300)),
    '10,001 limiters of an unknown kind': record({
      ...base,
      limiters: list((i) => ({ config: { kind: `k${i}` } }), 10_001),
    }),
    '10,001 clock jumps': record({
      ...base,
      scenario: {
        ...base.scenario,
        clock: { mode: 'wall', jumps: list((i) => ({ atMs: i, byMs: 0 }), 10_001) },
      },
    }),
    'lists nested 6 deep, 10 wide': record(
      JSON.parse(
        Array.from({ length: 6 }).reduce<string>(
          (inner) => `[${Array<string>(10).fill(inner).join(',')}]`,
          '1',
        ),
      ),
    ),
  };
}

/**
 * The child side of the cold decode: opens the page's start (src/ui/share/session.ts `startFrom`)
 * from one hostile link or saved record, once, in this fresh process (nothing decoded before it, so
 * first-call compilation counts, as in a tab opened with a shared link), and sends the CPU and
 * wall time of that call. Returns false when not such a child.
 */
export function runDecodeChild(): boolean {
  const link = process.env.BENCH_DECODE_LINK;
  const saved = process.env.BENCH_DECODE_SAVED;
  if ((link === undefined && saved === undefined) || process.send === undefined) return false;
  // Made before the clock starts: in a tab the record is there before the page reads it.
  const record = saved === undefined ? '' : (hostileSaved()[saved] ?? '');
  const storage = { getItem: () => record } as unknown as Storage;
  const w0 = performance.now();
  const c0 = process.cpuUsage();
  if (saved === undefined) startFrom(`?${link}`, null);
  else startFrom('', storage);
  const c = process.cpuUsage(c0);
  const figures: ColdFigures = {
    cpuMs: (c.user + c.system) / 1000,
    wallMs: performance.now() - w0,
  };
  process.send(figures);
  return true;
}

/** A link's text, or the name of a saved record (made in the child: megabytes). */
type ColdJob = { BENCH_DECODE_LINK: string } | { BENCH_DECODE_SAVED: string };

function coldDecode(job: ColdJob): Promise<ColdFigures> {
  return new Promise((resolve, reject) => {
    const prof = process.env.BENCH_CPU_PROF;
    const child = fork(process.argv[1] as string, [], {
      env: { ...process.env, ...job },
      execArgv: prof === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', prof],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    child.once('message', (m) => resolve(m as ColdFigures));
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) reject(new Error(`decode bench child exited with ${code}`));
    });
  });
}

/**
 * Cold opening: each hostile link and saved record opened once in a fresh Node process. CPU is the
 * whole process's (the compiler and GC threads count too), so it is the higher of the two figures
 * on a quiet machine; wall is inflated by other load.
 */
export async function runColdDecodeBench(): Promise<void> {
  let worst = 0;
  const show = async (name: string, job: ColdJob): Promise<void> => {
    const f = await coldDecode(job);
    worst = Math.max(worst, f.cpuMs);
    console.log(
      `  ${name.padEnd(52)} ${f.cpuMs.toFixed(1).padStart(6)} ms CPU ${f.wallMs.toFixed(1).padStart(6)} ms wall`,
    );
  };
  console.log(
    'Cold open from a link: each decoded once in a fresh Node process (startFrom; budget 50 ms):',
  );
  for (const [name, link] of Object.entries(hostileLinks()))
    await show(name, { BENCH_DECODE_LINK: link });
  console.log('Cold open from saved settings (JSON.parse and repair of the stored record):');
  for (const [name, text] of Object.entries(hostileSaved()))
    await show(`${name} (${(text.length / 1e6).toFixed(1)} MB)`, { BENCH_DECODE_SAVED: name });
  console.log(`  worst cold open ${worst.toFixed(1)} ms CPU (budget 50 ms)`);
}

/**
 * Opening in the pinned Chromium: each hostile link (and saved record, put in localStorage before
 * the page loads) in a fresh browser context (no cache, no compiled code), reading the measure the
 * page records around decode and repair (OPEN_MEASURE, main.tsx).
 */
export async function runBrowserOpenBench(distDir = 'dist'): Promise<void> {
  if (!existsSync(join(distDir, 'index.html'))) {
    throw new Error(`No ${distDir}/index.html: build the site first (npm run bench does).`);
  }
  let preview: ChildProcess | null = null;
  let browser: Browser | null = null;
  try {
    const started = await startPreview(distDir);
    preview = started.child;
    const pinned = await pinnedChromium();
    browser = await chromium.launch({
      executablePath: pinned.executablePath,
      env: { ...process.env, ...pinned.env },
      args: [...CHROMIUM_ARGS],
    });
    console.log(
      `Cold open in headless Chromium ${browser.version()}: a fresh context per link, the page's "${OPEN_MEASURE}" measure (budget 50 ms):`,
    );
    let worst = 0;
    const open = async (name: string, query: string, saved: string | null): Promise<void> => {
      const context = await (browser as Browser).newContext({
        viewport: { width: 1280, height: 800 },
      });
      if (saved !== null) {
        await context.addInitScript(
          ([key, value]) => {
            if (window.localStorage.getItem(key) === null) window.localStorage.setItem(key, value);
          },
          [STORAGE_KEY, saved] as const,
        );
      }
      const page = await context.newPage();
      await page.goto(`${started.url}${query}`);
      const handle = await page.waitForFunction(
        (measure) => performance.getEntriesByName(measure)[0]?.duration,
        OPEN_MEASURE,
      );
      const ms = (await handle.jsonValue()) as number;
      worst = Math.max(worst, ms);
      console.log(`  ${name.padEnd(52)} ${ms.toFixed(1).padStart(6)} ms`);
      await context.close();
    };
    for (const [name, link] of Object.entries(hostileLinks())) await open(name, `?${link}`, null);
    for (const [name, text] of Object.entries(hostileSaved()))
      await open(`saved: ${name}`, '', text);
    console.log(
      `  worst ${worst.toFixed(1)} ms (budget 50 ms); load average ${loadavg()[0]?.toFixed(1)}`,
    );
  } finally {
    await browser?.close();
    preview?.kill();
  }
}

/** A seeded generator (mulberry32): the search is the same on every run. */
function seeded(seed: number): (n: number) => number {
  let a = seed >>> 0;
  return (n) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
}

/**
 * Hill climbing: from the slowest of `seeds`, `tries` mutations (each of the current worst), keeping
 * a mutation whenever it costs more CPU than the worst so far (`cost`: best of 2, so one GC pause
 * does not win), within `budgetMs` of wall time. Returns the worst found and its cost.
 */
function climb(
  seeds: readonly string[],
  mutate: (text: string, random: (n: number) => number) => string,
  cost: (text: string) => number,
  tries: number,
  budgetMs: number,
): { worst: string; ms: number; tried: number; kept: number } {
  const random = seeded(15);
  let worst = seeds[0] ?? '';
  let ms = -1;
  for (const seed of seeds) {
    const c = cost(seed);
    if (c > ms) [worst, ms] = [seed, c];
  }
  const until = performance.now() + budgetMs;
  let tried = 0;
  let kept = 0;
  while (tried < tries && performance.now() < until) {
    tried += 1;
    const next = mutate(worst, random);
    const c = cost(next);
    if (c > ms) {
      [worst, ms] = [next, c];
      kept += 1;
    }
  }
  return { worst, ms, tried, kept };
}

/** Pieces of the link grammar and of hostile text the link search splices in. */
const LINK_PIECES = [
  '&src=manual:',
  'times=',
  'lz=',
  ';',
  ';-1',
  ';1.5s',
  ';99999999999999h',
  '&clock=wall:jumps=',
  '-5s@10s;',
  '@',
  '&l=',
  'nginx:rate=',
  'envoy:max_tokens=-1,',
  ',',
  '=',
  ':',
  '%E2%80%AE',
  '%E0%A4%A',
  '&fleet=',
  'scale=1s:3;',
  '&sel=',
  '&x=',
  '&v=',
  '&until=',
  '__proto__',
];

/** One random edit of a link: a piece inserted, a part repeated, cut or removed; at most the cap. */
function mutateLink(link: string, random: (n: number) => number): string {
  const at = random(link.length + 1);
  const len = 1 + random(Math.max(1, Math.min(400, link.length - at)));
  let out: string;
  switch (random(4)) {
    case 0:
      out = link.slice(0, at) + (LINK_PIECES[random(LINK_PIECES.length)] ?? '') + link.slice(at);
      break;
    case 1: {
      const part = link.slice(at, at + len);
      out = link.slice(0, at) + part.repeat(1 + random(8)) + link.slice(at);
      break;
    }
    case 2:
      out = link.slice(0, at) + link.slice(at + len);
      break;
    default: {
      const piece = LINK_PIECES[random(LINK_PIECES.length)] ?? '';
      out = link.slice(0, at) + piece.repeat(1 + random(200)) + link.slice(at);
    }
  }
  return out.slice(0, MAX_LINK_LENGTH);
}

/** Pieces of YAML and nginx text the paste search splices in. */
const PASTE_PIECES = [
  '[',
  ']',
  '{',
  '}',
  '- ',
  '? ',
  ': ',
  ',',
  '\n',
  '  ',
  'a',
  '"',
  "'",
  '#',
  '|',
  '&a ',
  '*a ',
  'k: v\n',
  'token_bucket:\n  max_tokens: 1\n',
  'limit_req zone=a burst=5;\n',
  'limit_req_zone $binary_remote_addr zone=a:10m rate=1r/s;\n',
  'http {',
  '}\n',
  '!!binary ',
  '<<: *a\n',
];

function mutatePaste(text: string, random: (n: number) => number): string {
  const at = random(text.length + 1);
  const len = 1 + random(Math.max(1, Math.min(4000, text.length - at)));
  let out: string;
  switch (random(3)) {
    case 0: {
      const piece = PASTE_PIECES[random(PASTE_PIECES.length)] ?? '';
      out = text.slice(0, at) + piece.repeat(1 + random(2000)) + text.slice(at);
      break;
    }
    case 1:
      out = text.slice(0, at) + text.slice(at, at + len).repeat(1 + random(8)) + text.slice(at);
      break;
    default:
      out = text.slice(0, at) + text.slice(at + len);
  }
  return out.slice(0, MAX_IMPORT_CHARS);
}

/**
 * The broader search (issue 15): seeded hill climbing over links, saved records and pastes, a few
 * thousand tries each within a bounded time, then the worst of each opened cold (links, records) in
 * a fresh process. `SEARCH_TRIES` and `SEARCH_SECONDS` change the bounds.
 */
export async function runSearchBench(): Promise<void> {
  const tries = Number(process.env.SEARCH_TRIES ?? 3000);
  const seconds = Number(process.env.SEARCH_SECONDS ?? 60);
  console.log(
    `Worst-case search: seeded hill climbing, up to ${tries} mutations of the current worst per kind, ${seconds} s each; cost = CPU ms, best of 2:`,
  );
  const links = climb(
    Object.values(hostileLinks()),
    mutateLink,
    (link) => cpuMs(() => startFrom(`?${link}`, null), 2),
    tries,
    seconds * 1000,
  );
  const cold = await coldDecode({ BENCH_DECODE_LINK: links.worst });
  console.log(
    `  links: ${links.tried} tried, ${links.kept} kept; worst ${links.ms.toFixed(1)} ms warm, ${cold.cpuMs.toFixed(1)} ms CPU cold (fresh process), ${links.worst.length} ch ${JSON.stringify(links.worst.slice(0, 80))}…`,
  );
  // Saved records: mutations of the structured record (which list, how long, what values),
  // searched over a small space of shapes rather than JSON text (almost every text edit is
  // unreadable JSON, refused at once).
  const shapes: string[] = [];
  const values: Array<(i: number) => unknown> = [
    (i) => i,
    (i) => -1 - i,
    (i) => `t${i}`,
    (i) => i + 0.5,
    () => null,
    (i) => ({ t: i }),
    (i) => [i],
  ];
  const random = seeded(15);
  for (let k = 0; k < Math.min(tries, 60); k += 1) {
    const n = 1 + random(MAX_SOURCES * 2);
    const len = 1 + random(MAX_MANUAL_TIMES + 10);
    const value = values[random(values.length)] ?? ((i: number) => i);
    const base = defaultConfig();
    const sources = Array.from({ length: n }, () => ({
      kind: random(4) === 0 ? 'burst' : 'manual',
      timesMs: Array.from({ length: len }, (_, i) => value(i)),
      count: value(1),
    }));
    shapes.push(
      JSON.stringify({
        config: { ...base, scenario: { ...base.scenario, sources } },
        experiment: null,
      }),
    );
  }
  let savedWorst = '';
  let savedMs = -1;
  for (const text of shapes) {
    const storage = { getItem: () => text } as unknown as Storage;
    const ms = cpuMs(() => startFrom('', storage), 2);
    if (ms > savedMs) [savedWorst, savedMs] = [text, ms];
  }
  console.log(
    `  saved records: ${shapes.length} seeded shapes (up to ${MAX_SOURCES * 2} sources × ${MAX_MANUAL_TIMES + 10} values of 7 kinds); worst ${savedMs.toFixed(1)} ms warm (${(savedWorst.length / 1e6).toFixed(1)} MB)`,
  );
  const pastes = climb(
    Object.values(hostilePastes()),
    mutatePaste,
    (text) =>
      Math.max(
        cpuMs(() => importEnvoy(text), 1),
        cpuMs(() => importNginx(text), 1),
      ),
    Math.min(tries, 600),
    seconds * 1000,
  );
  console.log(
    `  pastes: ${pastes.tried} tried, ${pastes.kept} kept; worst import ${pastes.ms.toFixed(1)} ms (budget 200 ms), ${pastes.worst.length} ch ${JSON.stringify(pastes.worst.slice(0, 60))}…`,
  );
}

export function runHostileBench(parts: { decode: boolean; imports: boolean }): void {
  if (parts.decode) {
    console.log('Opening hostile links (decode and repair, CPU ms, best of 5; budget 50 ms):');
    let worst = 0;
    for (const [name, link] of Object.entries(hostileLinks())) {
      const ms = cpuMs(() => decodeConfig(link));
      worst = Math.max(worst, ms);
      const again = encodeConfig(decodeConfig(link).config).length;
      console.log(
        `  ${name.padEnd(42)} ${String(link.length).padStart(5)} ch ${ms.toFixed(1).padStart(6)} ms, re-encoded ${again} ch`,
      );
    }
    // Fuzz: mutations of the hostile links (cut, doubled parts, bytes changed), seeded.
    const links = Object.values(hostileLinks());
    let fuzzWorst = 0;
    let fuzzLink = '';
    fc.assert(
      fc.property(
        fc.constantFrom(...links),
        fc.array(fc.tuple(fc.nat(), fc.nat(), fc.string({ maxLength: 8 })), { maxLength: 6 }),
        (base, edits) => {
          let link = base;
          for (const [at, len, text] of edits) {
            const i = at % (link.length + 1);
            link = link.slice(0, i) + text + link.slice(i, i + (len % 200)) + link.slice(i);
          }
          link = link.slice(0, MAX_LINK_LENGTH);
          const ms = cpuMs(() => decodeConfig(link), 2);
          if (ms > fuzzWorst) {
            fuzzWorst = ms;
            fuzzLink = link;
          }
        },
      ),
      { numRuns: 300, seed: 15 },
    );
    // The worst mutation measured again, best of 9: a first or second decode of a new link pays
    // for compiling its paths and for any GC due (the 90 ms found this way was 18 ms warm).
    const again = cpuMs(() => decodeConfig(fuzzLink), 9);
    console.log(
      `  worst listed ${worst.toFixed(1)} ms; worst of 300 fuzzed mutations ${fuzzWorst.toFixed(1)} ms, ${again.toFixed(1)} ms best of 9 (${JSON.stringify(fuzzLink.slice(0, 60))}…)`,
    );
  }
  if (parts.imports) {
    console.log(
      `Importing hostile pastes of up to ${MAX_IMPORT_CHARS} characters (CPU ms, best of 3; budget 200 ms):`,
    );
    let worst = 0;
    for (const [name, text] of Object.entries(hostilePastes())) {
      const envoy = cpuMs(() => importEnvoy(text), 3);
      const nginx = cpuMs(() => importNginx(text), 3);
      worst = Math.max(worst, envoy, nginx);
      console.log(
        `  ${name.padEnd(28)} ${String(text.length).padStart(6)} ch  envoy ${envoy.toFixed(1).padStart(6)} ms  nginx ${nginx.toFixed(1).padStart(6)} ms`,
      );
    }
    const huge = cpuMs(
      () => [importEnvoy('['.repeat(1 << 20)), importNginx('['.repeat(1 << 20))],
      3,
    );
    console.log(`  1 MB of "[" (refused by size): ${huge.toFixed(1)} ms both`);
    const unit = fc.constantFrom(
      '[',
      ']',
      '{',
      '}',
      '- ',
      '? ',
      ': ',
      ',',
      '\n',
      '  ',
      'a',
      '"',
      "'",
      '#',
      '|',
      '&a ',
      '*a ',
      'k: v\n',
      'limit_req zone=a;\n',
    );
    let fuzzWorst = 0;
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 6000 }), (parts) => {
        const text = parts.join('').repeat(4).slice(0, MAX_IMPORT_CHARS);
        fuzzWorst = Math.max(
          fuzzWorst,
          cpuMs(() => importEnvoy(text), 1),
          cpuMs(() => importNginx(text), 1),
        );
      }),
      { numRuns: 200, seed: 15 },
    );
    console.log(
      `  worst listed ${worst.toFixed(1)} ms; worst of 200 fuzzed pastes ${fuzzWorst.toFixed(1)} ms`,
    );
  }
}
