import { useEffect, useState } from 'react';
import { quoteText } from '../../core';
import { useTraceLoad } from '../../store/traceReact';
import './pageDrop.css';

/** True when a drag carries files (not text or a link dragged within the page). */
function hasFiles(e: DragEvent): boolean {
  return e.dataTransfer?.types.includes('Files') ?? false;
}

/**
 * A file dropped anywhere on the page is read as an access log (as the file chooser reads it),
 * with a drop target over the whole page while a file is dragged over it. Without this the
 * browser would open the dropped file in place of the page.
 */
export function PageDrop() {
  const { load, prewarm } = useTraceLoad((st) => ({ load: st.load, prewarm: st.prewarm }));
  const [over, setOver] = useState(false);
  const [note, setNote] = useState<string | null>(null);
  useEffect(() => {
    // dragenter and dragleave come for every element crossed: count them.
    let depth = 0;
    const enter = (e: DragEvent) => {
      if (!hasFiles(e)) return;
      e.preventDefault();
      // The parsing workers load their code while the file is carried to the drop.
      if (depth === 0) prewarm();
      depth += 1;
      setOver(true);
    };
    const overPage = (e: DragEvent) => {
      if (!hasFiles(e)) return;
      // Taking the drag over: without it the drop would not come, and the browser would open the
      // file itself.
      e.preventDefault();
      if (e.dataTransfer !== null) e.dataTransfer.dropEffect = 'copy';
    };
    const leave = (e: DragEvent) => {
      if (!hasFiles(e)) return;
      depth = Math.max(0, depth - 1);
      if (depth === 0) setOver(false);
    };
    const drop = (e: DragEvent) => {
      if (!hasFiles(e)) return;
      e.preventDefault();
      depth = 0;
      setOver(false);
      const files = e.dataTransfer?.files;
      const file = files?.[0];
      if (file === undefined) return;
      setNote(
        files !== undefined && files.length > 1
          ? `${files.length} files were dropped; ${quoteText(file.name)}, the first, is read.`
          : null,
      );
      load(file);
    };
    document.addEventListener('dragenter', enter);
    document.addEventListener('dragover', overPage);
    document.addEventListener('dragleave', leave);
    document.addEventListener('drop', drop);
    return () => {
      document.removeEventListener('dragenter', enter);
      document.removeEventListener('dragover', overPage);
      document.removeEventListener('dragleave', leave);
      document.removeEventListener('drop', drop);
    };
  }, [load, prewarm]);
  return (
    <>
      {over && (
        <div className="page-drop" data-testid="page-drop" aria-hidden="true">
          <p>
            Drop the access log to read it here.
            <br />
            <span>It never leaves your browser.</span>
          </p>
        </div>
      )}
      {note !== null && (
        <p className="hint" role="status">
          {note}
        </p>
      )}
    </>
  );
}
