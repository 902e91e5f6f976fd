import { pageFaces, primaryFamily } from './pageFaces';
import { THEME_VARIABLES } from './flowScene';
import type {
  FlowFace,
  FlowFrame,
  FlowPaintMessage,
  FlowPainted,
  FlowScene,
  FlowStill,
  FlowTheme,
} from './flowScene';

/**
 * The page's side of the painter worker (`flowPaint.worker.ts`): one worker for every
 * strip, started when the first strip plays. A strip hands over its `<canvas>` (`attach`), posts
 * each frame (`draw`) and lets go when the clock stops (`detach`). The worker follows the theme:
 * its colours are read from the page's CSS now and whenever `<html data-theme>` changes.
 */

let worker: Worker | null = null;
/** The worker could not start or failed: strips draw as SVG from then on. */
let failed = false;
let nextId = 1;
/** Called when a strip's first frame is on its canvas, by strip id. */
const onPainted = new Map<number, () => void>();

/** The browser can hand a canvas to a worker, and the painter has not failed. */
export function offscreenPaintable(): boolean {
  return (
    !failed &&
    typeof Worker !== 'undefined' &&
    typeof OffscreenCanvas !== 'undefined' &&
    typeof HTMLCanvasElement !== 'undefined' &&
    typeof HTMLCanvasElement.prototype.transferControlToOffscreen === 'function'
  );
}

function readTheme(): FlowTheme {
  const css = getComputedStyle(document.documentElement);
  const theme = {} as FlowTheme;
  for (const [k, variable] of Object.entries(THEME_VARIABLES)) {
    theme[k as keyof FlowTheme] = css.getPropertyValue(variable).trim();
  }
  return theme;
}

/** The faces of the strip's font (`--font-sans`) in the weights it draws, latin letters. */
function stripFaces(theme: FlowTheme): FlowFace[] {
  const family = primaryFamily(theme.font);
  const a = 'a'.codePointAt(0) as number;
  return pageFaces()
    .filter(
      (f) =>
        f.family === family &&
        (f.weight === 400 || f.weight === 600) &&
        f.style === 'normal' &&
        (f.ranges.length === 0 || f.ranges.some(([from, to]) => from <= a && a <= to)),
    )
    .map(({ family: fam, weight, style, url, unicodeRange }) => ({
      family: fam,
      weight,
      style,
      url,
      unicodeRange,
    }));
}

function post(message: FlowPaintMessage, transfer: Transferable[] = []): void {
  worker?.postMessage(message, transfer);
}

/** The painter failed: no strip is painted from now on. */
function stop(): void {
  failed = true;
  worker?.terminate();
  worker = null;
}

function start(): Worker {
  const w = new Worker(new URL('./flowPaint.worker.ts', import.meta.url), { type: 'module' });
  // Strips that play now draw as SVG again (each renders on the next frame).
  w.onerror = stop;
  w.onmessage = (e: MessageEvent<FlowPainted>) => {
    onPainted.get(e.data.id)?.();
    onPainted.delete(e.data.id);
  };
  worker = w;
  const theme = readTheme();
  post({ type: 'theme', theme });
  post({ type: 'fonts', faces: stripFaces(theme) });
  new MutationObserver(() => post({ type: 'theme', theme: readTheme() })).observe(
    document.documentElement,
    { attributes: true, attributeFilter: ['data-theme'] },
  );
  return w;
}

/**
 * Hands `canvas` to the painter; returns the strip's id for `drawFlow` and `detachFlow`.
 * `painted` is called once the worker has put the strip's first frame on it.
 */
export function attachFlow(canvas: HTMLCanvasElement, painted: () => void): number {
  if (worker === null) start();
  const id = nextId;
  nextId += 1;
  onPainted.set(id, painted);
  const offscreen = canvas.transferControlToOffscreen();
  post({ type: 'attach', id, canvas: offscreen, dpr: window.devicePixelRatio || 1 }, [offscreen]);
  return id;
}

/** The frames drawn since the last post: the newest of each strip. */
let frames: FlowFrame[] = [];
/** The `still` last posted for each strip. */
const stillPosted = new Map<number, FlowStill>();

function flush(): void {
  const message: FlowPaintMessage = { type: 'draw', frames, dpr: window.devicePixelRatio || 1 };
  // Each array once (an effect run twice hands the same scene again: React's StrictMode).
  const handed = [...new Set(frames.map((f) => f.marks.buffer as ArrayBuffer))];
  frames = [];
  try {
    post(message, handed);
  } catch {
    // A frame the worker cannot take: strips draw as SVG from their next frame on.
    stop();
  }
}

/**
 * Draws one frame of strip `id` (its marks' array goes to the worker: it is empty here after).
 * The strips of one commit go in one message, after it (a message each cost about 0.1 ms of the
 * page's thread per strip and frame, most of it the post itself).
 */
export function drawFlow(id: number, scene: FlowScene): void {
  if (frames.length === 0) queueMicrotask(flush);
  const queued = frames.findIndex((f) => f.id === id);
  // The still parts go when the worker has not had them: a frame of this strip still queued holds
  // them if it did.
  const same =
    stillPosted.get(id) === scene.still && (queued < 0 || frames[queued]?.still === null);
  stillPosted.set(id, scene.still);
  const frame = { ...scene, id, still: same ? null : scene.still };
  if (queued >= 0) frames[queued] = frame;
  else frames.push(frame);
}

/** Strip `id`'s canvas left the page. */
export function detachFlow(id: number): void {
  frames = frames.filter((f) => f.id !== id);
  stillPosted.delete(id);
  onPainted.delete(id);
  post({ type: 'detach', id });
}
