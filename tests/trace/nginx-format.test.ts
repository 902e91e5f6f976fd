import { describe, expect, it } from 'vitest';
import {
  compileLogFormat,
  logFormatFromConf,
  parseTrace,
  topKeys,
  TraceError,
} from '../../src/trace';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

describe('custom nginx log_format', () => {
  it('joins a log_format as written in nginx.conf', () => {
    const conf = `log_format timed '$remote_addr [$time_local] '\n  '"$request" $status $request_time $msec $http_x_api_key';`;
    expect(logFormatFromConf(conf)).toBe(
      '$remote_addr [$time_local] "$request" $status $request_time $msec $http_x_api_key',
    );
  });

  it('parses a user-given format, keyed by one of its variables, cost from another', () => {
    const fmt = '$msec|$request_time|$remote_addr|$http_x_api_key|$status|$cost';
    const text = [
      '1700000000.500|0.250|10.0.0.1|key-a|200|3',
      '1700000000.400|0.000|10.0.0.1|key-b|429|1',
      '1700000001.000|1.000|10.0.0.2|key-a|200|2',
    ].join('\n');
    const t = parseTrace(enc(text), {
      name: 'x.log',
      logFormat: fmt,
      costField: '$cost',
      keySpec: [{ kind: 'field', name: 'http_x_api_key' }],
    });
    expect([...t.arrivalMs]).toEqual([1_700_000_000_000, 1_700_000_000_250, 1_700_000_000_400]);
    expect(t.keys).toEqual(['key-a', 'key-b']);
    expect([...t.keyId]).toEqual([0, 0, 1]);
    expect([...t.cost]).toEqual([2, 3, 1]);
    expect([...t.status]).toEqual([200, 200, 429]);
    expect(t.report.outOfOrder).toBe(1);
    expect(t.report.maxBackstepMs).toBe(400);
    expect(topKeys(t, 5)).toEqual([
      { key: 'key-a', requests: 2, share: 2 / 3 },
      { key: 'key-b', requests: 1, share: 1 / 3 },
    ]);
  });

  it('$time_iso8601 formats and a format without a time are told apart', () => {
    const f = compileLogFormat('$remote_addr $time_iso8601 "$request"');
    const r = f.parse('1.2.3.4 2026-11-30T12:00:00+01:00 "GET /x?y HTTP/1.1"');
    expect(typeof r === 'string' ? r : [r.timeMs, r.path]).toEqual([
      Date.UTC(2026, 10, 30, 11),
      '/x',
    ]);
    expect(() => compileLogFormat('$remote_addr $status')).toThrow(TraceError);
    expect(() => compileLogFormat('$remote_addr $status')).toThrow(
      /needs \$msec, \$time_local or \$time_iso8601/,
    );
  });
});
