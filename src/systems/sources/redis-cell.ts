/**
 * The files and documents the redis-cell model was built from, each with the rules it fixes, cited
 * beside the responses. Only the code that writes responses (../respond, a chunk of its own)
 * imports this module, so the first page load does not carry the text.
 */
import type { SourceRef } from '../types';
import { RFC_6585 } from './app';

export const REDIS_CELL_SOURCES: readonly SourceRef[] = [
  {
    file: 'README.md',
    version: 'redis-cell 0.3.1',
    what: 'CL.THROTTLE arguments and the five-element reply',
  },
  { file: 'src/cell/mod.rs', version: 'redis-cell 0.3.1', what: 'the GCRA rate limiter' },
  RFC_6585,
];
