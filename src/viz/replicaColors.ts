/**
 * A colour per replica slot, the same on the fleet strip, the small multiples and in the
 * inspector. Never colour alone: every place that shows one also shows the replica's number.
 * Twelve hues that stay apart in light and dark themes (Tableau 10 + 2), cycling past 12.
 */
const PALETTE = [
  '#4e79a7',
  '#f28e2b',
  '#59a14f',
  '#e15759',
  '#76b7b2',
  '#edc948',
  '#b07aa1',
  '#ff9da7',
  '#9c755f',
  '#bab0ac',
  '#1f77b4',
  '#8c564b',
];

export function replicaColor(slot: number): string {
  return PALETTE[slot % PALETTE.length] as string;
}

/** "R1" for slot 0. */
export function replicaLabel(slot: number): string {
  return `R${slot + 1}`;
}
