import { describe, expect, it } from 'vitest';
import {
  CONFIG_VERSION,
  MIGRATIONS,
  VERSION_DEFAULTS,
  checkMigrations,
  migrate,
  runMigrations,
} from '../../src/config';
import type { Migration } from '../../src/config';

/**
 * A made-up history, to test the machinery the real one will use: v2 renamed view.tMs to
 * view.timeMs, v3 added view.theme whose default for older links is 'light'.
 */
const HISTORY: Migration[] = [
  {
    from: 1,
    note: 'view.tMs is now view.timeMs',
    up(config) {
      const c = config as { view?: Record<string, unknown> };
      if (c.view === undefined || !('tMs' in c.view)) return config;
      const { tMs, ...rest } = c.view;
      return { ...c, view: { ...rest, timeMs: tMs } };
    },
  },
  {
    from: 2,
    note: 'view.theme added; links made before it keep the light theme',
    up(config) {
      const c = config as { view?: Record<string, unknown> };
      return { ...c, view: { theme: 'light', ...c.view } };
    },
  },
];

describe('migrations', () => {
  it('the real chain reaches CONFIG_VERSION, and every version has its defaults', () => {
    expect(checkMigrations(MIGRATIONS, CONFIG_VERSION)).toEqual([]);
    for (let version = 1; version <= CONFIG_VERSION; version += 1) {
      expect(VERSION_DEFAULTS[version]?.config).toBeDefined();
    }
  });

  it('apply each step in order, from any older version', () => {
    const v1 = { view: { tMs: 2500, paused: true } };
    expect(runMigrations(HISTORY, 1, 3, v1)).toEqual({
      config: { view: { theme: 'light', timeMs: 2500, paused: true } },
      path: [1, 2, 3],
      failed: [],
    });
    const v2 = { view: { timeMs: 10, theme: 'dark' } };
    expect(runMigrations(HISTORY, 2, 3, v2).config).toEqual({
      view: { theme: 'dark', timeMs: 10 },
    });
    expect(runMigrations(HISTORY, 3, 3, v2)).toEqual({ config: v2, path: [3], failed: [] });
  });

  it('leave unknown and future versions alone (the caller reports them)', () => {
    const c = { view: {} };
    for (const version of [0, -1, 1.5, NaN, 4, 99]) {
      expect(runMigrations(HISTORY, version, 3, c).config).toBe(c);
    }
  });

  it('report a gap or a failing step instead of throwing', () => {
    expect(checkMigrations([HISTORY[1] as Migration], 3)).toEqual([
      'expected 2 migrations to reach version 3, found 1',
      'migration 0 starts at version 2, expected 1',
    ]);
    const broken: Migration[] = [
      {
        from: 1,
        note: 'throws',
        up() {
          throw new Error('boom');
        },
      },
      HISTORY[1] as Migration,
    ];
    const result = runMigrations(broken, 1, 3, { view: {} });
    expect(result.failed).toEqual(['migration from version 1 failed: boom']);
    expect(result.config).toEqual({ view: { theme: 'light' } });
    expect(runMigrations([], 1, 2, {}).failed).toEqual(['no migration from version 1']);
  });

  it('migrate() uses the real chain: a current link passes unchanged', () => {
    const c = { any: 'thing' };
    expect(migrate(CONFIG_VERSION, c).config).toBe(c);
  });
});
