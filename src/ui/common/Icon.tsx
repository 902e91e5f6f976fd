/** Small stroke icons drawn as SVG, so they never depend on a font having the glyph. */
const PATHS = {
  play: 'M5 3.5v9l8-4.5z',
  pause: 'M5 3.5v9M11 3.5v9',
  rewind: 'M3.5 3.5v9M13 3.5l-7 4.5 7 4.5z',
  next: 'M3 3.5l7 4.5-7 4.5zM12.5 3.5v9',
  back: 'M12.5 3.5l-7 4.5 7 4.5z',
  forward: 'M3.5 3.5l7 4.5-7 4.5z',
  download: 'M8 2v8.5M4.5 7.5 8 11l3.5-3.5M2.5 13.5h11',
} as const;

const FILLED: ReadonlySet<string> = new Set(['play', 'rewind', 'next', 'back', 'forward']);

export function Icon({ name }: { name: keyof typeof PATHS }) {
  return (
    <svg
      className="icon"
      viewBox="0 0 16 16"
      width="14"
      height="14"
      aria-hidden="true"
      focusable="false"
    >
      <path
        d={PATHS[name]}
        fill={FILLED.has(name) ? 'currentColor' : 'none'}
        stroke="currentColor"
        strokeWidth={name === 'pause' ? 2.4 : name === 'download' ? 1.6 : 1.2}
        strokeLinejoin="round"
      />
    </svg>
  );
}
