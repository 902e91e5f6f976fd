import type { SystemResponse } from '../../systems';

/**
 * The response the client received from the limiter's system: status line and headers as they go
 * over the wire. Headers the user added ("add standard rate-limit headers") are marked as added;
 * the system's sources for the response are listed under it.
 */
export function HttpResponseView({
  response,
  delayMs,
  systemName,
}: {
  response: SystemResponse;
  delayMs: number;
  /** The system that sends it, e.g. "nginx limit_req". */
  systemName: string;
}) {
  const added = response.fields.some((f) => f.added === true);
  return (
    <figure className="http-response">
      <figcaption>
        What the client receives from {systemName}
        {delayMs > 0 ? `, after waiting ${delayMs} ms` : ''}
      </figcaption>
      <pre className="mono" data-testid="http-response">
        <span className={response.status === 200 ? 'status-ok' : 'status-limited'}>
          {response.statusLine}
        </span>
        {response.fields.map((f, i) => (
          <span
            key={i}
            className={f.added === true ? 'header-added' : undefined}
            data-added={f.added === true ? 'true' : undefined}
          >
            {`\n${f.name}: ${f.value}`}
            {f.added === true && <span className="header-added-tag">{'  ← added'}</span>}
          </span>
        ))}
      </pre>
      {response.fields.length === 0 && (
        <p className="muted http-response-note">No rate-limit headers: {systemName} sends none.</p>
      )}
      {added && (
        <p className="muted http-response-note">
          “← added”: sent only because this limiter adds the standard rate-limit headers (the export
          configures them).
        </p>
      )}
      <p className="muted http-response-sources">
        Source:{' '}
        {response.sources.map((s, i) => (
          <span key={i}>
            {i > 0 ? '; ' : ''}
            <span className="mono">{s.file}</span> ({s.version})
          </span>
        ))}
      </p>
    </figure>
  );
}
