/// <reference types="vitest/config" />
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';

// `base: './'` makes every asset URL relative, so the built folder works from any host and any
// sub-path (https://example.com/tools/rate-limit-lab/ as well as file servers on a bare root).
export default defineConfig({
  base: './',
  plugins: [react()],
  // d3-array is one file (dist/d3-array.mjs), so the bundler keeps one copy of it, in the first chunk
  // (the timeline's axis needs its `ticks`), holding every function any lazy part takes from it:
  // d3-scale's and the charts' too, about 1.1 kB gzip the first paint never runs. The first paint
  // imports it under another id (the same file with a query), a copy of its own that keeps only
  // `ticks`; the lazy parts share the other. Typed in src/vite-env.d.ts.
  resolve: {
    alias: [
      {
        find: /^d3-array\/first-paint$/,
        replacement: `${fileURLToPath(import.meta.resolve('d3-array'))}?first-paint`,
      },
    ],
  },
  // The simulation worker (src/store/sim.worker.ts) as an ES module, loaded relative to the page's
  // script like every other asset (works under any sub-path).
  worker: { format: 'es' },
  build: {
    outDir: 'dist',
    target: 'es2022',
    sourcemap: true,
    rolldownOptions: {
      output: {
        // Everything the first paint needs in one chunk (the initial JavaScript). Left to
        // itself the bundler cuts the modules that lazy parts share with the page into a dozen small
        // chunks, and each compresses on its own: about 5 kB gzip more to download before the page
        // can draw. The lazy parts stay chunks of their own. `$initial` counts a module re-exported
        // by a barrel as initial even when only a lazy part uses it: the comparison table is the
        // comparison's alone, so it is left out. (The decision explainer is no longer re-exported
        // by core/index.ts: as a chunk of its own the entry still imported it, so the first load
        // fetched it anyway; the inspector imports it from core/explain.ts.)
        codeSplitting: {
          groups: [
            {
              name: 'initial',
              tags: ['$initial'],
              test: (id) => !/[\\/]src[\\/]viz[\\/]CompareTable\.tsx?$/.test(id),
              includeDependenciesRecursively: false,
            },
          ],
        },
      },
    },
  },
  // The only SSR build is `npm run bench`'s: node's ESM loader cannot take named imports from
  // lz-string (CommonJS) when it is left external, so the config codec bundles it.
  ssr: { noExternal: ['lz-string'] },
  test: {
    include: ['tests/{core,sim,systems,trace,config,export,ui,probe}/**/*.test.{ts,tsx}'],
    environment: 'node',
    setupFiles: ['tests/setup.ts'],
    // Fixed zone and locale: nothing a test prints may depend on the machine it runs on.
    env: { TZ: 'UTC', LANG: 'en_US.UTF-8' },
    // The property tests replay thousands of runs; on a loaded 2-core machine a few take longer than
    // vitest's 5 s default. Speed is measured in `npm run bench`, not here.
    testTimeout: 60_000,
  },
});
