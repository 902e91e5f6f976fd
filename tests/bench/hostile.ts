/**
 * Hostile input: CPU time to open the worst links and to import the worst pastes found,
 * then a seeded fuzz of each, reporting the slowest. Figures only (CPU time of this process, the
 * best of a few runs, so other load on the machine counts less); nothing here is a timed test.
 * Budgets: a link or saved setting opens in ≤ 50 ms, an import takes ≤ 200 ms.
 */
import fc from 'fast-check';
import { compressToEncodedURIComponent } from 'lz-string';
import { MAX_LINK_LENGTH, encodeConfig } from '../../src/config';
import { decodeConfig } from '../../src/config/url';
import {
  MAX_IMPORT_CHARS,
  importEnvoy,
  importHaproxy,
  importIngressNginx,
  importNginx,
} from '../../src/export';

/** Every importer a paste can reach (the person can pick the format, whatever the paste holds). */
export const IMPORTERS: ReadonlyArray<readonly [string, (text: string) => unknown]> = [
  ['envoy', importEnvoy],
  ['nginx', importNginx],
  ['haproxy', importHaproxy],
  ['ingress', importIngressNginx],
];
import { encodeTimes } from '../../src/config/url-grammar';
import { YAML_PIECES } from '../export/paste-pieces';

/** CPU ms of `f`, best of `runs`. */
export function cpuMs(f: () => unknown, runs = 5): number {
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

export function hostileLinks(): Record<string, string> {
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

export function hostilePastes(): Record<string, string> {
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
      const each = IMPORTERS.map(([format, f]) => {
        const ms = cpuMs(() => f(text), 3);
        worst = Math.max(worst, ms);
        return `${format} ${ms.toFixed(1).padStart(6)} ms`;
      });
      console.log(`  ${name.padEnd(28)} ${String(text.length).padStart(6)} ch  ${each.join('  ')}`);
    }
    const huge = cpuMs(() => IMPORTERS.map(([, f]) => f('['.repeat(1 << 20))), 3);
    console.log(`  1 MB of "[" (refused by size): ${huge.toFixed(1)} ms all four`);
    const unit = fc.constantFrom(...YAML_PIECES, 'limit_req zone=a;\n');
    let fuzzWorst = 0;
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 6000 }), (parts) => {
        const text = parts.join('').repeat(4).slice(0, MAX_IMPORT_CHARS);
        for (const [, f] of IMPORTERS)
          fuzzWorst = Math.max(
            fuzzWorst,
            cpuMs(() => f(text), 1),
          );
      }),
      { numRuns: 200, seed: 15 },
    );
    console.log(
      `  worst listed ${worst.toFixed(1)} ms; worst of 200 fuzzed pastes ${fuzzWorst.toFixed(1)} ms`,
    );
  }
}
