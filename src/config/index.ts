/**
 * Rate Limit Lab config: the PlaygroundConfig schema, its versioned defaults, the repair of
 * untrusted input, the URL codec, saved settings, the measures the experiments answer with, and
 * the experiment library (./experiments). Pure TypeScript on top of src/core, src/sim and src/systems.
 * The link decoder (./url) and the repair of untrusted input (./repair) are imported from their own
 * files, not from here: the page fetches them only to open a link or saved settings, and a module
 * this barrel re-exports is counted part of the page's first load.
 */
export * from './schema';
export { DEFAULTS, VERSION_DEFAULTS, defaultConfig, defaultsOf } from './defaults';
export type { VersionDefaults } from './defaults';
export { MIGRATIONS, checkMigrations, migrate, runMigrations } from './migrate';
export type { Migration, MigrationResult } from './migrate';
export { MAX_LINK_LENGTH, READABLE_TIMES_MAX, FOREIGN_PARAMS, URL_GRAMMAR } from './url-grammar';
export { encodeConfig, linkFits } from './url-encode';
export { configKey, configsEqual, runKey, simLimiters } from './keys';
export { laneNames } from './laneNames';
export type { NamedLane } from './laneNames';
export { formatDuration, parseDuration, quoteText } from './format';
export { deepEqual } from './equal';
