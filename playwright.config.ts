import { defineConfig } from '@playwright/test';
import { CHROMIUM_ARGS, pinnedChromium } from './tests/chromium';

// The browser comes from the lockfile (tests/chromium.ts): the same build, and so the same pixels,
// on every machine.
const chromium = await pinnedChromium();
// E2E_PORT lets two checkouts run their browser tests at once.
const port = Number(process.env.E2E_PORT ?? 4173);
/**
 * Specs that time the page's main thread (its longest task against a budget or against the plain
 * page's): each runs after the others, with no other spec beside it. `--no-deps` runs one alone.
 */
const TIMED = [
  'trace-attacks',
  'trace-stream',
  'trace-stream-span',
  'hostile-runs',
  'hostile-links',
];
const specOf = (name: string) => new RegExp(`${name}\\.spec\\.ts$`);
/**
 * The page specs whose one test takes the longest (a walk through all 16 experiments on a phone,
 * every system's link): a project of their own, listed first, so the two workers start them at
 * the beginning instead of one worker running them alone at the end while the other is done.
 * Playwright hands out the test groups of the projects of one phase in the order they are listed.
 */
const LONG = ['walk-phone-experiments', 'system-links'];

export default defineConfig({
  testDir: 'tests/e2e',
  snapshotPathTemplate: '{testDir}/__screenshots__/{testFilePath}/{arg}{ext}',
  fullyParallel: false,
  // Two spec files at a time (E2E_WORKERS to change it): the pictures are taken at a paused
  // virtual time, so they do not depend on how busy the machine is. Specs that time the page's own
  // main thread run afterwards, one at a time (`projects` below).
  workers: Number(process.env.E2E_WORKERS ?? 2),
  retries: 0,
  forbidOnly: true,
  reporter: [['list']],
  // Each run has a folder of its own for the 1.1 GB log its streaming specs share (written once per
  // run), named before the workers start and deleted at the end (tests/e2e/runFolder.ts).
  globalSetup: './tests/e2e/setup.ts',
  globalTeardown: './tests/e2e/teardown.ts',
  // Timeouts bound a test that hangs; they are not speed checks (those are the TIMED specs' own
  // budgets and `npm run bench`). On a laptop busy with other work every step can take several
  // times longer, so both are generous: a passing run does not wait for them.
  timeout: 120_000,
  expect: {
    timeout: 20_000,
    toHaveScreenshot: { threshold: 0, maxDiffPixels: 0, animations: 'disabled', caret: 'hide' },
  },
  use: {
    baseURL: `http://127.0.0.1:${port}/`,
    viewport: { width: 1280, height: 800 },
    deviceScaleFactor: 1,
    locale: 'en-US',
    timezoneId: 'UTC',
    colorScheme: 'light',
    launchOptions: {
      executablePath: chromium.executablePath,
      env: { ...process.env, ...chromium.env },
      args: [...CHROMIUM_ARGS],
    },
  },
  projects: [
    { name: 'page-long', testMatch: LONG.map(specOf) },
    { name: 'page', testIgnore: [...TIMED, ...LONG].map(specOf) },
    ...TIMED.map((name, i) => ({
      name,
      testMatch: specOf(name),
      dependencies: i === 0 ? ['page-long', 'page'] : [TIMED[i - 1] as string],
    })),
  ],
  webServer: {
    command: `npx vite preview --host 127.0.0.1 --port ${port} --strictPort`,
    url: `http://127.0.0.1:${port}/`,
    reuseExistingServer: false,
    timeout: 30_000,
  },
});
