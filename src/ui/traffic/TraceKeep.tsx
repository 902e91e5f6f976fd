import { useCallback, useEffect, useRef, useState } from 'react';
import { arrivalsOf, compactName, costsOf } from '../../trace';
import { compactFile, forget, forgetAll, keep, keptFile, listKept } from '../../store/traceKeep';
import type { KeptTrace, TraceOrigin } from '../../store/traceKeep';
import type { UnreadableKept } from '../../store/keptRecords';
import { quoteText } from '../../core';
import type { KeySpec } from '../../trace';
import { usePlayground } from '../../store/react';
import { useTraceLoad } from '../../store/traceReact';
import { formatBytes } from '../../viz/format';
import { fileSpanText } from './clockTime';

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

/** Opens a kept trace under the name of the file it was first read from. */
function openKept(k: KeptTrace, load: (f: File, keySpec: KeySpec, origin?: TraceOrigin) => void) {
  // The compact file's client column holds each request's key as it was chosen.
  return keptFile(k.id).then((f) => load(f, [{ kind: 'client' }], k.source));
}

/**
 * Keep and share: the loaded log as a compact file, downloaded or kept in this
 * browser (IndexedDB) until deleted; kept traces listed with their size, to open or delete. When
 * the settings replay a log this page does not hold but keeps (a reopened browser), the kept copy
 * opens by itself: the same fingerprint, the same replay, the same link.
 */
export function TraceKeep() {
  const t = useTraceLoad((st) => ({
    trace: st.trace,
    replay: st.replay,
    origin: st.origin,
    loading: st.status.kind === 'loading',
    load: st.load,
  }));
  const wanted = usePlayground(
    (st) => st.scenario.sources.find((x) => x.kind === 'trace')?.hash ?? null,
  );
  const [kept, setKept] = useState<KeptTrace[]>([]);
  const [unreadable, setUnreadable] = useState<UnreadableKept[]>([]);
  const [message, setMessage] = useState<string | null>(null);
  const refresh = useCallback(() => {
    listKept(setUnreadable).then(setKept, (e: unknown) => setMessage((e as Error).message));
  }, []);
  useEffect(() => {
    let live = true;
    listKept((u) => {
      if (live) setUnreadable(u);
    }).then(
      (k) => {
        if (live) setKept(k);
      },
      // Said, not swallowed: a database another page made, or storage the browser refuses.
      (e: unknown) => {
        if (live) setMessage((e as Error).message);
      },
    );
    return () => {
      live = false;
    };
  }, []);
  const remove = useCallback(
    (keys: IDBValidKey[]) => {
      forgetAll(keys).then(refresh, (e: unknown) => setMessage((e as Error).message));
    },
    [refresh],
  );
  // Each wanted fingerprint is opened from the kept copies once (not again if that fails).
  const tried = useRef(new Set<string>());
  useEffect(() => {
    if (wanted === null || t.loading || t.replay?.hash === wanted || tried.current.has(wanted))
      return;
    const k = kept.find((x) => x.hash === wanted);
    if (k === undefined) return;
    tried.current.add(wanted);
    openKept(k, t.load).then(
      () => setMessage(`Opened ${k.source?.name ?? k.name}, kept in this browser.`),
      (e: unknown) => setMessage((e as Error).message),
    );
  }, [wanted, kept, t.loading, t.replay, t.load]);
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
                ?.then((file) =>
                  keep(file, {
                    name: file.name,
                    requests: trace.count,
                    hash,
                    ...(t.origin === null ? {} : { source: t.origin }),
                  }),
                )
                .then(
                  () => {
                    setMessage(
                      `${quoteText(trace.name)} is kept in this browser until you delete it.`,
                    );
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
                <td>
                  {quoteText(k.name)}
                  {k.source !== undefined && fileSpanText(k.source) !== null && (
                    <span className="muted" data-testid="trace-kept-span">
                      {' '}
                      (the span {fileSpanText(k.source)} of {quoteText(k.source.name)})
                    </span>
                  )}
                </td>
                <td>{k.requests.toLocaleString('en-US')}</td>
                <td>{size(k.bytes)}</td>
                <td>
                  <button
                    type="button"
                    aria-label={`Open ${quoteText(k.name)}`}
                    onClick={() => {
                      openKept(k, t.load).catch((e: unknown) => setMessage((e as Error).message));
                    }}
                  >
                    Open
                  </button>{' '}
                  <button
                    type="button"
                    aria-label={`Delete ${quoteText(k.name)}`}
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
      {unreadable.length > 0 && <UnreadableList records={unreadable} onDelete={remove} />}
    </div>
  );
}

/** The most unreadable records listed one by one; past it, a count and one button for all. */
const UNREADABLE_SHOWN = 10;

/**
 * Records in the kept traces' store that are not kept traces (keptRecords.ts): each with what is
 * wrong with it and a button to delete it. The page reads none of them.
 */
function UnreadableList({
  records,
  onDelete,
}: {
  records: UnreadableKept[];
  onDelete: (keys: IDBValidKey[]) => void;
}) {
  const rest = records.length - UNREADABLE_SHOWN;
  return (
    <div className="trace-unreadable" role="region" aria-label="Unreadable kept records">
      <p>
        {records.length === 1
          ? 'A record kept in this browser is not a trace this page can open (another version of the page, or another page on this site, wrote it):'
          : `${records.length.toLocaleString('en-US')} records kept in this browser are not traces this page can open (another version of the page, or another page on this site, wrote them):`}
      </p>
      <ul>
        {records.slice(0, UNREADABLE_SHOWN).map((r, i) => (
          <li key={i}>
            {`${r.label}: ${r.why}. `}
            <button
              type="button"
              aria-label={`Delete ${r.label}`}
              onClick={() => onDelete([r.key])}
            >
              Delete
            </button>
          </li>
        ))}
      </ul>
      {rest > 0 && <p>{`and ${rest.toLocaleString('en-US')} more.`}</p>}
      {records.length > 1 && (
        <button type="button" onClick={() => onDelete(records.map((r) => r.key))}>
          {`Delete all ${records.length.toLocaleString('en-US')} unreadable records`}
        </button>
      )}
    </div>
  );
}
