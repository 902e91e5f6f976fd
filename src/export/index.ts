export { toRedisLua, REDIS_OUTCOME } from './redis-lua';
export type { RedisExport, RedisOptions } from './redis-lua';
export type * from './types';
export { formatImportError } from './types';
