/**
 * The files and documents the nginx limit_req model was built from, each with the rules it fixes,
 * cited beside the responses. Only the code that writes responses (../respond, a chunk of its own)
 * imports this module, so the first page load does not carry the text.
 */
import type { SourceRef } from '../types';

export const NGINX_SOURCES: readonly SourceRef[] = [
  {
    file: 'src/http/modules/ngx_http_limit_req_module.c',
    version: 'nginx 1.22.1',
    what: 'the excess arithmetic, burst, delay/nodelay, limit_req_status (default 503), no headers',
  },
  {
    file: 'src/http/ngx_http_special_response.c',
    version: 'nginx 1.22.1',
    what: 'the error page a rejected request receives: its bytes, text/html, keep-alive or close',
  },
  {
    file: 'src/http/ngx_http_header_filter_module.c',
    version: 'nginx 1.22.1',
    what: 'the status line (nginx’s own reason phrases), Server, Date, Content-Type, Content-Length, Connection, then add_header lines, in that order',
  },
];
