/** React access to the trace-loading store (one per page, created on first use). */
import { useStore } from 'zustand';
import { useShallow } from 'zustand/react/shallow';
import { createTraceLoadStore } from './traceLoad';
import type { TraceLoadState, TraceLoadStore } from './traceLoad';

let instance: TraceLoadStore | null = null;

export function traceLoadStore(): TraceLoadStore {
  instance ??= createTraceLoadStore();
  return instance;
}

export function useTraceLoad<T extends object>(selector: (s: TraceLoadState) => T): T {
  return useStore(traceLoadStore(), useShallow(selector));
}
