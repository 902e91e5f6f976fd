/**
 * Start and stop the real servers the export tests compare against. Each server is our own child
 * process on 127.0.0.1, stopped by its PID; every wait is bounded.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createClient } from 'redis';
import type { AlgorithmConfig } from '../../src/core';
import type { Group, Timed, WindowPlan } from './timed-trace';
import { planWithin, replayTimed } from './timed-trace';

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

/**
 * Writes `dir/nginx.conf` for an nginx a test runs from `dir` (returns its path): pid and error
 * log in `dir`, temporary files under `dir/temp` (made here), no access log, one worker with
 * `connections` connections, and `http` (lines already indented, server blocks included) inside
 * http { }.
 */
export function writeNginxConf(dir: string, http: string, connections: number): string {
  const temp = path.join(dir, 'temp');
  mkdirSync(temp, { recursive: true });
  const file = path.join(dir, 'nginx.conf');
  writeFileSync(
    file,
    `worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections ${connections}; }
http {
  access_log off;
  client_body_temp_path ${temp}/body;
  proxy_temp_path ${temp}/proxy;
  fastcgi_temp_path ${temp}/fastcgi;
  uwsgi_temp_path ${temp}/uwsgi;
  scgi_temp_path ${temp}/scgi;
${http}
}
`,
  );
  return file;
}

/** Starts `nginx` on the configuration `writeNginxConf` wrote in `dir`, in the foreground. */
export function startNginxIn(nginx: string, dir: string, port: number): Promise<Server> {
  return startServer(
    nginx,
    [
      '-p',
      dir,
      '-c',
      path.join(dir, 'nginx.conf'),
      '-e',
      path.join(dir, 'error.log'),
      '-g',
      'daemon off;',
    ],
    port,
  );
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

// ---- Timed proofs that a busy machine cannot flip ----------------------------------------------

/** A timed real-server case: a config and its groups of simultaneous requests. */
export interface TimedCase {
  name: string;
  config: AlgorithmConfig;
  groups: Group[];
}

/** Something a judge found wrong with one group's replies. */
export interface Finding {
  message: string;
  /**
   * A measured time out of its bounds (a reply held longer than the plan allows on a stalled
   * machine), not a decision: the key is replayed again. Decisions are never retried.
   */
  timing?: boolean;
}

export interface TimedProofOptions<R> {
  /** Names the proof in the log. */
  label: string;
  cases: readonly TimedCase[];
  /** Time from the call to the first send, ms. */
  leadMs: number;
  /** How late a request may leave and still be judged on its planned time (see `fragility`). */
  jitterMs: number;
  /** A key the server has not seen, standing for `key` in attempt `attempt` ≥ 2. */
  rekey(key: string, attempt: number): string;
  /** Sends one request of `group` (whose key may be a fresh one) for case `caseIndex`. */
  send(caseIndex: number, group: Group): Promise<R>;
  /** Whether the server answered this reply at once (not held by a delay of the limiter). */
  prompt(reply: Timed<R>): boolean;
  /**
   * What is wrong with one group's replies given its plan. `slackMs` is how long the server took
   * to answer prompt requests of this group: time bounds widen by it.
   */
  judge(
    c: TimedCase,
    group: Group,
    plan: WindowPlan,
    replies: ReadonlyArray<Timed<R>>,
    slackMs: number,
  ): Finding[];
  /** Attempts in all (default 3). */
  attempts?: number;
}

export interface TimedProofReport {
  /** Requests judged (the replays of retried keys not counted). */
  requests: number;
  /** Attempts made. */
  attempts: number;
  /** Keys judged at their measured send times because they left later than jitterMs. */
  widened: number;
  /** Keys replayed again under a fresh key. */
  retried: number;
  /** Decisions and replies that disagree with the model: the proof fails on any. */
  failures: string[];
  /** What happened, line by line (printed as it happens). */
  log: string[];
}

/**
 * Replays timed cases against a real server so that a busy machine cannot flip the result.
 *
 * Each key's groups form a chain (its state carries from group to group). After a replay, every
 * group's requests are taken to have reached the server between their measured send time and that
 * time plus how long the server took to answer the group's prompt requests. The model decides
 * each chain under every placement of its requests in those windows (`planWithin`):
 * - one answer for every placement: the replies are judged against it. A chain that left more than
 *   `jitterMs` late is judged so too ("widened", logged), instead of failing for being late;
 * - answers that differ (a late request landed near a decision boundary), or a timing finding of
 *   the judge: the chain is replayed under a fresh key in the next attempt (logged), at most
 *   `attempts` times in all; what is still unresolved after the last attempt is a failure.
 * A wrong decision is a failure at once and is never retried.
 */
export async function timedProof<R extends object>(
  options: TimedProofOptions<R>,
): Promise<TimedProofReport> {
  const maxAttempts = options.attempts ?? 3;
  const report: TimedProofReport = {
    requests: 0,
    attempts: 0,
    widened: 0,
    retried: 0,
    failures: [],
    log: [],
  };
  const say = (line: string): void => {
    report.log.push(line);
    console.info(`${options.label}: ${line}`);
  };
  // Chains: per case, the indices of the groups of each key.
  let pending: Array<{ ci: number; key: string; groups: number[] }> = [];
  options.cases.forEach((c, ci) => {
    const byKey = new Map<string, number[]>();
    c.groups.forEach((g, gi) => byKey.set(g.key, [...(byKey.get(g.key) ?? []), gi]));
    for (const [key, groups] of byKey) pending.push({ ci, key, groups });
  });
  for (let attempt = 1; attempt <= maxAttempts && pending.length > 0; attempt += 1) {
    report.attempts = attempt;
    const sub = options.cases.map((c, ci) => {
      const chains = pending.filter((p) => p.ci === ci);
      const order = chains.flatMap((p) => p.groups);
      return {
        chains,
        order,
        groups: order.map((gi) => {
          const g = c.groups[gi] as Group;
          return attempt === 1 ? g : { ...g, key: options.rekey(g.key, attempt) };
        }),
      };
    });
    const results = await replayTimed(sub, options.leadMs, (ci, g) => options.send(ci, g));
    const next: typeof pending = [];
    sub.forEach((s, ci) => {
      const c = options.cases[ci] as TimedCase;
      for (const chain of s.chains) {
        const at = chain.groups.map((gi) => s.order.indexOf(gi));
        const groups = at.map((i) => s.groups[i] as Group);
        const replies = at.map((i) => results[ci]?.[i] ?? []);
        const name = `${c.name}, key ${groups[0]?.key ?? chain.key}`;
        if (replies.some((r, i) => r.length !== (groups[i] as Group).count)) {
          report.failures.push(`${name}: a reply is missing`);
          continue;
        }
        // When the server may have seen each group: from its first send to its last send plus
        // the time the server took to answer the group's prompt requests.
        const allPrompt = replies.flat().filter((r) => options.prompt(r));
        const overall = Math.max(0, ...allPrompt.map((r) => r.latencyMs));
        const windows = replies.map((rs, i) => {
          const g = groups[i] as Group;
          const sent = rs.map((r) => g.atMs + r.lateMs);
          const prompt = rs.filter((r) => options.prompt(r)).map((r) => r.latencyMs);
          const slack = prompt.length > 0 ? Math.max(...prompt) : overall;
          return { fromMs: Math.min(...sent) - 1, toMs: Math.max(...sent) + slack + 1, slack };
        });
        const late = Math.max(...replies.flat().map((r) => r.lateMs));
        const { plans, unstable } = planWithin(c.config, groups, windows);
        const retry = (why: string): void => {
          if (attempt < maxAttempts) {
            say(`attempt ${attempt}: ${name}: ${why}; replayed under a fresh key`);
            report.retried += 1;
            next.push(chain);
          } else {
            report.failures.push(`${name}: ${why}, in each of ${maxAttempts} attempts`);
          }
        };
        if (unstable.length > 0) {
          const w = windows[unstable[0] as number];
          retry(
            `sent up to ${Math.round(late)} ms late and answered within ${Math.round(w?.slack ?? 0)} ms, so the model's answer depends on when the server saw group ${unstable[0]}`,
          );
          continue;
        }
        const findings = groups.flatMap((g, i) =>
          options
            .judge(c, g, plans[i] as WindowPlan, replies[i] ?? [], windows[i]?.slack ?? 0)
            .map((f) => ({ ...f, message: `${name}, group at ${g.atMs} ms: ${f.message}` })),
        );
        const decisions = findings.filter((f) => f.timing !== true);
        if (decisions.length > 0) {
          report.failures.push(...decisions.map((f) => f.message));
          continue;
        }
        if (findings.length > 0) {
          retry((findings[0] as Finding).message);
          continue;
        }
        if (late > options.jitterMs) {
          report.widened += 1;
          say(
            `attempt ${attempt}: ${name}: sent up to ${Math.round(late)} ms late (planned margin ${options.jitterMs} ms); judged at the measured send times, where every placement within the measured windows gives the same decisions`,
          );
        }
        report.requests += replies.flat().length;
      }
    });
    pending = next;
  }
  return report;
}

// ---- A raw HTTP/1.1 exchange: the bytes as the server wrote them ------------------------------

/** A response as the server wrote it on the wire. */
export interface RawReply {
  /** The status line as sent, e.g. "HTTP/1.1 503 Service Temporarily Unavailable". */
  statusLine: string;
  /** Header fields in the order sent, names as sent. */
  headers: Array<[string, string]>;
  /** The body's bytes (as many as Content-Length says). */
  body: Buffer;
  /** The server closed the connection without a byte of response (nginx's 444). */
  dropped: boolean;
  /** Date.now() just before the request was written and just after the reply was read. */
  sentAtMs: number;
  doneAtMs: number;
}

/**
 * One HTTP/1.1 GET on a fresh connection (kept alive, as HTTP/1.1 clients do), read byte for byte:
 * the status line and the header fields exactly as the server wrote them, and the body by its
 * Content-Length. Bounded by `timeoutMs`.
 */
export function rawGet(
  port: number,
  urlPath: string,
  headers: ReadonlyArray<[string, string]> = [],
  options: { localAddress?: string; timeoutMs?: number } = {},
): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({
      host: '127.0.0.1',
      port,
      ...(options.localAddress === undefined ? {} : { localAddress: options.localAddress }),
    });
    let data = Buffer.alloc(0);
    let sentAtMs = 0;
    let settled = false;
    const finish = (error: Error | null, reply?: RawReply): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if (error !== null) reject(error);
      else resolve(reply as RawReply);
    };
    const timer = setTimeout(
      () =>
        finish(
          new Error(`GET ${urlPath}: no complete reply within ${options.timeoutMs ?? 10_000} ms`),
        ),
      options.timeoutMs ?? 10_000,
    );
    const parse = (ended: boolean): void => {
      const end = data.indexOf('\r\n\r\n');
      if (end < 0) {
        if (ended && data.length === 0) {
          finish(null, {
            statusLine: '',
            headers: [],
            body: Buffer.alloc(0),
            dropped: true,
            sentAtMs,
            doneAtMs: Date.now(),
          });
        } else if (ended) finish(new Error(`GET ${urlPath}: connection closed mid-header`));
        return;
      }
      const lines = data.subarray(0, end).toString('latin1').split('\r\n');
      const fields = lines.slice(1).map((l): [string, string] => {
        const colon = l.indexOf(':');
        return [l.slice(0, colon), l.slice(colon + 1).trim()];
      });
      const length = Number(fields.find(([n]) => n.toLowerCase() === 'content-length')?.[1] ?? 0);
      const body = data.subarray(end + 4);
      if (body.length < length && !ended) return;
      finish(null, {
        statusLine: lines[0] ?? '',
        headers: fields,
        body: body.subarray(0, length),
        dropped: false,
        sentAtMs,
        doneAtMs: Date.now(),
      });
    };
    socket.on('connect', () => {
      sentAtMs = Date.now();
      const head = [
        `GET ${urlPath} HTTP/1.1`,
        'Host: localhost',
        ...headers.map(([n, v]) => `${n}: ${v}`),
      ];
      socket.write(`${head.join('\r\n')}\r\n\r\n`);
    });
    socket.on('data', (chunk: Buffer) => {
      data = Buffer.concat([data, chunk]);
      parse(false);
    });
    socket.on('end', () => parse(true));
    socket.on('close', () => parse(true));
    socket.on('error', (e) => finish(e));
  });
}
