import type { Outcome } from '../../core';

const GLYPH: Record<Outcome, string> = { admit: '●', delay: '■', reject: '✕' };

/** An outcome as shape + word + colour, so colour is never the only signal. */
export function OutcomeBadge({ outcome }: { outcome: Outcome }) {
  return (
    <span className={`outcome-badge outcome-${outcome}`}>
      <span aria-hidden="true">{GLYPH[outcome]}</span> {outcome}
    </span>
  );
}
