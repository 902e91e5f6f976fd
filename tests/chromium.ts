import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';

/**
 * The Chromium every browser test and the frame bench drive: the build shipped inside the
 * `@sparticuz/chromium` npm package, pinned by package-lock.json, so `npm ci` brings the same binary
 * to every x86-64 Linux machine and screenshots don't depend on whatever Chromium the system has.
 *
 * The package keeps the binary brotli-packed in its tarball; the first call unpacks it (about 3 s)
 * into `node_modules/.cache/chromium-<version>/`, atomically (a staging folder, then a rename), so
 * the Playwright runner and its worker can both call this. `CHROMIUM_PATH` overrides the binary
 * (the pinned fonts still apply).
 */
export interface PinnedChromium {
  executablePath: string;
  /** Environment for the browser process: a fontconfig that sees only the fonts pinned here. */
  env: Record<string, string>;
  /** `@sparticuz/chromium`'s version, which names the Chromium build (143.0.4 → Chromium 143). */
  packageVersion: string;
}

const require = createRequire(import.meta.url);
/**
 * The repository: the nearest folder above this file that holds node_modules/@sparticuz/chromium.
 * Walking up (rather than `..`) keeps it right when this file is bundled into
 * node_modules/.cache/bench/ by `npm run bench`.
 */
function findRoot(): string {
  let dir = dirname(new URL(import.meta.url).pathname);
  for (;;) {
    if (existsSync(join(dir, 'node_modules', '@sparticuz', 'chromium', 'package.json'))) return dir;
    const up = dirname(dir);
    if (up === dir) return resolve(dirname(new URL(import.meta.url).pathname), '..');
    dir = up;
  }
}
const root = findRoot();
const cacheRoot = join(root, 'node_modules', '.cache');

function packageVersion(): string {
  // The package's `exports` hide package.json: read it beside node_modules/@sparticuz/chromium.
  const file = join(root, 'node_modules', '@sparticuz', 'chromium', 'package.json');
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}

/**
 * Fallback glyphs (✕, ⌊, ☾ …) come from DejaVu, shipped by the `dejavu-fonts-ttf` npm package, and
 * never from the system: a fontconfig file naming only that folder. The page's own text uses the
 * bundled @fontsource fonts.
 */
function fontconfig(): Record<string, string> {
  const dir = join(cacheRoot, 'fontconfig');
  const file = join(dir, 'fonts.conf');
  const ttf = join(dirname(require.resolve('dejavu-fonts-ttf/package.json')), 'ttf');
  const text = [
    '<?xml version="1.0"?>',
    '<!DOCTYPE fontconfig SYSTEM "fonts.dtd">',
    '<fontconfig>',
    `  <dir>${ttf}</dir>`,
    `  <cachedir>${join(dir, 'cache')}</cachedir>`,
    '</fontconfig>',
    '',
  ].join('\n');
  mkdirSync(dir, { recursive: true });
  if (!existsSync(file) || readFileSync(file, 'utf8') !== text) writeFileSync(file, text);
  return { FONTCONFIG_FILE: file };
}

async function unpack(version: string): Promise<string> {
  const target = join(cacheRoot, `chromium-${version}`);
  const binary = join(target, 'chromium');
  if (existsSync(binary)) return binary;
  mkdirSync(cacheRoot, { recursive: true });
  const staging = mkdtempSync(join(cacheRoot, `chromium-${version}.staging-`));
  // The package unpacks into os.tmpdir(), which reads TMPDIR on every call.
  const tmpdir = process.env.TMPDIR;
  process.env.TMPDIR = staging;
  try {
    const { default: Chromium } = (await import('@sparticuz/chromium')) as {
      default: { executablePath(): Promise<string> };
    };
    await Chromium.executablePath();
  } finally {
    if (tmpdir === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = tmpdir;
  }
  try {
    renameSync(staging, target);
  } catch (error) {
    // Another process won the race: keep its copy.
    rmSync(staging, { recursive: true, force: true });
    if (!existsSync(binary)) throw error;
  }
  return binary;
}

export async function pinnedChromium(): Promise<PinnedChromium> {
  const version = packageVersion();
  const override = process.env.CHROMIUM_PATH;
  if (override !== undefined && override !== '' && !existsSync(override)) {
    throw new Error(`CHROMIUM_PATH is set to ${override}, but there is no file there.`);
  }
  const executablePath =
    override !== undefined && override !== '' ? override : await unpack(version);
  return { executablePath, env: fontconfig(), packageVersion: version };
}

/**
 * Switches every Chromium we launch takes (Playwright adds --headless and --no-sandbox): no GPU
 * (this machine has none), no network of its own, fonts as the screenshots were drawn with.
 */
export const BASE_CHROMIUM_ARGS: readonly string[] = [
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--font-render-hinting=none',
];

/**
 * For pixel-stable screenshots only: rasterise everything, in one pass, before a frame is drawn.
 * Without these, anti-aliased edges of composited layers (the sticky clock bar) differed by one
 * level between runs. They also make every frame wait for the previous one's raster and re-raster
 * whole tiles, which no browser a person runs does: the benches leave them out (`launchPinned`).
 */
export const SCREENSHOT_CHROMIUM_ARGS: readonly string[] = [
  '--disable-partial-raster',
  '--run-all-compositor-stages-before-draw',
  '--disable-checker-imaging',
];

/** The tests' Chromium: the base switches and the screenshot ones. */
export const CHROMIUM_ARGS: readonly string[] = [
  ...BASE_CHROMIUM_ARGS,
  ...SCREENSHOT_CHROMIUM_ARGS,
];
