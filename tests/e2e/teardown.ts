import { endRun } from './runFolder';

/**
 * Playwright's global teardown: deletes this run's own folder (tests/e2e/runFolder.ts) with the
 * 1.1 GB streamed log (tests/e2e/attacks.ts `streamedLog`) that the specs of this run shared. Other
 * runs' folders and the kept made files stay.
 */
export default function teardown(): void {
  endRun();
}
