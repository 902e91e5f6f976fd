import { existsSync } from 'node:fs';

/**
 * Debian's Chromium (`apt-get install chromium`), which the browser tests and the frame bench
 * drive: Playwright downloads no browser here. CHROMIUM_PATH overrides the binary.
 */
export function chromiumPath(): string {
  const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (!existsSync(executablePath)) {
    throw new Error(
      `No Chromium at ${executablePath}. Install Debian's: sudo apt-get install -y chromium ` +
        '(or set CHROMIUM_PATH to another Chromium binary).',
    );
  }
  return executablePath;
}

/** Command-line switches for every Chromium we launch (Playwright adds --headless and --no-sandbox). */
export const CHROMIUM_ARGS: readonly string[] = [
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--font-render-hinting=none',
  // Rasterise everything, in one pass, before a frame is drawn: without these, anti-aliased
  // edges of composited layers (the sticky clock bar) differed by one level between runs.
  '--disable-partial-raster',
  '--run-all-compositor-stages-before-draw',
  '--disable-checker-imaging',
];
