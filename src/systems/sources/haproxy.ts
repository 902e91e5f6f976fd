/**
 * The files and documents the HAProxy stick-table model was built from, each with the rules it
 * fixes, cited beside the responses. Only the code that writes responses (../respond, a chunk of
 * its own) imports this module, so the first page load does not carry the text.
 */
import type { SourceRef } from '../types';

const V = 'HAProxy 2.6';

export const HAPROXY_SOURCES: readonly SourceRef[] = [
  {
    file: 'include/haproxy/freq_ctr.h',
    version: V,
    what: 'update_freq_ctr_period: add to curr within the period, else rotate (prev ← curr, tick += period, or tick ← now after two periods); the tick’s low bit is a lock and is cleared',
  },
  {
    file: 'src/freq_ctr.c',
    version: V,
    what: 'freq_ctr_total / read_freq_ctr_period: rate = ⌊(prev·(tick + period − now) + curr·period) / period⌋',
  },
  {
    file: 'src/http_act.c',
    version: V,
    what: 'http_action_track_sc counts the request (http_req_rate) when tracking starts, before later rules; parse_http_deny: default status 403, deny_status N',
  },
  {
    file: 'src/stick_table.c',
    version: V,
    what: 'new entries are zeroed (__stksess_init); every touch sets expire = now + expire; process_table_expire frees expired entries; sc_http_req_rate reads the tracked entry',
  },
  {
    file: 'src/http.c',
    version: V,
    what: 'http_err_msgs: the built-in reply for each status (status line, content-length, cache-control: no-cache, content-type: text/html)',
  },
  {
    file: 'src/mux_h1.c',
    version: V,
    what: 'header names written in lower case; the connection header written last, from the connection mode (checked against 2.6.12)',
  },
  {
    file: 'src/http_htx.c',
    version: V,
    what: 'http_parse_http_reply: statuses without a built-in message are refused with default-errorfiles',
  },
];
