/**
 * Real gateways for the probe's proofs, each our own child process on 127.0.0.1 (servers.ts starts
 * and stops them by PID): nginx with given server blocks, haproxy with given frontends, and Node
 * apps (express-rate-limit, rate-limiter-flexible) written to a temporary file. Every wait is
 * bounded; everything is removed by `stop()`.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Server } from '../export/servers';
import { findBinary, freePort, startNginxIn, startServer, writeNginxConf } from '../export/servers';

export const NGINX = findBinary('nginx');
export const HAPROXY = findBinary('haproxy');
export const REDIS = findBinary('redis-server');

/** The repository's root (the apps resolve their packages from its node_modules). */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface Gateway {
  /** The base URL, e.g. http://127.0.0.1:PORT. */
  url: string;
  servers: Server[];
  stop(): Promise<void>;
}

/** A temporary folder that nginx's unprivileged workers can read. */
function workDir(label: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), `rll-probe-${label}-`));
  chmodSync(dir, 0o755);
  return dir;
}

/**
 * nginx serving a static file, with `http` lines in the http { } block and `servers(port, extra)`
 * the server blocks: the first listening on `port` (which is waited for), others on the `extra`
 * free ports asked for.
 */
export async function startNginx(
  http: readonly string[],
  servers: (port: number, extra: number[]) => string,
  label = 'nginx',
  extraPorts = 0,
): Promise<Gateway> {
  const dir = workDir(label);
  const html = path.join(dir, 'html');
  mkdirSync(html, { recursive: true });
  chmodSync(html, 0o755);
  // Every server serves this one file (try_files /index.html), after its limit.
  writeFileSync(path.join(html, 'index.html'), 'ok\n');
  const port = await freePort();
  const extra: number[] = [];
  for (let k = 0; k < extraPorts; k += 1) extra.push(await freePort());
  writeNginxConf(
    dir,
    `  root ${html};
${http.map((l) => `  ${l}`).join('\n')}
${servers(port, extra)}`,
    2048,
  );
  try {
    const server = await startNginxIn(NGINX as string, dir, port);
    return {
      url: `http://127.0.0.1:${port}`,
      servers: [server],
      stop: async () => {
        await server.stop();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}

/** haproxy (one thread: see tests/export/haproxy.server.test.ts) with `frontend(port)` lines. */
export async function startHaproxy(frontend: (port: number) => string): Promise<Gateway> {
  const dir = workDir('haproxy');
  const port = await freePort();
  const cfg = `global
    maxconn 4096
    nbthread 1
defaults
    mode http
    timeout connect 5s
    timeout client 10s
    timeout server 10s
${frontend(port)}
`;
  const file = path.join(dir, 'haproxy.cfg');
  writeFileSync(file, cfg);
  try {
    const server = await startServer(HAPROXY as string, ['-f', file, '-db'], port);
    return {
      url: `http://127.0.0.1:${port}`,
      servers: [server],
      stop: async () => {
        await server.stop();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}

/**
 * A Node app (ES module text) run with this Node. Its first line defines `ENV`: `PORT` (where to
 * listen), `ROOT` (the repository, to resolve packages from) and `vars`.
 */
export async function startNodeApp(
  source: string,
  vars: Record<string, string | number> = {},
  label = 'app',
): Promise<Server> {
  const dir = workDir(label);
  const file = path.join(dir, 'app.mjs');
  const port = await freePort();
  writeFileSync(file, `const ENV = ${JSON.stringify({ PORT: port, ROOT, ...vars })};\n${source}`);
  try {
    const server = await startServer(process.execPath, [file], port, dir);
    return {
      ...server,
      stop: async (grace?: number) => {
        await server.stop(grace);
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}

/** A round-robin HTTP balancer (a Node app) in front of `ports`: request k goes to ports[k mod n]. */
export const BALANCER_APP = `
import http from 'node:http';
const backends = String(ENV.BACKENDS).split(',').map(Number);
let next = 0;
const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
http.createServer((req, res) => {
  const port = backends[next];
  next = (next + 1) % backends.length;
  const up = http.request({ host: '127.0.0.1', port, path: req.url, method: req.method, headers: req.headers, agent }, (r) => {
    res.writeHead(r.statusCode, r.rawHeaders);
    r.pipe(res);
  });
  up.on('error', () => { res.statusCode = 502; res.end(); });
  req.pipe(up);
}).listen(ENV.PORT, '127.0.0.1');
`;

/** Starts the balancer in front of `ports`. */
export function startBalancer(ports: readonly number[]): Promise<Server> {
  return startNodeApp(BALANCER_APP, { BACKENDS: ports.join(',') }, 'balancer');
}

/** A throwaway redis-server on a free loopback port (no persistence, its own folder). */
export async function startRedisServer(): Promise<Server> {
  const dir = workDir('redis');
  const port = await freePort();
  const args = [
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
  ];
  try {
    const server = await startServer(REDIS as string, args, port);
    return {
      ...server,
      stop: async (grace?: number) => {
        await server.stop(grace);
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}

/** Stops every server given, ignoring those that never started. */
export async function stopAll(...gateways: Array<Gateway | Server | undefined>): Promise<void> {
  const running = gateways.filter((g): g is Gateway | Server => g !== undefined);
  await Promise.all(running.map((g) => g.stop()));
}
