/**
 * Migrations: how a config of an older link version becomes a config of the current version, so
 * links made today open the same way after the schema grows.
 *
 * To change the schema or a default: bump CONFIG_VERSION, add the new version's defaults to
 * VERSION_DEFAULTS (defaults.ts), keep the old version's URL reader (url.ts reads a link with its
 * own version's defaults), and append a migration from the old version here. Add a fixture of an
 * old link (tests/config/fixtures) before changing anything.
 *
 * A migration receives data that has not been validated yet (it may come from a broken link):
 * it must not throw, and must pass through whatever it does not recognise; the repair after it
 * reports what is still wrong.
 */
import { CONFIG_VERSION } from './schema';

/** One step, from version `from` to version `from + 1`. */
export interface Migration {
  readonly from: number;
  /** What changed, for the changelog and error messages. */
  readonly note: string;
  /** The config of version `from` (unvalidated) as a config of version `from + 1`. */
  up(config: unknown): unknown;
}

/** The migrations, oldest first. Empty while CONFIG_VERSION is 1. */
export const MIGRATIONS: readonly Migration[] = [];

/**
 * Checks that `migrations` lead from version 1 to `toVersion` one step at a time; returns the
 * problems (none when the chain is complete).
 */
export function checkMigrations(migrations: readonly Migration[], toVersion: number): string[] {
  const problems: string[] = [];
  if (migrations.length !== toVersion - 1) {
    problems.push(
      `expected ${toVersion - 1} migrations to reach version ${toVersion}, found ${migrations.length}`,
    );
  }
  migrations.forEach((m, i) => {
    if (m.from !== i + 1)
      problems.push(`migration ${i} starts at version ${m.from}, expected ${i + 1}`);
  });
  return problems;
}

/** What `runMigrations` did. */
export interface MigrationResult {
  config: unknown;
  /** The versions passed through, e.g. [1, 2, 3] for a version 1 link read by version 3. */
  path: number[];
}

/**
 * Brings `config`, of version `fromVersion`, to `toVersion` by applying each step in turn. A
 * version outside [1, toVersion] is not migrated (the caller reports it). A step that throws is
 * skipped and named in `failed`, so loading never stops.
 */
export function runMigrations(
  migrations: readonly Migration[],
  fromVersion: number,
  toVersion: number,
  config: unknown,
): MigrationResult & { failed: string[] } {
  const path = [fromVersion];
  const failed: string[] = [];
  if (!Number.isInteger(fromVersion) || fromVersion < 1 || fromVersion >= toVersion) {
    return { config, path, failed };
  }
  let current = config;
  for (let version = fromVersion; version < toVersion; version += 1) {
    const step = migrations.find((m) => m.from === version);
    if (step === undefined) {
      failed.push(`no migration from version ${version}`);
    } else {
      try {
        current = step.up(current);
      } catch (error) {
        const why = error instanceof Error ? error.message : 'an error';
        failed.push(`migration from version ${version} failed: ${why}`);
      }
    }
    path.push(version + 1);
  }
  return { config: current, path, failed };
}

/** Brings a config of link version `fromVersion` to CONFIG_VERSION with `MIGRATIONS`. */
export function migrate(
  fromVersion: number,
  config: unknown,
): MigrationResult & { failed: string[] } {
  return runMigrations(MIGRATIONS, fromVersion, CONFIG_VERSION, config);
}
