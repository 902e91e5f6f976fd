import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

describe('detachEarly', () => {
  it("spends V8's ArrayBufferDetaching protector at once, so a later transfer breaks no compiled code", () => {
    // V8 prints each protector it invalidates (--trace-protector-invalidation), in the order of
    // the program's own output: one invalidation between A and B (the call), none after.
    const script = `
      const { detachEarly } = await import(${JSON.stringify(join(ROOT, 'src/store/detachEarly.ts'))});
      console.log('A');
      detachEarly();
      console.log('B');
      const columns = new Int32Array(1024);
      const copy = structuredClone(columns, { transfer: [columns.buffer] });
      console.log('C', columns.length, copy.length);`;
    const out = execFileSync(
      process.execPath,
      ['--trace-protector-invalidation', '--import', 'tsx', '--input-type=module', '-e', script],
      { cwd: ROOT, encoding: 'utf8' },
    );
    const lines = out.split('\n').filter((l) => l !== '');
    const after = lines.slice(lines.indexOf('A'));
    expect(after).toEqual([
      'A',
      'Invalidating protector cell ArrayBufferDetaching',
      'B',
      // The transfer detached `columns` (length 0 now) without another invalidation.
      'C 0 1024',
    ]);
  }, 20_000);
});
