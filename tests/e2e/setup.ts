import { startRun } from './runFolder';

/**
 * Playwright's global setup: names this run and so its own folder for the files it makes and
 * deletes (tests/e2e/runFolder.ts), before any worker starts; removes the folders runs stopped
 * before their teardown left.
 */
export default function setup(): void {
  startRun();
}
