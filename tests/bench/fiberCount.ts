/**
 * What React renders on the frame bench's compare page: per frame while it plays
 * (scrolled to lanes 3–4 as the bench scrolls; TOP=1 at the top), or, with EDIT=1, in each commit
 * of three edits of lane 1's max_tokens while it plays. Counts the fibers that rendered in each
 * commit, by component name or element and class, from a stand-in for React DevTools' global hook
 * (`onCommitFiberRoot`): a subtree whose child list is the one of the commit before was not visited
 * and is skipped; a function component counts when it did work (React's PerformedWork flag), an
 * element or text when its props are new (a memo wrapper counts when its comparison ran). Names
 * need a build that keeps them: `npx vite build --minify false --outDir /tmp/dist-names`, then
 * `npx vite build --ssr tests/bench/fiberCount.ts --outDir node_modules/.cache/fibers --emptyOutDir
 * && node node_modules/.cache/fibers/fiberCount.js /tmp/dist-names` (bundled as `npm run bench`
 * is). TOPN rows are printed (default 40). Reads React internals (React 19's fiber fields), for
 * diagnosis only; prints, asserts nothing.
 */
import type { Page } from '@playwright/test';
import { encodeConfig } from '../../src/config';
import { compareConfig, launchPinned, openPlaying, scrollToLanes34, startPreview } from './frames';

const TOPN = Number(process.env.TOPN ?? 40);

/** A commit's fibers that rendered, by name. */
type Counts = Array<[string, number]>;

interface FiberCounter {
  start(): void;
  stop(): Counts[];
}

/** Installed before the page's scripts: React finds it and reports every commit to it. */
function installHook(): void {
  interface Fiber {
    tag: number;
    flags: number;
    type: unknown;
    memoizedProps: { className?: unknown } | null;
    child: Fiber | null;
    sibling: Fiber | null;
    alternate: Fiber | null;
  }
  const PERFORMED_WORK = 1;
  // FunctionComponent, ClassComponent, ForwardRef, SimpleMemoComponent.
  const COMPONENTS = new Set([0, 1, 11, 15]);
  const nameOf = (f: Fiber): string => {
    const t = f.type as
      string | { displayName?: string; name?: string; type?: { name?: string } } | null | undefined;
    if (typeof t === 'string') {
      const cls = f.memoizedProps?.className;
      return typeof cls === 'string' && cls !== '' ? `<${t}.${cls.split(' ')[0]}>` : `<${t}>`;
    }
    if (t === null || t === undefined) return f.tag === 6 ? '#text' : `(tag ${f.tag})`;
    return t.displayName ?? t.name ?? t.type?.name ?? `(tag ${f.tag})`;
  };
  let on = false;
  const commits: Counts[] = [];
  const walk = (first: Fiber | null, counts: Map<string, number>): void => {
    for (let f = first; f !== null; f = f.sibling) {
      const before = f.alternate;
      const rendered =
        before === null ||
        (COMPONENTS.has(f.tag)
          ? (f.flags & PERFORMED_WORK) !== 0
          : f.memoizedProps !== before.memoizedProps);
      if (rendered) counts.set(nameOf(f), (counts.get(nameOf(f)) ?? 0) + 1);
      if (before === null || f.child !== before.child) walk(f.child, counts);
    }
  };
  const w = window as unknown as Record<string, unknown>;
  w.__REACT_DEVTOOLS_GLOBAL_HOOK__ = {
    supportsFiber: true,
    renderers: new Map(),
    inject: () => 1,
    onCommitFiberRoot: (_id: number, root: { current: Fiber }) => {
      if (!on) return;
      const counts = new Map<string, number>();
      walk(root.current.child, counts);
      commits.push([...counts]);
    },
    onCommitFiberUnmount: () => undefined,
    onPostCommitFiberRoot: () => undefined,
    checkDCE: () => undefined,
  };
  const counter: FiberCounter = {
    start: () => {
      commits.length = 0;
      on = true;
    },
    stop: () => {
      on = false;
      return commits.splice(0);
    },
  };
  w.__fiberCounter = counter;
}

const counter = (page: Page, call: 'start' | 'stop') =>
  page.evaluate(
    (c) => (window as unknown as { __fiberCounter: FiberCounter }).__fiberCounter[c](),
    call,
  );

function total(counts: Counts): number {
  return counts.reduce((s, [, n]) => s + n, 0);
}

function print(counts: Map<string, number> | Counts, per: number): void {
  for (const [name, n] of [...counts].sort((a, b) => b[1] - a[1]).slice(0, TOPN))
    console.log(`  ${(n / per).toFixed(2).padStart(8)}  ${name}`);
}

async function main(): Promise<void> {
  const dist = process.argv[2] ?? 'dist';
  const { child, url } = await startPreview(dist);
  const { browser } = await launchPinned();
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.addInitScript(installHook);
    await openPlaying(page, `${url}?${encodeConfig(compareConfig())}`);
    if (process.env.EDIT !== undefined) {
      const input = page.getByLabel('max_tokens').first();
      for (let i = 0; i < 3; i += 1) {
        await counter(page, 'start');
        await input.fill(String(120 + i));
        await page.waitForTimeout(100);
        const commits = (await counter(page, 'stop')) as Counts[];
        const largest = [...commits].sort((a, b) => total(b) - total(a))[0] ?? [];
        console.log(
          `edit ${i + 1}: ${commits.length} commits in 100 ms, fibers rendered in each: ` +
            `${commits.map(total).join(' ')}; the largest:`,
        );
        print(largest, 1);
      }
      return;
    }
    if (process.env.TOP === undefined) await scrollToLanes34(page);
    await page.waitForTimeout(1000);
    await counter(page, 'start');
    await page.waitForTimeout(3000);
    const commits = (await counter(page, 'stop')) as Counts[];
    const all = new Map<string, number>();
    for (const c of commits) for (const [name, n] of c) all.set(name, (all.get(name) ?? 0) + n);
    const fibers = commits.reduce((s, c) => s + total(c), 0);
    console.log(
      `${commits.length} commits in 3 s (one a frame while playing), ` +
        `${(fibers / Math.max(1, commits.length)).toFixed(1)} fibers rendered per commit:`,
    );
    print(all, Math.max(1, commits.length));
  } finally {
    await browser.close();
    child.kill();
  }
}

void main();
