/**
 * A throwaway PostgreSQL 15 for the SQL proofs: a cluster made with initdb in a temporary folder,
 * started as the `postgres` user (PostgreSQL refuses to run as root) on 127.0.0.1 with a free port,
 * queried with psql, and stopped by the PID in its postmaster.pid. Every wait is bounded. A
 * watchdog stops it and removes the folder if this process ends without `stop()` (a signal).
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../servers';

/** Debian's PostgreSQL 15 binaries. */
export const PG_BIN = '/usr/lib/postgresql/15/bin';

/** Whether the binaries and the `postgres` user are there. */
export function postgresAvailable(): boolean {
  if (!existsSync(path.join(PG_BIN, 'postgres')) || !existsSync(path.join(PG_BIN, 'psql')))
    return false;
  return spawnSync('id', ['-u', 'postgres']).status === 0;
}

export interface Postgres {
  port: number;
  /** Runs a SQL script with psql and returns the last statement's rows (CSV, header first). */
  query(sql: string): string;
  /** Loads CSV text (with a header) into an existing table. */
  copyIn(table: string, csv: string): void;
  stop(): Promise<void>;
}

const run = (file: string, args: string[], timeoutMs: number) =>
  execFileSync(file, args, {
    encoding: 'utf8',
    timeout: timeoutMs,
    maxBuffer: 512 * 1024 * 1024,
    env: { ...process.env, LC_ALL: 'C', LANG: 'C' },
  });

export async function startPostgres(): Promise<Postgres> {
  const dir = mkdtempSync(path.join(tmpdir(), 'rll-pg-'));
  const uid = Number(run('id', ['-u', 'postgres'], 5000).trim());
  const gid = Number(run('id', ['-g', 'postgres'], 5000).trim());
  chownSync(dir, uid, gid);
  const data = path.join(dir, 'data');
  const asPostgres = (bin: string, args: string[], timeoutMs: number) =>
    run('runuser', ['-u', 'postgres', '--', path.join(PG_BIN, bin), ...args], timeoutMs);
  asPostgres(
    'initdb',
    ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8', '--locale=C'],
    60_000,
  );
  const port = await freePort();
  // pg_ctl -w waits (bounded by -t) until the server accepts connections.
  asPostgres(
    'pg_ctl',
    [
      '-D',
      data,
      '-w',
      '-t',
      '30',
      '-l',
      path.join(dir, 'log'),
      '-o',
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c shared_buffers=64MB`,
      'start',
    ],
    40_000,
  );
  const pid = Number(readFileSync(path.join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
  // pg_ctl starts the server in a session of its own, so a Ctrl-C or a signal that ends this process
  // does not reach it, and this process, blocked in psql (execFileSync) or ended by the signal, runs
  // no handler of its own. A watchdog, in a session of its own too, checks twice a second that this
  // process is still there; once it is gone, it stops the server (immediate shutdown: the cluster is
  // thrown away) and removes the folder. `stop()` ends the watchdog once it has done both itself.
  const watchdog = spawn(
    'sh',
    [
      '-c',
      'while kill -0 "$1" 2>/dev/null; do sleep 0.5; done; runuser -u postgres -- "$2/pg_ctl" -D "$3" -m immediate -w -t 20 stop; rm -rf "$4"',
      'rll-pg-watchdog',
      String(process.pid),
      PG_BIN,
      data,
      dir,
    ],
    { detached: true, stdio: 'ignore' },
  );
  watchdog.unref();
  let n = 0;
  const psql = (args: string[], input?: string) =>
    execFileSync(
      path.join(PG_BIN, 'psql'),
      [
        '-h',
        '127.0.0.1',
        '-p',
        String(port),
        '-U',
        'postgres',
        '-d',
        'postgres',
        '-X',
        '-q',
        '-v',
        'ON_ERROR_STOP=1',
        ...args,
      ],
      { encoding: 'utf8', timeout: 300_000, maxBuffer: 512 * 1024 * 1024, input },
    );
  return {
    port,
    query(sql) {
      const file = path.join(dir, `q${n++}.sql`);
      writeFileSync(file, sql);
      return psql(['--csv', '-f', file]);
    },
    copyIn(table, csv) {
      const file = path.join(dir, `c${n++}.csv`);
      writeFileSync(file, csv);
      psql(['-c', `\\copy ${table} FROM '${file}' WITH (FORMAT csv, HEADER true)`]);
    },
    async stop() {
      try {
        // SIGINT: PostgreSQL's fast shutdown. Wait (bounded) for the process to go.
        process.kill(pid, 'SIGINT');
        const deadline = Date.now() + 20_000;
        for (;;) {
          try {
            process.kill(pid, 0);
          } catch {
            break;
          }
          if (Date.now() > deadline) {
            // SIGQUIT: immediate shutdown, which also ends a backend still busy with a query.
            process.kill(pid, 'SIGQUIT');
            break;
          }
          await new Promise((r) => setTimeout(r, 50));
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
        // Only now: a signal that ends this process while it stops the server leaves the rest to it.
        watchdog.kill();
      }
    },
  };
}
