import { Suspense, useId, useState } from 'react';
import { lazyPart } from '../common/lazyPart';

// The panel brings src/export and its YAML parser (~30 kB gzip): fetched the first time it opens.
const ExportPanel = lazyPart(
  () => import('./ExportPanel').then((m) => m.ExportPanel),
  'export panel',
);

/**
 * A collapsible "Export & import" section. Closed at first; once opened the panel stays mounted
 * (hidden when closed), so a pasted snippet and its messages survive closing and reopening.
 */
export function ExportSection() {
  const id = useId();
  const [open, setOpen] = useState(false);
  const [loaded, setLoaded] = useState(false);
  const toggle = () => {
    setOpen(!open);
    setLoaded(true);
  };
  return (
    <section className="panel export-section" aria-labelledby={`${id}-heading`}>
      <div className="export-section-head">
        <h2 id={`${id}-heading`}>
          <button
            type="button"
            className="export-toggle"
            aria-expanded={open}
            aria-controls={`${id}-body`}
            onClick={toggle}
          >
            <span className="export-chevron" aria-hidden="true" />
            Export &amp; import
          </button>
        </h2>
        {/* What the closed section holds: the gateways and clouds people look for first. */}
        <span className="export-section-hint muted">
          nginx · Envoy · Traefik · Kong · Cloudflare · HAProxy · Redis Lua · Go · …
        </span>
      </div>
      <div id={`${id}-body`} hidden={!open}>
        {loaded && (
          <Suspense
            fallback={
              <p className="muted export-loading" role="status">
                Loading the exporters…
              </p>
            }
          >
            <ExportPanel />
          </Suspense>
        )}
      </div>
    </section>
  );
}
