import type { HttpResponse } from '../core';

/** The response the client received: status line and headers, as they go over the wire. */
export function HttpResponseView({
  response,
  delayMs,
}: {
  response: HttpResponse;
  delayMs: number;
}) {
  return (
    <figure className="http-response">
      <figcaption>
        What the client receives{delayMs > 0 ? `, after waiting ${delayMs} ms` : ''}
      </figcaption>
      <pre className="mono" data-testid="http-response">
        <span className={response.status === 200 ? 'status-ok' : 'status-limited'}>
          {response.statusLine}
        </span>
        {response.headers.map(([name, value]) => `\n${name}: ${value}`).join('')}
      </pre>
    </figure>
  );
}
