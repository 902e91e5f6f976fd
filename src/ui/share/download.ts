/**
 * Saving a file from the page: an object URL clicked through a temporary `<a download>`. The URL is
 * revoked a little later, not at once: a browser may still be reading it when `click()` returns.
 */

/** How long an object URL outlives its click, real ms. */
export const REVOKE_AFTER_MS = 30_000;

/** Offers `blob` as a download named `filename`. */
export function downloadBlob(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.rel = 'noopener';
  a.hidden = true;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), REVOKE_AFTER_MS);
}
