/**
 * Start and stop the real servers the export tests compare against. Each server is our own child
 * process on 127.0.0.1, stopped by its PID; every wait is bounded.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createClient } from 'redis';

/** The full path of an executable, searched in PATH and the sbin folders, or undefined. */
export function findBinary(name: string): string | undefined {
  const dirs = [
    ...(process.env.PATH ?? '').split(path.delimiter),
    '/usr/sbin',
    '/usr/bin',
    '/sbin',
  ];
  for (const dir of dirs) {
    if (dir === '') continue;
    const file = path.join(dir, name);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** Prints a banner that cannot be missed in the test log. */
export function loudSkip(what: string, binary: string): void {
  const line = '!'.repeat(78);
  console.warn(
    `\n${line}\n!! SKIPPED: ${what}\n!! "${binary}" is not installed (.ci/run installs it with apt-get).\n${line}\n`,
  );
}

/** A TCP port that was free a moment ago on 127.0.0.1. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Resolves once 127.0.0.1:port accepts connections; rejects after `timeoutMs` or if the child exits. */
export async function waitForPort(
  port: number,
  child: ChildProcess,
  timeoutMs: number,
  output: () => string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(
        `server exited (${String(child.exitCode ?? child.signalCode)}):\n${output()}`,
      );
    }
    const ok = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ host: '127.0.0.1', port });
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) {
      throw new Error(`server did not listen on port ${port} within ${timeoutMs} ms:\n${output()}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

export interface Server {
  port: number;
  pid: number;
  /** Everything the server printed so far. */
  output(): string;
  /** Stops the server by its PID (SIGTERM, then SIGKILL after `graceMs`); safe to call twice. */
  stop(graceMs?: number): Promise<void>;
}

/** Spawns `binary args`, waits for `port` to accept connections, and returns a handle. */
export async function startServer(
  binary: string,
  args: string[],
  port: number,
  cwd?: string,
): Promise<Server> {
  const child = spawn(binary, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const pid = child.pid;
  if (pid === undefined) throw new Error(`could not start ${binary}`);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (graceMs = 3000): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    process.kill(pid, 'SIGTERM');
    const timer = setTimeout(() => {
      if (child.exitCode === null && child.signalCode === null) process.kill(pid, 'SIGKILL');
    }, graceMs);
    await exited;
    clearTimeout(timer);
  };
  try {
    await waitForPort(port, child, 10_000, () => out);
  } catch (error) {
    await stop(500);
    throw error;
  }
  return { port, pid, output: () => out, stop };
}

/** A connected client of the `redis` package. */
export type RedisClient = ReturnType<typeof createClient>;

/**
 * A throwaway redis-server on a free loopback port (no persistence, its own temporary folder) and a
 * client connected to it. `stop()` closes the client, stops the server and removes the folder.
 */
export async function startRedis(
  binary: string,
  label: string,
): Promise<{ client: RedisClient; stop(): Promise<void> }> {
  const dir = mkdtempSync(path.join(tmpdir(), `rll-${label}-`));
  const port = await freePort();
  let server: Server | undefined;
  let client: RedisClient | undefined;
  const stop = async (): Promise<void> => {
    try {
      if (client?.isOpen) await client.close();
    } finally {
      await server?.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  };
  try {
    server = await startServer(
      binary,
      [
        '--bind',
        '127.0.0.1',
        '--port',
        String(port),
        '--save',
        '',
        '--appendonly',
        'no',
        '--dir',
        dir,
      ],
      port,
    );
    client = createClient({ socket: { host: '127.0.0.1', port, connectTimeout: 5000 } });
    client.on('error', () => {
      // reported by the failing command
    });
    await client.connect();
  } catch (error) {
    await stop();
    throw error;
  }
  return { client, stop };
}
