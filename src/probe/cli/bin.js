#!/usr/bin/env node
// The package's command line (`npx rate-limit-lab probe …` from a clone, after `npm ci`). The
// probe is TypeScript, shared with the page; Node 20 cannot run TypeScript by itself, so this
// plain-JavaScript entry registers tsx (a pinned devDependency that `npm ci` installs) as Node's
// module loader and then imports the command. No build step, no new runtime.
import { readFileSync } from 'node:fs';

const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 20 || (major === 20 && minor < 6)) {
  process.stderr.write(
    `rate-limit-lab needs Node 20.6 or newer (module.register); this is ${process.version}.\n`,
  );
  process.exit(3);
}
let register;
try {
  ({ register } = await import('tsx/esm/api'));
} catch {
  process.stderr.write('rate-limit-lab: tsx is missing; run `npm ci` in the clone first.\n');
  process.exit(3);
}
register();
const { version } = JSON.parse(
  readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'),
);
const { cli } = await import('./main.ts');
process.exitCode = await cli(process.argv.slice(2), version);
