/**
 * Where a page's memory is, isolate by isolate: a second DevTools client on the browser (started
 * with `--remote-debugging-port`) attaches to the page and, through auto-attach, to every worker it
 * starts and every worker those start (the streaming pass's range and cell workers are nested), and
 * asks each for `Runtime.getHeapUsage` — its V8 heap (`totalSize`: what the isolate has taken from
 * the system, `usedSize`: what is live) and the ArrayBuffer backing stores it holds
 * (`backingStorageSize`). Workers are named by their bundle's file name (`stream.worker-….js` →
 * `stream`). For the bench only: Playwright's own session is not shared, so this one can ask the
 * workers Playwright does not expose.
 */
import { createRequire } from 'node:module';

/** The `ws` client Playwright bundles (the bench has no WebSocket of its own on Node 20). */
interface WsSocket {
  on(event: 'message', f: (data: Buffer) => void): void;
  on(event: 'open' | 'close', f: () => void): void;
  on(event: 'error', f: (e: Error) => void): void;
  send(data: string): void;
  close(): void;
}
type WsConstructor = new (url: string, options?: { perMessageDeflate: boolean }) => WsSocket;

interface CdpMessage {
  id?: number;
  method?: string;
  sessionId?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { message: string };
}

/** One isolate kind's memory at one moment, MB. */
export interface IsolateFigures {
  /** Isolates of this kind alive. */
  isolates: number;
  /** V8 heap the isolates have reserved (totalSize), MB. */
  heapMb: number;
  /** Live objects in it (usedSize), MB. */
  usedMb: number;
  /** ArrayBuffer backing stores outside the heap, MB. */
  buffersMb: number;
}

const MB = 1024 * 1024;

/** The kind of a worker from its script's URL: `…/stream.worker-abc.js` → `stream`. */
export function workerKind(url: string): string {
  const m = /\/([A-Za-z]+)\.worker[-.]/.exec(url);
  return m?.[1] ?? 'worker';
}

export class IsolateHeaps {
  private next = 1;
  private readonly pending = new Map<number, (m: CdpMessage) => void>();
  /** Attached sessions and what runs in them ('page', or a worker kind). */
  private readonly sessions = new Map<string, string>();
  /** Worker kinds whose isolates get V8's sampling profiler as soon as they attach (`profile`). */
  private profiled = new Set<string>();
  /** Sessions whose profiler runs. */
  private readonly profiling = new Set<string>();

  private constructor(private readonly socket: WsSocket) {
    socket.on('message', (data) => {
      const msg = JSON.parse(data.toString()) as CdpMessage;
      if (msg.id !== undefined) {
        this.pending.get(msg.id)?.(msg);
        this.pending.delete(msg.id);
        return;
      }
      if (msg.method === 'Target.attachedToTarget') {
        const p = msg.params as { sessionId: string; targetInfo: { type: string; url: string } };
        const kind = workerKind(p.targetInfo.url);
        this.sessions.set(p.sessionId, kind);
        if (this.profiled.has(kind)) void this.startProfile(p.sessionId);
        // Nested workers (a worker's own workers) attach through the worker's session.
        void this.send(
          'Target.setAutoAttach',
          { autoAttach: true, waitForDebuggerOnStart: false, flatten: true },
          p.sessionId,
        ).catch(() => undefined);
      } else if (msg.method === 'Target.detachedFromTarget') {
        this.sessions.delete((msg.params as { sessionId: string }).sessionId);
      }
    });
  }

  /** Connects to the browser's DevTools port and attaches to the page whose URL starts with `url`. */
  static async attach(port: number, url: string): Promise<IsolateHeaps> {
    const version = (await (await fetch(`http://127.0.0.1:${port}/json/version`)).json()) as {
      webSocketDebuggerUrl: string;
    };
    const { ws } = createRequire(import.meta.url)('playwright-core/lib/utilsBundle') as {
      ws: WsConstructor;
    };
    const socket = new ws(version.webSocketDebuggerUrl, { perMessageDeflate: false });
    await new Promise<void>((resolve, reject) => {
      socket.on('open', resolve);
      socket.on('error', reject);
    });
    const h = new IsolateHeaps(socket);
    const { targetInfos } = (await h.send('Target.getTargets', {})) as {
      targetInfos: { targetId: string; type: string; url: string }[];
    };
    const page = targetInfos.find((t) => t.type === 'page' && t.url.startsWith(url));
    if (page === undefined) throw new Error(`no page at ${url}`);
    const { sessionId } = (await h.send('Target.attachToTarget', {
      targetId: page.targetId,
      flatten: true,
    })) as { sessionId: string };
    h.sessions.set(sessionId, 'page');
    await h.send(
      'Target.setAutoAttach',
      { autoAttach: true, waitForDebuggerOnStart: false, flatten: true },
      sessionId,
    );
    return h;
  }

  private send(
    method: string,
    params: Record<string, unknown>,
    sessionId?: string,
    timeoutMs = 5_000,
  ): Promise<Record<string, unknown>> {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`${method}: no answer in ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, (m) => {
        clearTimeout(timer);
        if (m.error !== undefined) reject(new Error(m.error.message));
        else resolve(m.result ?? {});
      });
      this.socket.send(JSON.stringify({ id, method, params, sessionId }));
    });
  }

  /**
   * From now on, every isolate of these kinds that attaches runs V8's sampling profiler (every
   * 200 µs of its thread's time) until `stopProfiles`: where a worker's CPU goes, in the page.
   */
  profile(kinds: readonly string[]): void {
    this.profiled = new Set(kinds);
  }

  private async startProfile(sessionId: string): Promise<void> {
    try {
      await this.send('Profiler.enable', {}, sessionId);
      await this.send('Profiler.setSamplingInterval', { interval: 200 }, sessionId);
      await this.send('Profiler.start', {}, sessionId);
      this.profiling.add(sessionId);
    } catch {
      // Ended before the profiler started.
    }
  }

  /**
   * Stops every running profile (the isolates must still be alive: a worker's profile ends with
   * it) and gives each profile's self time by function, summed over the isolates: ms and the
   * share of the samples, the largest first, with the isolates stopped.
   */
  async stopProfiles(): Promise<{ isolates: number; totalMs: number; rows: [string, number][] }> {
    const self = new Map<string, number>();
    let isolates = 0;
    let totalMs = 0;
    for (const sessionId of [...this.profiling]) {
      this.profiling.delete(sessionId);
      try {
        const { profile } = (await this.send('Profiler.stop', {}, sessionId, 30_000)) as {
          profile: {
            nodes: {
              id: number;
              callFrame: { functionName: string; url: string; lineNumber: number };
            }[];
            samples: number[];
            timeDeltas: number[];
          };
        };
        isolates += 1;
        const byId = new Map(profile.nodes.map((n) => [n.id, n]));
        profile.samples.forEach((id, i) => {
          const dt = (profile.timeDeltas[i] ?? 0) / 1000;
          const f = byId.get(id)?.callFrame;
          const name =
            f === undefined
              ? '?'
              : `${f.functionName || '(anonymous)'} ${f.url.split('/').pop() ?? ''}`;
          self.set(name, (self.get(name) ?? 0) + dt);
          totalMs += dt;
        });
      } catch {
        // Ended before it could be stopped: its profile is gone.
      }
    }
    return { isolates, totalMs, rows: [...self].sort((a, b) => b[1] - a[1]) };
  }

  /** Every attached isolate's heap now, summed by kind (an isolate that does not answer is left out). */
  async sample(): Promise<Map<string, IsolateFigures>> {
    const out = new Map<string, IsolateFigures>();
    await Promise.all(
      [...this.sessions].map(async ([sessionId, kind]) => {
        try {
          const u = (await this.send('Runtime.getHeapUsage', {}, sessionId, 2_000)) as {
            usedSize: number;
            totalSize: number;
            backingStorageSize?: number;
          };
          const f = out.get(kind) ?? { isolates: 0, heapMb: 0, usedMb: 0, buffersMb: 0 };
          f.isolates += 1;
          f.heapMb += u.totalSize / MB;
          f.usedMb += u.usedSize / MB;
          f.buffersMb += (u.backingStorageSize ?? 0) / MB;
          out.set(kind, f);
        } catch {
          // Ended, or not started yet.
        }
      }),
    );
    return out;
  }

  close(): void {
    this.socket.close();
  }
}

/** One line: each kind's isolates, heap (live) and buffers, and their sum, at one moment. */
export function describeIsolates(m: Map<string, IsolateFigures>): string {
  let heap = 0;
  let buffers = 0;
  const parts = [...m]
    .sort((a, b) => b[1].heapMb + b[1].buffersMb - (a[1].heapMb + a[1].buffersMb))
    .map(([kind, f]) => {
      heap += f.heapMb;
      buffers += f.buffersMb;
      return `${kind}${f.isolates > 1 ? ` ×${f.isolates}` : ''} ${f.heapMb.toFixed(0)} (${f.usedMb.toFixed(0)} live) + ${f.buffersMb.toFixed(0)} buffers`;
    });
  return `${parts.join('; ')} — V8 heaps ${heap.toFixed(0)} MB + buffers ${buffers.toFixed(0)} MB`;
}
