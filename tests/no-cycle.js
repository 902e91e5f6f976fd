/**
 * No import circles in `src/`: a module never reaches itself through its imports, so each layer
 * and folder reads from the bottom up and chunks split cleanly. `npm run lint` runs it after
 * ESLint (`node tests/no-cycle.js [folder]`, default `src`); it prints each circle and fails when
 * there is one.
 *
 * It checks the same property as eslint-plugin-import-x's `no-cycle` rule with `ignoreExternal`
 * and no `maxDepth` (lib/rules/no-cycle.js, version 4.18.1), which it replaces because that rule
 * spent a quarter of the lint's time following the graph again from every import of every file.
 * Here the graph is read once (TypeScript's parser, no type checking) and its strongly connected
 * components are found once (Tarjan); any component of two or more modules is a circle. As in
 * that rule, an edge is a static import, a re-export (`export … from`) or a dynamic `import()`
 * of a relative path that resolves to a file; type-only imports and re-exports (`import type`,
 * `import { type A }` with every name a type, `export type … from`) are not edges, since they
 * leave no import at run time; bare package names are external and not followed. A path
 * resolves as Node's resolver resolves it with the extensions `.ts`, `.tsx`, `.js`: the file
 * itself, then with each extension added, then the folder's `index` with each extension.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const EXTENSIONS = ['.ts', '.tsx', '.js'];

/** The file `specifier` names from `fromFile`, or null when it is external or names no file. */
function resolveImport(fromFile, specifier, isFile) {
  if (!specifier.startsWith('./') && !specifier.startsWith('../')) return null;
  const base = resolve(dirname(fromFile), specifier);
  const candidates = [
    base,
    ...EXTENSIONS.map((e) => base + e),
    ...EXTENSIONS.map((e) => join(base, `index${e}`)),
  ];
  return candidates.find(isFile) ?? null;
}

/** True when an import or export declaration carries only types (no import at run time). */
function onlyTypes(node) {
  if (ts.isImportDeclaration(node)) {
    const clause = node.importClause;
    if (clause === undefined) return false; // `import './x'`: runs the module
    if (clause.isTypeOnly) return true;
    const names = clause.namedBindings;
    return (
      clause.name === undefined &&
      names !== undefined &&
      ts.isNamedImports(names) &&
      names.elements.length > 0 &&
      names.elements.every((e) => e.isTypeOnly)
    );
  }
  if (ts.isExportDeclaration(node)) {
    if (node.isTypeOnly) return true;
    const names = node.exportClause;
    return (
      names !== undefined &&
      ts.isNamedExports(names) &&
      names.elements.length > 0 &&
      names.elements.every((e) => e.isTypeOnly)
    );
  }
  return false;
}

/** The specifiers of the run-time imports in one module's text. */
export function importsOf(fileName, text) {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false);
  const found = [];
  const visit = (node) => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier !== undefined &&
      ts.isStringLiteral(node.moduleSpecifier) &&
      !onlyTypes(node)
    )
      found.push(node.moduleSpecifier.text);
    else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] !== undefined &&
      ts.isStringLiteralLike(node.arguments[0])
    )
      found.push(node.arguments[0].text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/**
 * The circles among `modules` (absolute path → source text): each strongly connected component of
 * two or more modules, or one module importing itself, as a sorted list of paths.
 */
export function findCycles(modules) {
  const isFile = (p) => modules.has(p);
  const edges = new Map();
  for (const [file, text] of modules) {
    const to = new Set();
    for (const spec of importsOf(file, text)) {
      const target = resolveImport(file, spec, isFile);
      if (target !== null) to.add(target);
    }
    edges.set(file, [...to]);
  }
  // Tarjan's algorithm, iterative (no recursion limit on a deep import chain).
  const index = new Map();
  const low = new Map();
  const onStack = new Set();
  const stack = [];
  const cycles = [];
  let next = 0;
  for (const root of modules.keys()) {
    if (index.has(root)) continue;
    const work = [{ node: root, i: 0 }];
    index.set(root, next);
    low.set(root, next);
    next += 1;
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const frame = work[work.length - 1];
      const out = edges.get(frame.node);
      if (frame.i < out.length) {
        const to = out[frame.i];
        frame.i += 1;
        if (!index.has(to)) {
          index.set(to, next);
          low.set(to, next);
          next += 1;
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, i: 0 });
        } else if (onStack.has(to)) {
          low.set(frame.node, Math.min(low.get(frame.node), index.get(to)));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent !== undefined)
        low.set(parent.node, Math.min(low.get(parent.node), low.get(frame.node)));
      if (low.get(frame.node) !== index.get(frame.node)) continue;
      const component = [];
      for (;;) {
        const m = stack.pop();
        onStack.delete(m);
        component.push(m);
        if (m === frame.node) break;
      }
      if (component.length > 1 || edges.get(frame.node).includes(frame.node))
        cycles.push(component.sort());
    }
  }
  return cycles;
}

/** Every `.ts`, `.tsx` and `.js` file under `folder`, with its text. */
export function readModules(folder) {
  const modules = new Map();
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (EXTENSIONS.some((e) => name.endsWith(e)) && !name.endsWith('.d.ts'))
        modules.set(path, readFileSync(path, 'utf8'));
    }
  };
  walk(folder);
  return modules;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const folder = resolve(process.argv[2] ?? 'src');
  if (!existsSync(folder)) {
    console.error(`no-cycle: no folder ${folder}`);
    process.exit(2);
  }
  const modules = readModules(folder);
  const cycles = findCycles(modules);
  for (const c of cycles)
    console.error(
      `Import circle through ${c.length} modules:\n  ${c.map((p) => relative(process.cwd(), p)).join('\n  ')}`,
    );
  if (cycles.length > 0) process.exit(1);
  console.log(
    `no-cycle: ${modules.size} modules in ${relative(process.cwd(), folder) || '.'}, no import circle`,
  );
}
