/**
 * The broader worst-case search (`BENCH=search`): seeded hill climbing from the hand-made
 * hostile links and pastes of hostile.ts, and seeded shapes of saved records. Figures only.
 */
import { MAX_LINK_LENGTH, defaultConfig } from '../../src/config';
import { MAX_IMPORT_CHARS } from '../../src/export';
import { MAX_MANUAL_TIMES, MAX_SOURCES } from '../../src/sim';
import { startFrom } from '../../src/ui/share/session';
import { openLink } from '../../src/ui/share/openLink';
import { openSaved } from '../../src/ui/share/openSaved';
import { coldDecode } from './cold-open';
import { hostileSavedRecords } from '../config/saved-records';
import { SAVED_LIMITS } from '../../src/config/saved';
import { IMPORTERS, cpuMs, hostileLinks, hostilePastes } from './hostile';
import { YAML_PIECES } from '../export/paste-pieces';

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
  ...YAML_PIECES,
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
 * The broader search: seeded hill climbing over links, saved records and pastes, a few
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
    (link) => cpuMs(() => startFrom(`?${link}`, null, null, openLink), 2),
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
  const shapeNames: string[] = [];
  const values: Array<(i: number) => unknown> = [
    (i) => i,
    (i) => -1 - i,
    (i) => `t${i}`,
    (i) => i + 0.5,
    () => null,
    (i) => ({ t: i }),
    (i) => [i],
    () => false,
    (i) => -2_147_483_649 - i,
    (i) => 86_400_000 - i,
  ];
  const random = seeded(15);
  for (let k = 0; k < Math.min(tries, 60); k += 1) {
    const n = 1 + random(MAX_SOURCES * 2);
    // Most shapes within the record limits (src/config/saved.ts), where they are opened.
    const most = Math.floor((SAVED_LIMITS.values - 200) / n);
    const len = 1 + random(Math.min(MAX_MANUAL_TIMES + 10, random(4) === 0 ? 1e9 : most));
    const value = values[random(values.length)] ?? ((i: number) => i);
    const base = defaultConfig();
    const sources = Array.from({ length: n }, () => ({
      kind: random(4) === 0 ? 'burst' : 'manual',
      timesMs: Array.from({ length: len }, (_, i) => value(i)),
      count: value(1),
    }));
    shapeNames.push(`${n} sources × ${len} values, kind ${values.indexOf(value)}`);
    shapes.push(
      JSON.stringify({
        config: { ...base, scenario: { ...base.scenario, sources } },
        experiment: null,
      }),
    );
  }
  // And the records at the edge of each limit (tests/config/saved-records.ts).
  for (const [name, text] of Object.entries(hostileSavedRecords())) {
    shapeNames.push(name);
    shapes.push(text);
  }
  let savedWorst = '';
  let savedMs = -1;
  let savedName = '';
  let refused = 0;
  shapes.forEach((text, k) => {
    const storage = { getItem: () => text } as unknown as Storage;
    let source = '';
    const ms = cpuMs(() => (source = startFrom('', storage, openSaved, null).source), 2);
    if (source === 'refused') refused += 1;
    if (ms > savedMs)
      [savedWorst, savedMs, savedName] = [text, ms, `${shapeNames[k] ?? ''}: ${source}`];
  });
  console.log(
    `  saved records: ${shapes.length} (seeded shapes of up to ${MAX_SOURCES * 2} sources × ${MAX_MANUAL_TIMES + 10} values of ${values.length} kinds, and the edge of each limit), ${refused} not opened; worst ${savedMs.toFixed(1)} ms warm (${savedName}, ${(savedWorst.length / 1e6).toFixed(1)} MB)`,
  );

  const pastes = climb(
    Object.values(hostilePastes()),
    mutatePaste,
    (text) => Math.max(...IMPORTERS.map(([, f]) => cpuMs(() => f(text), 1))),
    Math.min(tries, 600),
    seconds * 1000,
  );
  console.log(
    `  pastes: ${pastes.tried} tried, ${pastes.kept} kept; worst import ${pastes.ms.toFixed(1)} ms (budget 200 ms), ${pastes.worst.length} ch ${JSON.stringify(pastes.worst.slice(0, 60))}…`,
  );
}
