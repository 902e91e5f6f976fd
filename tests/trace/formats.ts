/**
 * Writes ground-truth requests in each log format, independently of src/trace (no parser code is
 * used): the fixture generator and the round-trip properties format with these, parse with
 * src/trace, and compare with the truth.
 */

/** A request as it really happened. */
export interface TruthRequest {
  /** Arrival, whole ms since the epoch. */
  arrivalMs: number;
  /** Time from arrival to the log write, whole ms. */
  requestTimeMs: number;
  client: string;
  /** X-Forwarded-For as sent ('' = none). */
  xff: string;
  /** Path without query. */
  path: string;
  query: string;
  userAgent: string;
  status: number;
  cost: number;
}

const MON = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const p2 = (n: number): string => String(n).padStart(2, '0');
const p3 = (n: number): string => String(n).padStart(3, '0');

/** Civil date of epoch ms (UTC), by the days-from-civil inverse (Howard Hinnant's algorithm). */
function civil(ms: number): {
  y: number;
  mo: number;
  d: number;
  h: number;
  mi: number;
  s: number;
  milli: number;
} {
  const days = Math.floor(ms / 86_400_000);
  let rem = ms - days * 86_400_000;
  const h = Math.floor(rem / 3_600_000);
  rem -= h * 3_600_000;
  const mi = Math.floor(rem / 60_000);
  rem -= mi * 60_000;
  const s = Math.floor(rem / 1000);
  const milli = rem - s * 1000;
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const mo = mp < 10 ? mp + 3 : mp - 9;
  const y = yoe + era * 400 + (mo <= 2 ? 1 : 0);
  return { y, mo, d, h, mi, s, milli };
}

/** `10/Oct/2000:13:55:36 -0700` for the given epoch ms in a zone `offsetMin` minutes east of UTC. */
export function timeLocal(ms: number, offsetMin = 0): string {
  const c = civil(ms + offsetMin * 60_000);
  const sign = offsetMin < 0 ? '-' : '+';
  const a = Math.abs(offsetMin);
  return `${p2(c.d)}/${MON[c.mo - 1]}/${c.y}:${p2(c.h)}:${p2(c.mi)}:${p2(c.s)} ${sign}${p2(Math.floor(a / 60))}${p2(a % 60)}`;
}

/** ISO 8601 with `digits` fraction digits and Z. */
export function iso(ms: number, digits: 0 | 3 | 6 = 3): string {
  const c = civil(ms);
  const base = `${c.y}-${p2(c.mo)}-${p2(c.d)}T${p2(c.h)}:${p2(c.mi)}:${p2(c.s)}`;
  if (digits === 0) return `${base}Z`;
  return `${base}.${p3(c.milli)}${digits === 6 ? '000' : ''}Z`;
}

const secs = (ms: number): string => `${Math.floor(ms / 1000)}.${p3(ms % 1000)}`;
const dash = (s: string): string => (s === '' ? '-' : s);

function requestLine(r: TruthRequest): string {
  return `GET ${r.path}${r.query === '' ? '' : `?${r.query}`} HTTP/1.1`;
}

/** nginx combined, written in completion order as nginx does (the caller orders the lines). */
export function nginxCombined(r: TruthRequest, offsetMin = 0): string {
  return `${r.client} - - [${timeLocal(r.arrivalMs + r.requestTimeMs, offsetMin)}] "${requestLine(r)}" ${r.status} 612 "-" "${r.userAgent}"`;
}

/** nginx `main` + ` $request_time $msec`. */
export function nginxMsec(r: TruthRequest): string {
  return `${r.client} - - [${timeLocal(r.arrivalMs + r.requestTimeMs)}] "${requestLine(r)}" ${r.status} 612 "-" "${r.userAgent}" "${dash(r.xff)}" ${secs(r.requestTimeMs)} ${secs(r.arrivalMs + r.requestTimeMs)}`;
}

/** An ALB entry (arrival = request_creation_time, microsecond digits). */
export function albLine(r: TruthRequest): string {
  const end = r.arrivalMs + r.requestTimeMs;
  return [
    'https',
    iso(end, 6),
    'app/my-lb/50dc6c495c0c9188',
    `${r.client}:${40000 + (r.arrivalMs % 20000)}`,
    '10.0.0.5:80',
    '0.000',
    secs(r.requestTimeMs),
    '0.000',
    String(r.status),
    String(r.status),
    '120',
    '612',
    `"GET https://api.example.com:443${r.path}${r.query === '' ? '' : `?${r.query}`} HTTP/1.1"`,
    `"${r.userAgent}"`,
    'ECDHE-RSA-AES128-GCM-SHA256',
    'TLSv1.2',
    'arn:aws:elasticloadbalancing:us-east-1:123456789012:targetgroup/tg/73e2d6bc24d8a067',
    '"Root=1-58337262-36d228ad5d99923122bbe354"',
    '"api.example.com"',
    '"arn:aws:acm:us-east-1:123456789012:certificate/12345678-1234-1234-1234-123456789012"',
    '0',
    iso(r.arrivalMs, 6),
    '"forward"',
    '"-"',
    '"-"',
  ].join(' ');
}

/** A HAR document. */
export function har(rs: readonly TruthRequest[]): string {
  return JSON.stringify(
    {
      log: {
        version: '1.2',
        creator: { name: 'fixture', version: '1' },
        entries: rs.map((r) => ({
          startedDateTime: iso(r.arrivalMs, 3),
          time: r.requestTimeMs,
          request: {
            method: 'GET',
            url: `https://api.example.com${r.path}${r.query === '' ? '' : `?${r.query}`}`,
            httpVersion: 'HTTP/1.1',
            headers: [
              { name: 'User-Agent', value: r.userAgent },
              { name: 'X-Api-Key', value: r.client },
              ...(r.xff === '' ? [] : [{ name: 'X-Forwarded-For', value: r.xff }]),
            ],
          },
          response: { status: r.status, headers: [] },
        })),
      },
    },
    null,
    2,
  );
}

/** CSV per RFC 4180: fields with `"`, `,` or newlines quoted, `"` doubled. */
function csvField(s: string): string {
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** CSV with an epoch-ms timestamp column; `eol` and a BOM as asked. */
export function csv(rs: readonly TruthRequest[], eol: '\n' | '\r\n' = '\n', bom = false): string {
  const head = 'timestamp,client_ip,path,user_agent,status,cost';
  const rows = rs.map((r) =>
    [String(r.arrivalMs), r.client, r.path, r.userAgent, String(r.status), String(r.cost)]
      .map(csvField)
      .join(','),
  );
  return (bom ? '\ufeff' : '') + [head, ...rows].join(eol) + eol;
}

/** TSV with ISO times (ms). */
export function tsv(rs: readonly TruthRequest[]): string {
  const head = 'time\tip\turl\tstatus';
  return (
    [head, ...rs.map((r) => `${iso(r.arrivalMs, 3)}\t${r.client}\t${r.path}\t${r.status}`)].join(
      '\n',
    ) + '\n'
  );
}

/** JSON lines with epoch seconds (3 decimals) as a number. */
export function jsonl(rs: readonly TruthRequest[]): string {
  return (
    rs
      .map((r) =>
        JSON.stringify({
          ts: Number(secs(r.arrivalMs)),
          client: r.client,
          path: r.path,
          status: r.status,
          cost: r.cost,
          user_agent: r.userAgent,
        }),
      )
      .join('\n') + '\n'
  );
}

/** Lines written in completion order (nginx and ALB write a line when the response ends). */
export function byCompletion(rs: readonly TruthRequest[]): TruthRequest[] {
  return rs
    .map((r, i) => ({ r, i }))
    .sort(
      (a, b) =>
        a.r.arrivalMs + a.r.requestTimeMs - (b.r.arrivalMs + b.r.requestTimeMs) || a.i - b.i,
    )
    .map((x) => x.r);
}
