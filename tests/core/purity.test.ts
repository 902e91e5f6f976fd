// @vitest-environment node
/**
 * The core is pure TypeScript (DESIGN.md, "Layers"): no React, zustand, d3 or DOM, no clocks. Proved
 * three ways, as zustand's vanilla tests prove their store needs no React:
 * 1. every import reachable from src/core/index.ts is a relative path inside src/core;
 * 2. src/core type-checks with only the ECMAScript library — no DOM, no Node types — so it cannot
 *    name `window`, `document`, `performance`, timers or `process`;
 * 3. it loads and decides in a bare Node process, with none of the test setup loaded.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const CORE = join(ROOT, 'src/core');

/** Every .ts file under src/core. */
function coreFiles(dir = CORE): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? coreFiles(join(dir, e.name))
      : e.name.endsWith('.ts')
        ? [join(dir, e.name)]
        : [],
  );
}

/** Module specifiers imported or re-exported by a file (ts.preProcessFile: the compiler's own scan). */
function importsOf(file: string): string[] {
  const text = ts.sys.readFile(file) ?? '';
  return ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName);
}

describe('src/core is pure TypeScript', () => {
  it('imports nothing but relative paths inside src/core, from index.ts on', () => {
    const seen = new Set<string>();
    const outside: string[] = [];
    const queue = [join(CORE, 'index.ts')];
    while (queue.length > 0) {
      const file = queue.pop() as string;
      if (seen.has(file)) continue;
      seen.add(file);
      for (const spec of importsOf(file)) {
        const target = resolve(dirname(file), `${spec}.ts`);
        if (!spec.startsWith('.') || relative(CORE, target).startsWith('..')) {
          outside.push(`${relative(ROOT, file)} imports '${spec}'`);
        } else queue.push(target);
      }
    }
    expect(outside).toEqual([]);
    // Every file in src/core is part of the graph (nothing unreachable that could import freely).
    expect([...seen].sort()).toEqual(coreFiles().sort());
  });

  it('type-checks with the ECMAScript library alone: no DOM, no Node', () => {
    const program = ts.createProgram([join(CORE, 'index.ts')], {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      verbatimModuleSyntax: true,
      lib: ['lib.es2023.d.ts'],
      types: [],
      skipLibCheck: true,
    });
    // The program holds the core and TypeScript's ES library files, nothing else (no @types).
    const sources = program
      .getSourceFiles()
      .map((f) => relative(ROOT, f.fileName))
      .filter((f) => !f.startsWith('node_modules/typescript/lib/'));
    expect(sources.sort()).toEqual(
      coreFiles()
        .map((f) => relative(ROOT, f))
        .sort(),
    );
    const problems = ts
      .getPreEmitDiagnostics(program)
      .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    expect(problems).toEqual([]);
  }, 20_000);

  it('loads and decides in a bare Node process without any DOM', () => {
    const script = `
      const core = await import(${JSON.stringify(join(CORE, 'index.ts'))});
      const l = core.createLimiter({ kind: 'gcra', count: 30, periodMs: 60000, burst: 15 });
      const d = l.decide(0, 'user123');
      console.log(JSON.stringify({
        dom: typeof window + ',' + typeof document,
        remaining: d.remaining,
        status: core.toHttpResponse(l.config, d).status,
      }));`;
    const out = execFileSync(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      {
        cwd: ROOT,
        encoding: 'utf8',
      },
    );
    expect(JSON.parse(out)).toEqual({ dom: 'undefined,undefined', remaining: 15, status: 200 });
  }, 20_000);
});
