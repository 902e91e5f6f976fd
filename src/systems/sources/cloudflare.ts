/**
 * The files and documents the Cloudflare rate limiting rule model was built from, each with the
 * rules it fixes, cited beside the responses. Only the code that writes responses (../respond, a
 * chunk of its own) imports this module, so the first page load does not carry the text.
 */
import type { SourceRef } from '../types';
import { PARAMETERS_PAGE } from '../cloudflare';

export const CLOUDFLARE_SOURCES: readonly SourceRef[] = [
  {
    file: 'https://blog.cloudflare.com/counting-things-a-lot-of-different-things/',
    version: 'Cloudflare, 2017',
    what: 'the sliding-window counter: previous window weighted by its overlap',
  },
  {
    file: PARAMETERS_PAGE,
    version: 'Cloudflare docs, 2026',
    what: 'the periods and mitigation timeouts a rule takes',
  },
  {
    file: 'https://developers.cloudflare.com/waf/reference/response-for-blocked-requests/',
    version: 'Cloudflare docs, 2026',
    what: '429 is the default response code of a rate limiting rule’s Block action',
  },
  {
    file: 'https://developers.cloudflare.com/changelog/post/2026-03-12-retry-after-header-for-1xxx-errors',
    version: 'Cloudflare, 2026-03-12',
    what: 'error 1015 (rate limited) carries Retry-After: 30',
  },
];
