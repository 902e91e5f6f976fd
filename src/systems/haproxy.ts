/**
 * HAProxy 2.6 stick-table rate limiting (Debian's 2.6.12 package), on the sliding-window counter
 * anchored per entry (src/core/algorithms/entry-counter.ts states each rule of the counter):
 *
 *   stick-table type ip size 100k expire <expire> store http_req_rate(<period>)
 *   http-request track-sc0 src
 *   http-request deny deny_status <status> if { sc_http_req_rate(0) gt <limit> }
 *
 * - The request is counted by track-sc0 before the deny rule reads the rate (HAProxy 2.6
 *   src/http_act.c http_action_track_sc → update_freq_ctr_period), so denied requests count.
 * - The rate is read_freq_ctr_period (src/freq_ctr.c freq_ctr_total, 2.6): curr + ⌊prev·remain /
 *   period⌋, with the period anchored at the entry's first request (include/haproxy/freq_ctr.h).
 * - `expire`: an entry untouched that long is freed (src/stick_table.c stktable_touch_local,
 *   process_table_expire, 2.6).
 * - The reply is HAProxy's built-in error message for the status (src/http.c http_err_msgs, 2.6,
 *   turned into a reply by src/http_htx.c http_parse_http_reply with "default-errorfiles"); `deny`
 *   without deny_status answers 403 (src/http_act.c parse_http_deny). The H1 multiplexer writes header
 *   names in lower case (src/mux_h1.c, unless h1-case-adjust is configured).
 */
import type { AlgorithmConfig } from '../core';
import { HAPROXY_DENY_STATUSES } from '../core';
import type { SystemInfo } from './types';

export const HAPROXY_VERSION = 'HAProxy 2.6.12 (Debian 2.6.12-1+deb12u4)';

/** HAProxy 2.6's built-in error replies (src/http.c http_err_msgs): reason and body length. */
export const haproxy: SystemInfo = {
  id: 'haproxy',
  name: 'HAProxy stick-table',
  version: HAPROXY_VERSION,
  group: 'Proxies and gateways',
  kind: 'sliding-window-counter',
  algorithms: ['sliding-window-counter'],
  urlName: 'haproxy',
  summary:
    "Counts every request (denied ones too) in a per-client counter whose period starts at the client's first request; denies when this period's count plus the previous period's, weighted by what is left of this one, is above the limit.",
  // src/http_ana.c (HAProxy 2.6), http_req_get_intercept_rule, ACT_ACTION_TRK_SC0…: when the
  // track-sc sample fetch fails (a missing header) stktable_fetch_key returns NULL and nothing is
  // tracked; sc_http_req_rate(0) then has no entry, the deny ACL does not match: not limited.
  emptyKey: 'not-limited',
  params: [
    {
      key: 'gt',
      field: 'limit',
      help: 'deny if { sc_http_req_rate(0) gt N }: N requests per period pass, the next is denied.',
      input: 'int',
    },
    {
      key: 'http_req_rate',
      field: 'windowMs',
      unit: 'ms',
      url: 'duration',
      help: 'The period of store http_req_rate(<period>), starting at each client’s first request.',
      input: 'int',
    },
    {
      key: 'expire',
      field: 'expireMs',
      unit: 'ms',
      url: 'duration',
      help: 'The stick-table’s expire: a client idle this long is forgotten (empty: never).',
      input: 'int',
      optional: { placeholder: 'never' },
    },
    {
      key: 'deny_status',
      field: 'denyStatus',
      help: `Status of a denied request (HAProxy default 403): ${HAPROXY_DENY_STATUSES.join(', ')}.`,
      input: 'int',
      optional: { placeholder: '403' },
    },
  ],
  defaultConfig: {
    kind: 'sliding-window-counter',
    limit: 10,
    windowMs: 10_000,
    anchor: 'entry',
    // No expire: HAProxy's own default, an entry that never expires and is only pushed out when
    // the table is full (doc/configuration.txt, 2.6, stick-table <expire>: "If this delay is not
    // specified, the session won't automatically expire").
    // No deny_status: HAProxy's own default, 403 (src/http_act.c parse_http_deny, 2.6).
  },
  fixedFields: { anchor: 'entry' },
  derive(config: AlgorithmConfig): AlgorithmConfig {
    // HAProxy's counter is always the per-entry one (track-sc0 counts before deny).
    return config.kind === 'sliding-window-counter' ? { ...config, anchor: 'entry' } : config;
  },
  standardHeadersSent: false,
  standardHeadersHow:
    'HAProxy’s built-in deny reply has no rate-limit headers, and the HAProxy export does not add them: HAProxy’s sample fetches give a counter’s rate, not when its period ends, so the reset they carry cannot be written. The response shown is what the exported config sends: none.',
};
