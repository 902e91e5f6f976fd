import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module with no types (tests/no-cycle.js runs under node alone)
import { findCycles } from '../no-cycle.js';

type Modules = Map<string, string>;
const cyclesIn = (files: Record<string, string>): string[][] =>
  (findCycles as (m: Modules) => string[][])(new Map(Object.entries(files)));

describe('the import-circle check (tests/no-cycle.js)', () => {
  it('finds a circle through a static import, a re-export, a dynamic import or a bare import', () => {
    for (const edge of [
      "import { a } from './a';",
      "export { a } from './a';",
      "export * from './a';",
      "export const later = () => import('./a');",
      "import './a';",
      "import { type A, a } from './a';",
    ]) {
      const cycles = cyclesIn({
        '/p/a.ts': "import { c } from './sub/c';\nexport const a = c;",
        '/p/sub/c.ts': "export { b as c } from '../b';",
        '/p/b.ts': edge,
      });
      expect(cycles, edge).toEqual([['/p/a.ts', '/p/b.ts', '/p/sub/c.ts']]);
    }
  });

  it('resolves a path as Node does with .ts, .tsx and .js: extension added, folder index', () => {
    expect(
      cyclesIn({
        '/p/a.ts': "import { v } from './view';",
        '/p/view.tsx': "import { d } from './dir';",
        '/p/dir/index.ts': "import { a } from '../a.ts';",
      }),
    ).toEqual([['/p/a.ts', '/p/dir/index.ts', '/p/view.tsx']]);
  });

  it('does not follow type-only imports, packages or paths that name no file', () => {
    for (const edge of [
      "import type { A } from './a';",
      "import { type A } from './a';",
      "import { type A, type B } from './a';",
      "export type { A } from './a';",
      "export { type A } from './a';",
      "import { a } from 'a';",
      "import w from './a.ts?worker';",
      'const text = "import { a } from \'./a\'";',
    ]) {
      const cycles = cyclesIn({ '/p/a.ts': "import { b } from './b';", '/p/b.ts': edge });
      expect(cycles, edge).toEqual([]);
    }
  });

  it('finds a module importing itself, and a circle through 5,000 modules', () => {
    expect(cyclesIn({ '/p/a.ts': "import { a } from './a';" })).toEqual([['/p/a.ts']]);
    const n = 5000;
    const chain: Record<string, string> = {};
    for (let i = 0; i < n; i += 1) chain[`/p/m${i}.ts`] = `import './m${(i + 1) % n}';`;
    const cycles = cyclesIn(chain);
    expect(cycles).toHaveLength(1);
    expect(cycles[0]).toHaveLength(n);
  });

  it('finds only the modules on circles, each circle once', () => {
    expect(
      cyclesIn({
        '/p/top.ts': "import './a'; import './x';",
        '/p/a.ts': "import './b';",
        '/p/b.ts': "import './a'; import './leaf';",
        '/p/x.ts': "import './y';",
        '/p/y.ts': "import './x';",
        '/p/leaf.ts': '',
      }),
    ).toEqual([
      ['/p/a.ts', '/p/b.ts'],
      ['/p/x.ts', '/p/y.ts'],
    ]);
  });
});
