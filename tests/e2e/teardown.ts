import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { ATTACK_DIR, STREAMED_LOG } from './attacks';

/**
 * Playwright's global teardown: deletes the 1.1 GB streamed log (tests/e2e/attacks.ts
 * `streamedLog`) that the specs of this run shared. The smaller made files stay for the next run.
 */
export default function teardown(): void {
  const path = join(ATTACK_DIR, STREAMED_LOG);
  rmSync(path, { force: true });
  rmSync(`${path}.size`, { force: true });
}
