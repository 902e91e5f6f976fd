import { useCallback, useEffect, useState } from 'react';
import { arrivalsOf, compactName, costsOf } from '../../trace';
import { compactFile, forget, keep, keptFile, listKept } from '../../store/traceKeep';
import type { KeptTrace } from '../../store/traceKeep';
import { useTraceLoad } from '../../store/traceReact';
import { formatBytes } from '../../viz/format';

/** Sizes as every other part of the page writes them (kB = 1,000 bytes). */
const size = formatBytes;

function download(file: File): void {
  const url = URL.createObjectURL(file);
  const a = document.createElement('a');
  a.href = url;
  a.download = file.name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/**
 * Keep and share: the loaded log as a compact file, downloaded or kept in this
 * browser (IndexedDB) until deleted; kept traces listed with their size, to open or delete.
 */
export function TraceKeep() {
  const t = useTraceLoad((st) => ({ trace: st.trace, replay: st.replay, load: st.load }));
  const [kept, setKept] = useState<KeptTrace[]>([]);
  const [message, setMessage] = useState<string | null>(null);
  const refresh = useCallback(() => {
    listKept().then(setKept, (e: unknown) => setMessage((e as Error).message));
  }, []);
  useEffect(() => {
    let live = true;
    listKept().then(
      (k) => {
        if (live) setKept(k);
      },
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, []);
  const trace = t.trace;
  const hash = t.replay?.hash ?? '';
  const compact = () =>
    trace === null
      ? null
      : compactFile(
          { ...trace, arrivalMs: arrivalsOf(trace), cost: costsOf(trace) },
          compactName(trace.name),
        );
  return (
    <div className="trace-keep" data-testid="trace-keep">
      {trace !== null && (
        <div className="fire-row">
          <button
            type="button"
            onClick={() => {
              compact()?.then(download, (e: unknown) => setMessage((e as Error).message));
            }}
          >
            Export trace (compact)
          </button>
          <button
            type="button"
            disabled={kept.some((k) => k.hash === hash)}
            onClick={() => {
              compact()
                ?.then((file) => keep(file, { name: file.name, requests: trace.count, hash }))
                .then(
                  () => {
                    setMessage(`${trace.name} is kept in this browser until you delete it.`);
                    refresh();
                  },
                  (e: unknown) => setMessage((e as Error).message),
                );
            }}
          >
            Keep in this browser
          </button>
        </div>
      )}
      {message !== null && <p role="status">{message}</p>}
      {kept.length > 0 && (
        <table className="trace-kept" data-testid="trace-kept">
          <caption>Traces kept in this browser</caption>
          <thead>
            <tr>
              <th scope="col">file</th>
              <th scope="col">requests</th>
              <th scope="col">size</th>
              <th scope="col">
                <span className="visually-hidden">actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {kept.map((k) => (
              <tr key={k.id}>
                <td>{k.name}</td>
                <td>{k.requests.toLocaleString('en-US')}</td>
                <td>{size(k.bytes)}</td>
                <td>
                  <button
                    type="button"
                    aria-label={`Open ${k.name}`}
                    onClick={() => {
                      keptFile(k.id).then(
                        (f) => t.load(f, [{ kind: 'client' }]),
                        (e: unknown) => setMessage((e as Error).message),
                      );
                    }}
                  >
                    Open
                  </button>{' '}
                  <button
                    type="button"
                    aria-label={`Delete ${k.name}`}
                    onClick={() => {
                      forget(k.id).then(refresh, (e: unknown) => setMessage((e as Error).message));
                    }}
                  >
                    Delete
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
