/**
 * A span of a log too large to hold, read out of it by a streaming pass (src/trace/streamRead.ts)
 * into a trace the page holds: the requests that arrived in [fromMs, toMs), keyed as the pass
 * keys them, at most `maxRequests` of them. The stage replays that trace and the dry run runs on
 * it, so the two decide the same requests (the held trace's own promise).
 *
 * A span holding more requests than the page holds is cut, not refused: the requests are taken
 * in time order up to the bound, and the result says where the span was cut. A request further
 * back than the reorder window is still taken when it is inside the span (and sorted into place),
 * so the trace is the span of a stable sort of the whole log by time, as a held read gives.
 */
import { ADDRESS_KEY, TraceMerger } from './builder';
import type { BuiltTrace } from './builder';
import type { EmptyKeyClients, KeySpec, ParseReport } from './types';
import type { StreamingPass } from './streamRead';

/** What the span pass read, with the trace of its requests. */
export interface SpanResult {
  trace: BuiltTrace;
  /** Requests of the whole file read. */
  fileRequests: number;
  /**
   * Epoch ms where the span was cut (the first request left out), when it held more than
   * `maxRequests`; null when the whole span was taken.
   */
  cutAtMs: number | null;
}

/** Growable columns of the span's requests (arrival, key id of the whole file's keys, cost, status). */
class SpanColumns {
  t = new Float64Array(4096);
  k = new Uint32Array(4096);
  c = new Uint16Array(4096);
  s = new Uint16Array(4096);
  n = 0;
  push(t: number, k: number, c: number, s: number): void {
    if (this.n === this.t.length) {
      const cap = this.n * 2;
      const grow = <A extends Float64Array | Uint32Array | Uint16Array>(a: A, b: A): A => {
        b.set(a);
        return b;
      };
      this.t = grow(this.t, new Float64Array(cap));
      this.k = grow(this.k, new Uint32Array(cap));
      this.c = grow(this.c, new Uint16Array(cap));
      this.s = grow(this.s, new Uint16Array(cap));
    }
    this.t[this.n] = t;
    this.k[this.n] = k;
    this.c[this.n] = c;
    this.s[this.n] = s;
    this.n += 1;
  }
}

export class StreamSpanPass implements StreamingPass<SpanResult> {
  readonly merger: TraceMerger;
  private readonly cols = new SpanColumns();
  private taken = 0;
  private all = 0;
  /** The earliest arrival left out of the span for lack of room (Infinity: none). */
  private cut = Number.POSITIVE_INFINITY;

  constructor(
    private readonly name: string,
    private readonly spec: KeySpec,
    /** The span, epoch ms: [fromMs, toMs). */
    private readonly fromMs: number,
    private readonly toMs: number,
    /** Requests the page holds (src/trace/budget.ts BUDGET_REQUESTS). */
    private readonly maxRequests: number,
  ) {
    this.merger = new TraceMerger(name, spec, Number.MAX_SAFE_INTEGER, undefined, {
      ordered: (c, from, n) => {
        for (let i = from; i < from + n; i += 1) {
          this.take(
            c.t[i] as number,
            c.key[i] as number,
            c.cost[i] as number,
            c.status[i] as number,
          );
        }
      },
      outside: (t, key, cost, status) => this.take(t, key, cost, status),
    });
  }

  /** Requests read so far, and of them in the span. */
  figures(): { requests: number; inSpan: number } {
    return { requests: this.all, inSpan: this.taken };
  }

  private take(t: number, key: number, cost: number, status: number): void {
    this.all += 1;
    if (!(t >= this.fromMs && t < this.toMs)) return;
    // Past the bound (in time order, or a late request sorted before the cut): cut at the
    // earliest arrival left out, and drop what was taken from there on when the trace is built.
    if (t >= this.cut) return;
    if (this.taken === this.maxRequests) {
      this.cut = Math.min(this.cut, t);
      return;
    }
    this.cols.push(t, key, cost, status);
    this.taken += 1;
  }

  finish(report: ParseReport): SpanResult {
    const c = this.cols;
    // Stable sort by arrival (requests outside the reorder window were appended where read).
    const order = Array.from({ length: c.n }, (_, i) => i);
    order.sort((a, b) => (c.t[a] as number) - (c.t[b] as number) || a - b);
    let n = order.length;
    if (Number.isFinite(this.cut)) {
      while (n > 0 && (c.t[order[n - 1] as number] as number) >= this.cut) n -= 1;
    }
    // Keys renumbered in the order of their first request in the span. An empty-key request with
    // an address (`ADDRESS_KEY + a`) is the empty key's, its address kept in `emptyClients` as a
    // held read keeps it (one entry per empty-key request, in trace order).
    const emptyOf = this.merger.emptyId;
    const client: number[] = [];
    const names: string[] = [];
    const codeOf = new Map<number, number>();
    const ids = new Map<number, number>();
    const keys: string[] = [];
    const arrivalMs = new Float64Array(n);
    const keyId = new Uint32Array(n);
    const cost = new Uint16Array(n);
    const status = new Uint16Array(n);
    for (let j = 0; j < n; j += 1) {
      const i = order[j] as number;
      let k = c.k[i] as number;
      if (k >= ADDRESS_KEY) {
        let code = codeOf.get(k);
        if (code === undefined) {
          code = names.push(this.merger.addresses[k - ADDRESS_KEY] as string);
          codeOf.set(k, code);
        }
        client.push(code);
        k = emptyOf;
      } else if (k === emptyOf) client.push(0);
      let id = ids.get(k);
      if (id === undefined) {
        id = keys.length;
        ids.set(k, id);
        keys.push(this.merger.keys[k] as string);
      }
      arrivalMs[j] = c.t[i] as number;
      keyId[j] = id;
      cost[j] = c.c[i] as number;
      status[j] = c.s[i] as number;
    }
    return {
      trace: {
        name: this.name,
        count: n,
        arrivalMs,
        keyId,
        keys,
        cost,
        status,
        keySpec: this.spec,
        natHints: [],
        report,
        ...(names.length === 0
          ? {}
          : {
              emptyClients: { client: Uint32Array.from(client), names } satisfies EmptyKeyClients,
            }),
      },
      fileRequests: this.all,
      cutAtMs: Number.isFinite(this.cut) ? this.cut : null,
    };
  }
}
