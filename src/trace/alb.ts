/**
 * AWS Application Load Balancer access logs. Field order from the ALB user guide, "Access log
 * entries" (type time elb client:port target:port request_processing_time target_processing_time
 * response_processing_time elb_status_code target_status_code received_bytes sent_bytes "request"
 * "user_agent" ssl_cipher ssl_protocol target_group_arn "trace_id" "domain_name" "chosen_cert_arn"
 * matched_rule_priority request_creation_time …). `time` is when the response was sent;
 * `request_creation_time` is when the load balancer received the request: the arrival.
 */
import { pathOfRequestLine, parseStatus } from './record';
import type { LineParser } from './record';
import { parseIso } from './time';
import { plural, quoteText } from '../core';

export const ALB_FIELDS = [
  'type',
  'time',
  'elb',
  'client:port',
  'target:port',
  'request_processing_time',
  'target_processing_time',
  'response_processing_time',
  'elb_status_code',
  'target_status_code',
  'received_bytes',
  'sent_bytes',
  'request',
  'user_agent',
  'ssl_cipher',
  'ssl_protocol',
  'target_group_arn',
  'trace_id',
  'domain_name',
  'chosen_cert_arn',
  'matched_rule_priority',
  'request_creation_time',
  'actions_executed',
  'redirect_url',
  'error_reason',
] as const;

const REQUEST_CREATION = 21;

/** Splits on single spaces; a field in double quotes may hold spaces (ALB escapes none inside). */
export function splitAlb(line: string): string[] {
  const out: string[] = [];
  let i = 0;
  const n = line.length;
  while (i < n) {
    if (line.charCodeAt(i) === 34) {
      const end = line.indexOf('"', i + 1);
      if (end < 0) {
        out.push(line.slice(i + 1));
        break;
      }
      out.push(line.slice(i + 1, end));
      i = end + 2;
    } else {
      let end = line.indexOf(' ', i);
      if (end < 0) end = n;
      out.push(line.slice(i, end));
      i = end + 1;
    }
  }
  return out;
}

export const ALB_LINE = /^(?:http|https|h2|grpcs|ws|wss) \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/;

export const parseAlbLine: LineParser = (line) => {
  if (!ALB_LINE.test(line)) return 'does not start like an ALB entry (type, then an ISO time)';
  const f = splitAlb(line);
  if (f.length <= REQUEST_CREATION) {
    return `has ${plural(f.length, 'field')}; an ALB entry has at least ${REQUEST_CREATION + 1}`;
  }
  const created = parseIso(f[REQUEST_CREATION] as string);
  if (!created)
    return `request_creation_time ${quoteText(f[REQUEST_CREATION] ?? '')} is not an ISO time`;
  const status = parseStatus(f[8]);
  if (Number.isNaN(status)) return `elb_status_code ${quoteText(f[8] ?? '')} is not an HTTP status`;
  const clientPort = f[3] as string;
  const colon = clientPort.lastIndexOf(':');
  return {
    timeMs: created.ms,
    status,
    cost: 1,
    client: colon > 0 ? clientPort.slice(0, colon) : clientPort,
    xff: '',
    path: pathOfRequestLine(f[12] as string),
    userAgent: f[13] as string,
    field: (name) => {
      const i = (ALB_FIELDS as readonly string[]).indexOf(name);
      return i >= 0 ? f[i] : undefined;
    },
  };
};
