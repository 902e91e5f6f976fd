import { useEffect, useId, useRef, useState } from 'react';
import type { KeyboardEvent } from 'react';
import { simulationOf } from '../../store';
import { usePlaygroundApi } from '../../store/react';
import { formatCount } from '../common/format';
import { Icon } from '../common/Icon';

// The log writer and the picture maker are a chunk of their own, fetched on first use.
const actions = () => import('./downloads');
const vectorActions = () => import('./vectorDownloads');

type Format = 'csv' | 'json' | 'svg' | 'png' | 'vectors' | 'vectors-zip';

const ITEMS: ReadonlyArray<{ format: Format; label: string; hint: string }> = [
  { format: 'csv', label: 'Decision log (CSV)', hint: 'every decision, for a spreadsheet' },
  { format: 'json', label: 'Decision log (JSON)', hint: 'with the config, link and metrics' },
  { format: 'svg', label: 'View (SVG)', hint: 'the timeline and limiters, now' },
  { format: 'png', label: 'View (PNG)', hint: 'the same picture at 2×' },
  {
    format: 'vectors',
    label: 'Test vectors (JSON)',
    hint: 'the edited limiter’s decisions, to test yours',
  },
  {
    format: 'vectors-zip',
    label: 'Test vectors + tests (zip)',
    hint: 'with Vitest, Jest and Go files and an adapter to fill in',
  },
];

type Message = { kind: 'done' | 'error'; text: string };

/**
 * "Download": the decision log (CSV, JSON) and the current view (SVG, PNG). A disclosure button
 * and a list of plain buttons, so Tab and Enter reach everything; Escape or a click elsewhere
 * closes it. A log over the cap is never cut silently: the menu says so and asks first.
 */
export function DownloadMenu() {
  const api = usePlaygroundApi();
  const id = useId();
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<Message | null>(null);
  const [confirm, setConfirm] = useState<{
    format: 'csv' | 'json';
    text: string;
    included: number;
  } | null>(null);
  const rootRef = useRef<HTMLDivElement>(null);
  const toggleRef = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    if (!open) return;
    const onDown = (e: PointerEvent) => {
      if (!(rootRef.current?.contains(e.target as Node) ?? false)) setOpen(false);
    };
    document.addEventListener('pointerdown', onDown);
    return () => document.removeEventListener('pointerdown', onDown);
  }, [open]);

  const close = () => {
    setOpen(false);
    setConfirm(null);
  };

  const save = async (format: Format, confirmed = false) => {
    setBusy(true);
    setMessage(null);
    try {
      const m = await actions();
      const state = api.getState();
      const sim = simulationOf(state);
      if (!sim.ok) throw new Error('The settings have problems (listed on the stage): no run.');
      let summary: string;
      if (format === 'csv' || format === 'json') {
        if (!confirmed) {
          const plan = m.planLog(sim.result);
          const cut = m.describeCut(plan);
          if (cut !== null) {
            setConfirm({ format, text: cut, included: plan.included });
            return;
          }
        }
        summary = m.saveLog(format, state, sim.result).summary;
      } else if (format === 'vectors' || format === 'vectors-zip') {
        const v = await vectorActions();
        summary = v.saveTestVectors(format === 'vectors-zip', state, sim.result).summary;
      } else {
        const stage = rootRef.current?.closest('.stage');
        if (stage === null || stage === undefined) throw new Error('No stage to draw.');
        const playing = state.playing;
        try {
          let still = state;
          if (playing) {
            // A playing strip is a worker's canvas, not SVG: the clock stops, the
            // picture is of the frame it stopped at, drawn as SVG once the page has rendered it,
            // and the clock goes on from there.
            state.pause();
            await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
            still = api.getState();
          }
          summary = (await m.saveView(format, stage, still, sim.result)).summary;
        } finally {
          if (playing) api.getState().play();
        }
      }
      setMessage({ kind: 'done', text: summary });
      close();
      toggleRef.current?.focus();
    } catch (e) {
      setMessage({ kind: 'error', text: e instanceof Error ? e.message : String(e) });
    } finally {
      setBusy(false);
    }
  };

  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key !== 'Escape' || !open) return;
    // Escape closes the menu only (not also the inspector, as the page-wide Escape does).
    e.stopPropagation();
    close();
    toggleRef.current?.focus();
  };

  return (
    <div className="download-menu" ref={rootRef} onKeyDown={onKeyDown}>
      <button
        ref={toggleRef}
        type="button"
        aria-expanded={open}
        aria-controls={`${id}-panel`}
        onClick={() => (open ? close() : setOpen(true))}
        aria-label="Download"
        title="Download the decision log or the view"
      >
        <Icon name="download" />
        <span aria-hidden="true">▾</span>
      </button>
      <span className="export-sr-only" role="status">
        {message?.kind === 'done' ? message.text : ''}
      </span>
      <div
        id={`${id}-panel`}
        className="download-menu-panel"
        role="group"
        aria-label="Downloads"
        hidden={!open}
      >
        {confirm === null ? (
          ITEMS.map((item) => (
            <button
              key={item.format}
              type="button"
              className="download-item"
              disabled={busy}
              onClick={() => void save(item.format)}
            >
              <span>{item.label}</span>
              <span className="muted">{item.hint}</span>
            </button>
          ))
        ) : (
          <div className="download-confirm" role="alertdialog" aria-label="The log is cut">
            <p>{confirm.text}</p>
            <div className="download-confirm-actions">
              <button
                type="button"
                className="primary"
                disabled={busy}
                onClick={() => void save(confirm.format, true)}
              >
                Download the first {formatCount(confirm.included)}
              </button>
              <button type="button" onClick={() => setConfirm(null)}>
                Cancel
              </button>
            </div>
          </div>
        )}
        {busy && (
          <p className="muted download-busy" role="status">
            Preparing…
          </p>
        )}
        {message?.kind === 'error' && (
          <p className="param-error" role="alert">
            {message.text}
          </p>
        )}
      </div>
    </div>
  );
}
