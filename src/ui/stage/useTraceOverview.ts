import { useEffect, useRef, useState } from 'react';
import type { AlgorithmConfig } from '../../core';
import { heldSpanSource, overviewBinMs } from '../../trace';
import type { OverviewReply, OverviewRequest } from '../../store/overviewProtocol';

/** A trace as the overview takes it: whole-ms times from its first request, key ids and names. */
export interface OverviewTrace {
  timeMs: Int32Array;
  keyId: Uint32Array;
  keys: string[];
  /** The epoch ms time 0 stands for (SimTrace.originMs); absent: 0. */
  originMs?: number;
}

/** What the overview draws; each part null until computed. */
export interface OverviewData {
  /** Bin width, ms (whole minutes). */
  binMs: number;
  requests: Uint32Array | null;
  /** Rejections per bin for `config`, and their total; null while computing. */
  rejected: { config: AlgorithmConfig; perBin: Uint32Array; total: number } | null;
  error: string | null;
}

interface Held {
  trace: OverviewTrace;
  requests: Uint32Array | null;
  rejected: OverviewData['rejected'];
  error: string | null;
}

/**
 * The requests per minute of `trace`, and the rejections per minute of a replay of all of it
 * through `config`: in a worker (a replay of every request can take longer than a frame), the
 * newest limiter winning; here where there is no Worker.
 */
export function useTraceOverview(
  trace: OverviewTrace,
  config: AlgorithmConfig | undefined,
): OverviewData {
  const n = trace.timeMs.length;
  const binMs = overviewBinMs(n === 0 ? 0 : (trace.timeMs[n - 1] as number));
  const [held, setHeld] = useState<Held | null>(null);
  const worker = useRef<{ worker: Worker; trace: OverviewTrace } | null>(null);
  /** The newest run asked: older answers are dropped. */
  const gen = useRef(0);

  useEffect(
    () => () => {
      worker.current?.worker.terminate();
      worker.current = null;
    },
    [],
  );

  useEffect(() => {
    if (typeof Worker === 'undefined') {
      const id = setTimeout(() => {
        const source = heldSpanSource(trace);
        const base = { trace, requests: source.requestsPerBin(binMs), rejected: null, error: null };
        try {
          const perBin = config === undefined ? null : source.rejectionsPerBin(config, binMs);
          const total = perBin?.reduce((a, b) => a + b, 0) ?? 0;
          setHeld({ ...base, rejected: config && perBin ? { config, perBin, total } : null });
        } catch (e) {
          setHeld({ ...base, error: (e as Error).message });
        }
      }, 0);
      return () => clearTimeout(id);
    }
    let w = worker.current;
    if (w === null || w.trace !== trace) {
      w?.worker.terminate();
      const made = new Worker(new URL('../../store/overview.worker.ts', import.meta.url), {
        type: 'module',
      });
      w = { worker: made, trace };
      worker.current = w;
      // Copies for the worker (transferred): the page keeps its own arrays.
      const timeMs = trace.timeMs.slice();
      const keyId = trace.keyId.slice(0, n);
      const init: OverviewRequest = {
        type: 'init',
        timeMs,
        keyId,
        keys: trace.keys,
        originMs: trace.originMs ?? 0,
        binMs,
      };
      made.postMessage(init, [timeMs.buffer, keyId.buffer]);
      setHeld({ trace, requests: null, rejected: null, error: null });
    }
    if (config === undefined) return undefined;
    gen.current += 1;
    const mine = gen.current;
    const onMessage = (e: MessageEvent<OverviewReply>) => {
      const m = e.data;
      if (m.type === 'requests') {
        setHeld((h) => (h?.trace === trace ? { ...h, requests: m.requests } : h));
      } else if (m.gen === gen.current) {
        setHeld((h) =>
          h?.trace !== trace
            ? h
            : m.type === 'rejected'
              ? { ...h, rejected: { config, perBin: m.rejected, total: m.total }, error: null }
              : { ...h, error: m.message },
        );
      }
    };
    const onError = (e: ErrorEvent) =>
      setHeld((h) => (h === null ? h : { ...h, error: `The overview stopped: ${e.message}` }));
    const target = w.worker;
    target.addEventListener('message', onMessage);
    target.addEventListener('error', onError);
    const run: OverviewRequest = { type: 'run', gen: mine, config };
    target.postMessage(run);
    return () => {
      target.removeEventListener('message', onMessage);
      target.removeEventListener('error', onError);
    };
  }, [trace, config, binMs, n]);

  const mine = held?.trace === trace ? held : null;
  return {
    binMs,
    requests: mine?.requests ?? null,
    // Rejections of another limiter are stale until the newest run reports.
    rejected: mine?.rejected?.config === config ? (mine?.rejected ?? null) : null,
    error: mine?.error ?? null,
  };
}
