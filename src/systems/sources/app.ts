/**
 * What a limiter that lives in the application (redis-cell, the Redis patterns) cites for its
 * response: the application picks the status and headers (../respond/app.ts writes them).
 */
import type { SourceRef } from '../types';

export const RFC_6585: SourceRef = {
  file: 'RFC 6585 §4 (429 Too Many Requests)',
  version: 'RFC 6585',
  what: 'the status an application sends for a rate-limited request',
};
