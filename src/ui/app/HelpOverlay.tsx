import { useEffect, useRef } from 'react';
import { SHORTCUTS } from './shortcutList';

/** The keyboard shortcuts, in a modal dialog. */
export function HelpOverlay({ open, onClose }: { open: boolean; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog === null) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog ref={ref} className="help-overlay" aria-labelledby="help-heading" onClose={onClose}>
      <h2 id="help-heading">Keyboard shortcuts</h2>
      <table>
        <tbody>
          {SHORTCUTS.map(([keys, what]) => (
            <tr key={keys}>
              <th scope="row">
                <kbd>{keys}</kbd>
              </th>
              <td>{what}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="muted">
        Every control is reachable with Tab; the timeline is a slider (arrows step 100 ms,
        Shift+arrows 1 s).
      </p>
      <button type="button" className="primary" onClick={onClose} autoFocus>
        Close
      </button>
    </dialog>
  );
}
