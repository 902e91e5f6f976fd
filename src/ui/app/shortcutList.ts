/**
 * The shortcuts `useShortcuts` handles, as the help overlay lists them. A module of its own so the
 * list loads with the overlay's chunk, not with the first page (the initial JavaScript).
 * Keep it in step with the keys `useShortcuts` handles.
 */
/** The shortcuts, for the help overlay. */
export const SHORTCUTS: ReadonlyArray<readonly [keys: string, what: string]> = [
  ['Space', 'play / pause'],
  ['f', 'fire one request now'],
  ['b', 'fire a burst (the size the Traffic panel shows, 10 by default)'],
  ['← / →', 'step back / forward 100 ms (with Shift: 1 s)'],
  ['n', 'step to the next event'],
  ['Home', 'back to the start'],
  ['[ / ]', 'slower / faster'],
  ['c', 'compare all limiters / show one'],
  ['?', 'this help'],
  ['Esc', 'close the help or the inspector'],
];
