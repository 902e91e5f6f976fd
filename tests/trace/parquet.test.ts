/**
 * Parquet files written by real DuckDB (`@duckdb/node-api` 1.5.6-r.1, `COPY … TO 'x.parquet'
 * (FORMAT parquet, COMPRESSION …)`) at test time, read by the page's reader (src/trace/parquet.ts)
 * and checked against what DuckDB itself reads back from the same file: the same rows (count),
 * the same (time, key, status) of every row, for each codec and each way a time is written. Then
 * the bad files: no timestamp column, nested columns, a file cut short, a text file named .parquet.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import type { DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readParquetTrace } from '../../src/trace/parquet';
import type { ParquetSource } from '../../src/trace/parquet';
import { isParquetFile } from '../../src/trace/parquetDetect';
import { TraceError } from '../../src/trace';
import type { BuiltTrace, KeySpec } from '../../src/trace';

let con: DuckDBConnection;
let dir: string;

beforeAll(async () => {
  const db = await DuckDBInstance.create(':memory:', { threads: '1' });
  con = await db.connect();
  dir = mkdtempSync(join(tmpdir(), 'parquet-test-'));
  // 5,000 requests over a few minutes, times with microseconds, nearly in order (1 in 50 a few
  // seconds late), 40 clients with a heavy tail, statuses and paths with query strings.
  await con.run(`CREATE TABLE logs AS
    SELECT
      TIMESTAMP '2026-03-02 10:00:00' + to_microseconds(i * 37_013 - CASE WHEN i % 50 = 7 THEN 4_000_000 ELSE 0 END) AS ts,
      '10.1.' || (i % 7) || '.' || CAST(floor(40 / (1 + (i * 7919 % 40))) AS INTEGER) AS client_ip,
      CASE WHEN i % 17 = 0 THEN 429 WHEN i % 23 = 0 THEN 404 ELSE 200 END AS status,
      '/api/v' || (i % 3) || '/items?page=' || (i % 9) AS path,
      CASE WHEN i % 4 = 0 THEN 'POST' ELSE 'GET' END AS method,
      'Mozilla/5.0 (X11; Linux x86_64) agent ' || (i % 13) AS user_agent
    FROM range(5000) t(i)`);
});

afterAll(() => {
  con?.closeSync();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Writes `select` to a Parquet file with `options`; returns its path. */
async function write(file: string, select: string, options: string): Promise<string> {
  const path = join(dir, file);
  await con.run(`COPY (${select}) TO '${path}' (FORMAT parquet, ${options})`);
  return path;
}

function sourceOf(bytes: Uint8Array): ParquetSource {
  return {
    byteLength: bytes.length,
    slice: (s, e) => Promise.resolve(bytes.slice(s, e).buffer),
  };
}

async function read(path: string, keySpec?: KeySpec): Promise<BuiltTrace> {
  const bytes = new Uint8Array(readFileSync(path));
  return readParquetTrace(sourceOf(bytes), {
    name: path.split('/').pop() as string,
    ...(keySpec ? { keySpec } : {}),
  });
}

/** Every row as `time ms|key|status`, sorted: what DuckDB reads from the file. */
async function duckRows(
  path: string,
  time: string,
  key: string,
  status = 'status',
): Promise<string[]> {
  const r = await con.runAndReadAll(
    `SELECT (${time})::BIGINT AS t, ${key} AS k, ${status} AS status FROM read_parquet('${path}')`,
  );
  return r
    .getRowObjectsJS()
    .map((o) => `${o.t as number}|${o.k as string}|${o.status as number}`)
    .sort();
}

function traceRows(t: BuiltTrace): string[] {
  const out: string[] = [];
  for (let i = 0; i < t.count; i += 1) {
    out.push(`${t.arrivalMs[i]}|${t.keys[t.keyId[i] as number]}|${t.status[i]}`);
  }
  return out.sort();
}

async function fails(path: string | Uint8Array, name = 'x.parquet'): Promise<string> {
  const bytes = typeof path === 'string' ? new Uint8Array(readFileSync(path)) : path;
  try {
    await readParquetTrace(sourceOf(bytes), { name });
  } catch (e) {
    expect(e).toBeInstanceOf(TraceError);
    return (e as Error).message;
  }
  throw new Error('expected the file to be refused');
}

describe('Parquet written by DuckDB reads as DuckDB reads it', () => {
  for (const codec of ['zstd', 'snappy', 'gzip', 'uncompressed', 'brotli', 'lz4']) {
    it(`TIMESTAMP (µs) column, ${codec}, several row groups`, async () => {
      const path = await write(
        `ts-${codec}.parquet`,
        'SELECT * FROM logs',
        `COMPRESSION ${codec}, ROW_GROUP_SIZE 1024`,
      );
      const t = await read(path);
      expect(t.count).toBe(5000);
      expect(t.report.format).toBe('parquet');
      expect(t.report.formatName).toContain(
        codec === 'uncompressed' ? 'UNCOMPRESSED' : codec.toUpperCase().replace('LZ4', 'LZ4_RAW'),
      );
      expect(t.report.malformed).toBe(0);
      expect(t.report.resolutionMs).toBe(1);
      expect(traceRows(t)).toEqual(await duckRows(path, 'epoch_ms(ts)', 'client_ip'));
      // In time order, ties kept in file order; the late rows were sorted into place.
      for (let i = 1; i < t.count; i += 1)
        expect(t.arrivalMs[i] as number).toBeGreaterThanOrEqual(t.arrivalMs[i - 1] as number);
      expect(t.report.outOfOrder).toBeGreaterThan(0);
      expect(new Set(t.keys).size).toBe(t.keys.length);
    });
  }

  it('times as epoch ms (BIGINT), epoch seconds (DOUBLE), ns timestamps, TIMESTAMPTZ and ISO text', async () => {
    const cases: [string, string, number][] = [
      ['epoch_ms(ts) AS ts', 'ts', 1],
      ['epoch_ms(ts) / 1000.0 AS ts', 'round(ts * 1000)', 1],
      ['ts::TIMESTAMP_NS AS ts', 'epoch_ms(ts)', 1],
      ["(ts::VARCHAR || 'Z')::TIMESTAMPTZ AS ts", 'epoch_ms(ts)', 1],
      ["strftime(ts, '%Y-%m-%dT%H:%M:%S.%gZ') AS ts", 'epoch_ms(ts::TIMESTAMP)', 1],
    ];
    for (const [expr, back, res] of cases) {
      const path = await write(
        'time.parquet',
        `SELECT ${expr}, client_ip, status FROM logs`,
        'COMPRESSION zstd, ROW_GROUP_SIZE 2048',
      );
      const t = await read(path);
      expect(t.count, expr).toBe(5000);
      expect(t.report.resolutionMs, expr).toBe(res);
      expect(traceRows(t), expr).toEqual(await duckRows(path, back, 'client_ip'));
    }
  });

  it('keys by path and by another column; the time column named `@timestamp`; cost', async () => {
    const path = await write(
      'keys.parquet',
      'SELECT ts AS "@timestamp", client_ip AS remote_addr, status AS status_code, path AS url, method, (1 + i % 3)::INTEGER AS cost FROM (SELECT *, row_number() OVER () AS i FROM logs)',
      'COMPRESSION snappy',
    );
    const byPath = await read(path, [{ kind: 'path' }]);
    expect([...byPath.keys].sort()).toEqual(['/api/v0/items', '/api/v1/items', '/api/v2/items']);
    const byMethod = await read(path, [{ kind: 'field', name: 'method' }]);
    expect([...byMethod.keys].sort()).toEqual(['GET', 'POST']);
    const r = await con.runAndReadAll(
      `SELECT method, count(*) AS n, sum(cost) AS c FROM read_parquet('${path}') GROUP BY method ORDER BY method`,
    );
    const want = r.getRowObjectsJS().map((o) => [o.method as string, Number(o.n), Number(o.c)]);
    const got = byMethod.keys
      .map((k) => {
        const id = byMethod.keys.indexOf(k);
        let n = 0;
        let c = 0;
        for (let i = 0; i < byMethod.count; i += 1) {
          if (byMethod.keyId[i] === id) {
            n += 1;
            c += byMethod.cost[i] as number;
          }
        }
        return [k, n, c];
      })
      .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    expect(got).toEqual(want);
    const byClient = await read(path);
    // `remote_addr` is the client address, `status_code` the status.
    expect(traceRows(byClient)).toEqual(
      await duckRows(path, 'epoch_ms("@timestamp")', 'remote_addr', 'status_code'),
    );
  });

  it('null cells: a null time is a malformed row named by its row; a null key is `-`', async () => {
    const path = await write(
      'nulls.parquet',
      'SELECT CASE WHEN i = 3 THEN NULL ELSE ts END AS ts, CASE WHEN i = 5 THEN NULL ELSE client_ip END AS client_ip, status FROM (SELECT *, row_number() OVER () AS i FROM logs LIMIT 10)',
      'COMPRESSION zstd',
    );
    const t = await read(path);
    expect(t.count).toBe(9);
    expect(t.report.malformed).toBe(1);
    expect(t.report.malformedFirst[0]?.line).toBe(3);
    expect(t.report.malformedFirst[0]?.reason).toContain('no value in timestamp column');
    expect(t.keys).toContain('-');
  });
});

describe('bad Parquet files are named, nothing is loaded', () => {
  it('no timestamp column: names the columns there are', async () => {
    const path = await write(
      'notime.parquet',
      'SELECT client_ip, status, path FROM logs',
      'COMPRESSION zstd',
    );
    const m = await fails(path, 'notime.parquet');
    expect(m).toMatch(
      /notime\.parquet \(Parquet schema\): no timestamp column among "client_ip", "status", "path"/,
    );
  });

  it('the time inside a struct: says the column is nested and that nested columns are not searched', async () => {
    const path = await write(
      'struct.parquet',
      "SELECT {'time': ts, 'path': path} AS http, client_ip FROM logs",
      'COMPRESSION zstd',
    );
    const m = await fails(path, 'struct.parquet');
    expect(m).toContain('no timestamp column');
    expect(m).toContain('Nested columns are not searched: "http" (a struct)');
  });

  it('a nested column where a flat one is needed (a list as the client address) names it', async () => {
    const path = await write(
      'list.parquet',
      'SELECT ts, [client_ip, client_ip] AS client_ip FROM logs',
      'COMPRESSION snappy',
    );
    const m = await fails(path, 'list.parquet');
    expect(m).toContain('column "client_ip" (the client address) is nested — a list —');
  });

  it('a nested column the trace does not need is skipped and named in the notes', async () => {
    const path = await write(
      'extra.parquet',
      "SELECT ts, client_ip, status, {'a': 1, 'b': path} AS labels FROM logs",
      'COMPRESSION zstd',
    );
    const t = await read(path);
    expect(t.count).toBe(5000);
    expect(t.report.notes).toContain('Nested column not read (not needed): "labels".');
  });

  it('a file cut short (no footer) says so; so does one cut inside its first bytes', async () => {
    const path = await write('cut.parquet', 'SELECT * FROM logs', 'COMPRESSION zstd');
    const whole = new Uint8Array(readFileSync(path));
    const m = await fails(whole.subarray(0, Math.floor(whole.length * 0.6)), 'cut.parquet');
    expect(m).toMatch(
      /^cut\.parquet is cut short: it starts as Parquet but does not end with Parquet's footer/,
    );
    expect(await fails(whole.subarray(0, 6), 'cut.parquet')).toMatch(
      /too short to be a Parquet file/,
    );
  });

  it('a damaged footer length and a damaged column chunk name what and where', async () => {
    const path = await write(
      'bad.parquet',
      'SELECT * FROM logs',
      'COMPRESSION zstd, ROW_GROUP_SIZE 2048',
    );
    const whole = new Uint8Array(readFileSync(path));
    const footer = whole.slice();
    new DataView(footer.buffer).setUint32(footer.length - 8, 0x7fffffff, true);
    expect(await fails(footer, 'bad.parquet')).toMatch(
      /bad\.parquet is damaged: its footer says the metadata is 2,147,483,647 bytes/,
    );
    // Zeroes over the first row group's pages (the footer intact).
    const pages = whole.slice();
    pages.fill(0, 4, 2000);
    expect(await fails(pages, 'bad.parquet')).toMatch(
      /^bad\.parquet: row group 1 of 3 \(rows 1–2,048\) cannot be read \(/,
    );
  });

  it('a text log named .parquet: not Parquet, with what it starts with', async () => {
    const text = '127.0.0.1 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.0" 200 2326\n';
    const m = await fails(new TextEncoder().encode(text), 'access.parquet');
    expect(m).toMatch(
      /^access\.parquet is not a Parquet file: a Parquet file starts with "PAR1", and this one starts with "127\.0\.0\.1/,
    );
    writeFileSync(join(dir, 'x.txt'), text);
  });

  it('is chosen by its magic bytes or its name', () => {
    expect(isParquetFile('logs.bin', new Uint8Array([0x50, 0x41, 0x52, 0x31, 0]))).toBe(true);
    expect(isParquetFile('logs.PARQUET', new TextEncoder().encode('abc'))).toBe(true);
    expect(isParquetFile('access.log', new TextEncoder().encode('PAR'))).toBe(false);
  });
});
