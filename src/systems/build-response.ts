/**
 * Builds a SystemResponse from a status and the header fields a system sends, in order.
 */
import { STATUS_TEXTS } from './status-text';
import type { SourceRef, SystemHeader, SystemResponse } from './types';

export function buildResponse(
  status: number,
  fields: readonly SystemHeader[],
  sources: readonly SourceRef[],
): SystemResponse {
  const statusText = STATUS_TEXTS[status] ?? 'Error';
  return {
    status,
    statusText,
    statusLine: `HTTP/1.1 ${status} ${statusText}`,
    headers: fields.map((f) => [f.name, f.value] as const),
    fields,
    sources,
  };
}

/** A header the system sends itself. */
export const sent = (name: string, value: string | number): SystemHeader => ({
  name,
  value: String(value),
});
