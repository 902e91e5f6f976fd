// What the size budget measures, read from the built page itself: the entry script and every chunk
// it preloads (the initial JavaScript), then each lazily loaded part on its own. Reading
// dist/index.html keeps this right when the bundler splits or renames shared chunks.
import fs from 'node:fs';

const html = fs.existsSync('dist/index.html') ? fs.readFileSync('dist/index.html', 'utf8') : '';
const initial = [
  ...html.matchAll(/<(?:script|link)\b[^>]*\b(?:src|href)="\.\/(assets\/[^"]+\.js)"/g),
].map((m) => `dist/${m[1]}`);
if (initial.length === 0)
  throw new Error('size-limit: no scripts found in dist/index.html; run `npm run build` first');

export default [
  {
    name: 'initial JavaScript: the entry and its preloaded chunks (gzip)',
    path: initial,
    // Issue 11's budget: 160 kB. The experiments library and menu, the inspector (with the
    // decision explainer), the comparison, the fleet panel, the download menu, the algorithm views
    // and the rarely shown notes are chunks of their own (src/ui/app/parts.ts,
    // src/ui/stage/views.ts; the fleet field in the closed Deployment section too), everything the
    // first paint needs is one chunk (vite.config.ts), and the views and the timeline draw with
    // their own linear scale (src/viz/linear.ts) instead of d3-scale, which brought d3-interpolate
    // and d3-color; express-rate-
    // limit's SHA-256 (draft-8 partition key, never shown by the page) are chunks of their own, as
    // are the controls inside the Scenario panel's closed sections (ScenarioSections.tsx) and the
    // pieces of the worker's answers (simWire.ts, fetched with the worker) and the playing strips'
    // moving-mark paths (MovingMarks.tsx, fetched when a strip first plays).
    // What each system sends for a decision (status lines, headers, error pages:
    // src/systems/respond) is a chunk of its own too, fetched with the parts that show a response
    // (the inspector, the probe, the experiments' notes): 161.97 → 158.51 kB.
    // Measured at 158.02 kB (c11, from 168.69 kB); Envoy global's shadow_mode and
    // DRAFT_VERSION_03 headers (c13) add about 0.5 kB, Kong's fleet
    // policies (c14) a little more. The link decoder with the repair of untrusted input and the
    // config's valibot schema (src/ui/share/openLink.ts, fetched only to open a link or saved
    // settings) are a chunk of their own too: 159.45 → 146.46 kB. Not counted here: the view chunk
    // of each algorithm the start shows (token bucket 2.3 kB + d3-path 1.1 kB on the default
    // page), fetched before the first render.
    limit: '160 kB',
    gzip: true,
  },
  {
    name: 'charts, loaded as the page opens (gzip)',
    path: 'dist/assets/ChartsPanel-*.js',
    limit: '30 kB',
    gzip: true,
  },
  {
    name: 'experiment library and menu, loaded as the page opens (gzip)',
    path: ['dist/assets/experiments-*.js', 'dist/assets/ExperimentsMenu-*.js'],
    limit: '12 kB',
    gzip: true,
  },
  {
    // The readers of pasted configs left this chunk for the import form's own (62.0 → 51.2 kB).
    name: 'export panel, loaded when opened (gzip)',
    path: 'dist/assets/ExportPanel-*.js',
    limit: '56 kB',
    gzip: true,
  },
  {
    name: 'import form and its config readers, fetched as the export panel opens (gzip)',
    path: 'dist/assets/ImportForm-*.js',
    limit: '14 kB',
    gzip: true,
  },
  {
    name: 'downloads (decision log, view export), loaded on first use (gzip)',
    path: 'dist/assets/downloads-*.js',
    limit: '10 kB',
    gzip: true,
  },
  {
    name: 'test vectors and their test files (zip), loaded on first use (gzip)',
    path: 'dist/assets/vectorDownloads-*.js',
    limit: '8 kB',
    gzip: true,
  },
];
