/**
 * The house kept true: no process words in code (issue numbers, session or branch names), no
 * import circles in src/, every folder's index opening with what the folder holds, and the counts
 * the README states equal to the code's.
 */
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ALGORITHM_KINDS } from '../../src/core';
import { EXPERIMENTS } from '../../src/config/experiments';
import { MAX_LIMITERS } from '../../src/store';
import { SYSTEMS } from '../../src/systems';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** Every file under `dir` (relative to the root) whose name matches `ext`. */
function filesUnder(dir: string, ext: RegExp): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) {
        if (name !== 'node_modules' && name !== '__screenshots__' && name !== '__snapshots__')
          walk(p);
      } else if (ext.test(name)) out.push(p);
    }
  };
  walk(join(ROOT, dir));
  return out;
}

const CODE = /\.(ts|tsx|js|css)$/;

/** Words that belong to how the code was made, not to what it does. */
const PROCESS_WORDS: ReadonlyArray<[RegExp, string]> = [
  [/\bissues? ?#?\d+/i, 'an issue number (say why, not which issue)'],
  [/\b(?:[ib]\d{1,2}[a-z]|[a-z]\d{1,2}[ib])\b/, 'a session or branch name (e.g. i13b)'],
  [/\bAdded for\b/, '"Added for …" (say what the code is)'],
  [/\b(?:first|second|this|next) wave\b/i, 'a wave of work'],
];

describe('process words', () => {
  const files = [
    ...filesUnder('src', CODE),
    ...filesUnder('tests', CODE),
    join(ROOT, 'eslint.config.js'),
    join(ROOT, 'vite.config.ts'),
    join(ROOT, 'playwright.config.ts'),
  ];

  it('reads every source and test file', () => {
    expect(files.length).toBeGreaterThan(300);
  });

  it('no code or comment carries an issue number, a session or branch name', () => {
    const found: string[] = [];
    for (const f of files) {
      // This file states the patterns it looks for.
      if (f === fileURLToPath(import.meta.url)) continue;
      const text = readFileSync(f, 'utf8');
      // An issue number cut by a line break in a comment ("(issue\n * 11)") counts too.
      if (/\bissues?\s*\n[\s*/]*#?\d+/i.test(text))
        found.push(`${relative(ROOT, f)}: an issue number across a line break`);
      const lines = text.split('\n');
      lines.forEach((line, i) => {
        for (const [rx, what] of PROCESS_WORDS) {
          // A colour such as #b3470d is not a name.
          const text = line.replace(/#[0-9a-f]{3,8}\b/gi, '');
          if (rx.test(text)) found.push(`${relative(ROOT, f)}:${i + 1}: ${what}: ${line.trim()}`);
        }
      });
    }
    expect(found).toEqual([]);
  });

  it('the check finds what it looks for', () => {
    const hits = (s: string) => PROCESS_WORDS.some(([rx]) => rx.test(s));
    expect(hits('// ---- Added for issue 13 (i13b) ----')).toBe(true);
    expect(hits('(issue 11: initial JavaScript)')).toBe(true);
    expect(hits('the six from the first wave')).toBe(true);
    expect(hits('Kong increments in a timer (Kong #2629)')).toBe(false);
    expect(hits('On/off (square wave)')).toBe(false);
  });
});

/** The modules `file` imports (static, re-exports and dynamic), resolved to files under src/. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specs = [
    ...text.matchAll(/\b(?:import|export)\b[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]/g),
    ...text.matchAll(/\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g),
    ...text.matchAll(/^\s*import\s+['"]([^'"]+)['"]/gm),
  ].map((m) => m[1] as string);
  const out: string[] = [];
  for (const spec of specs) {
    if (!spec.startsWith('.')) continue;
    const base = resolve(dirname(file), spec.replace(/\?.*$/, ''));
    // As Node's resolver with the extensions .ts, .tsx, .js (the removed ESLint rule's settings).
    for (const candidate of [
      base,
      `${base}.ts`,
      `${base}.tsx`,
      `${base}.js`,
      join(base, 'index.ts'),
      join(base, 'index.tsx'),
      join(base, 'index.js'),
    ]) {
      try {
        if (statSync(candidate).isFile()) {
          out.push(candidate);
          break;
        }
      } catch {
        // not this candidate
      }
    }
  }
  return out;
}

/** The import circles among `files`: each as the path around it, from its first module. */
function circles(files: readonly string[]): string[][] {
  const graph = new Map(files.map((f) => [f, importsOf(f).filter((g) => /\.(tsx?|js)$/.test(g))]));
  const found: string[][] = [];
  const state = new Map<string, 1 | 2>();
  const stack: string[] = [];
  const visit = (f: string) => {
    state.set(f, 1);
    stack.push(f);
    for (const g of graph.get(f) ?? []) {
      if (state.get(g) === 1) found.push([...stack.slice(stack.indexOf(g)), g]);
      else if (state.get(g) === undefined) visit(g);
    }
    stack.pop();
    state.set(f, 2);
  };
  for (const f of files) if (state.get(f) === undefined) visit(f);
  return found.map((c) => c.map((f) => relative(ROOT, f)));
}

describe('import circles', () => {
  it('no module of src/ reaches itself through its imports (dynamic imports included)', () => {
    expect(circles(filesUnder('src', /\.(tsx?|js)$/))).toEqual([]);
  });

  it('the walk finds a circle, also through a dynamic import', () => {
    const dir = mkdtempSync(join(tmpdir(), 'house-'));
    try {
      writeFileSync(
        join(dir, 'library.ts'),
        "import { seen } from './registry';\nexport const all = seen;\n",
      );
      writeFileSync(
        join(dir, 'registry.ts'),
        "export const seen = 1;\nexport const load = () => import('./library');\n",
      );
      expect(circles([join(dir, 'library.ts'), join(dir, 'registry.ts')])).toHaveLength(1);
    } finally {
      rmSync(dir, { recursive: true });
    }
  });

  // This walk is the only guard (ESLint's import-x/no-cycle was dropped for its cost): it finds
  // every circle that rule found, whose edges were these, and also circles through type-only
  // imports, which that rule skipped (eslint-plugin-import-x 4.18.1, lib/rules/no-cycle.js).
  it('the walk finds a circle through every kind of import, type-only and multi-line too', () => {
    const dir = mkdtempSync(join(tmpdir(), 'house-'));
    try {
      const edges = [
        "import { a } from './a';",
        "export { a } from './a';",
        "export * from './a';",
        "import './a';",
        "export const later = () => import('./a');",
        "import { type A, a } from './a';",
        "import type { A } from './a';",
        "export type { A } from './a';",
        "import {\n  a,\n  type A,\n} from './a';",
        "import { a } from './a.ts';",
      ];
      for (const [i, edge] of edges.entries()) {
        const d = join(dir, String(i));
        mkdirSync(join(d, 'sub'), { recursive: true });
        writeFileSync(join(d, 'a.ts'), "import { c } from './sub';\nexport const a = c;\n");
        writeFileSync(join(d, 'sub', 'index.tsx'), "export { b as c } from '../b.js';\n");
        writeFileSync(join(d, 'b.js'), `${edge}\nexport const b = 1;\n`);
        const files = ['a.ts', 'sub/index.tsx', 'b.js'].map((f) => join(d, f));
        expect(circles(files), edge).toHaveLength(1);
        writeFileSync(join(d, 'b.js'), "import { a } from 'a';\nexport const b = 1;\n");
        expect(circles(files), 'a package is not followed').toEqual([]);
      }
    } finally {
      rmSync(dir, { recursive: true });
    }
  });
});

describe("each folder's opening comment", () => {
  const indexes = filesUnder('src', /^index\.tsx?$/);

  it('every index module opens with a comment saying what its folder holds', () => {
    expect(indexes.length).toBeGreaterThanOrEqual(9);
    const bare = indexes.filter((f) => !readFileSync(f, 'utf8').startsWith('/**'));
    expect(bare.map((f) => relative(ROOT, f))).toEqual([]);
  });

  const opening = (folder: string): string => {
    const text = readFileSync(join(ROOT, 'src', folder, 'index.ts'), 'utf8');
    return text.slice(0, text.indexOf('*/'));
  };

  it('src/export names every system it writes', () => {
    const head = opening('export');
    for (const name of [
      'nginx',
      'Envoy',
      'HAProxy',
      'Traefik',
      'Kong',
      "Envoy's global rate limit service",
      'Caddy',
      'Spring Cloud Gateway',
      'express-rate-limit',
      'rate-limiter-flexible',
      'Redis',
      'Go',
    ])
      expect(head).toContain(name);
  });

  it('src/core counts its algorithms right', () => {
    expect(opening('core')).toContain(`the ${numberWord(ALGORITHM_KINDS.length)} algorithms`);
  });

  it('src/store says what the store holds', () => {
    expect(opening('store')).toMatch(/zustand store/);
  });
});

const WORDS = [
  'zero',
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'eleven',
  'twelve',
  'thirteen',
  'fourteen',
  'fifteen',
  'sixteen',
  'seventeen',
  'eighteen',
  'nineteen',
  'twenty',
];

/** 16 → "sixteen" (the README writes small counts in words). */
function numberWord(n: number): string {
  return WORDS[n] ?? String(n);
}

describe("the README's counts", () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8').replace(/\s+/g, ' ');
  const claims = (rx: RegExp): string[] => [...readme.matchAll(rx)].map((m) => m[1] as string);
  const word = `(${WORDS.join('|')}|\\d+)`;

  it('the experiments', () => {
    const said = claims(new RegExp(`experiment library\\*\\* ${word} questions`, 'gi'));
    expect(said).toEqual([numberWord(EXPERIMENTS.length)]);
  });

  it('the algorithms', () => {
    const said = [
      ...claims(new RegExp(`\\b${word} exact algorithms`, 'gi')),
      ...claims(new RegExp(`\\ball ${word} algorithms`, 'gi')),
    ].map((s) => s.toLowerCase());
    expect(said.length).toBeGreaterThanOrEqual(2);
    for (const s of said) expect(s).toBe(numberWord(ALGORITHM_KINDS.length));
  });

  it('the systems', () => {
    const said = claims(new RegExp(`\\b${word} systems\\b`, 'gi'));
    expect(said.length).toBeGreaterThanOrEqual(2);
    for (const s of said) expect(s).toBe(numberWord(SYSTEMS.length));
  });

  it('the limiters compared at once', () => {
    expect(claims(new RegExp(`up to ${word} limiters`, 'gi'))).toEqual([numberWord(MAX_LIMITERS)]);
  });

  it('the check reads the counts the README states', () => {
    expect(numberWord(16)).toBe('sixteen');
    expect(
      [
        ...'ask the experiment library** twelve questions'.matchAll(
          new RegExp(`library\\*\\* ${word} questions`, 'gi'),
        ),
      ].map((m) => m[1]),
    ).toEqual(['twelve']);
  });
});
