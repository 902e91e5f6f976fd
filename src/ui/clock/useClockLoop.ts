import { useEffect } from 'react';
import { usePlaygroundApi } from '../../store/react';
import type { PlaygroundState } from '../../store/types';

/** Whether `s` differs from `prev` in what is simulated (a limiter, the scenario, the run). */
function edited(s: PlaygroundState, prev: PlaygroundState): boolean {
  return (
    s.limiters !== prev.limiters ||
    s.scenario !== prev.scenario ||
    s.untilMs !== prev.untilMs ||
    s.mode !== prev.mode
  );
}

/**
 * Advances the virtual clock on every animation frame while playing: t += real elapsed × speed, with
 * the real elapsed clamped (store `tick`) so a tab coming back from the background never jumps.
 * Reads the store with getState/subscribe: this hook itself never re-renders per frame.
 *
 * Input first: the frame right after an edit draws the edit as its input task rendered it, at the
 * clock time it was made, and the clock moves on in the next frame by the real time of both (no
 * virtual time is lost). That frame then only lays out and paints, instead of also drawing every
 * lane in view again at the next time (input → the frame that draws it). Never two
 * frames in a row, so a slider dragged while playing still moves the clock every other frame.
 */
export function useClockLoop(): void {
  const api = usePlaygroundApi();
  useEffect(() => {
    let frame = 0;
    let last: number | null = null;
    let editPending = false;
    let heldLast = false;
    const loop = (now: number) => {
      if (editPending && !heldLast && last !== null) {
        heldLast = true;
      } else {
        if (last !== null) api.getState().tick(now - last);
        last = now;
        heldLast = false;
      }
      editPending = false;
      frame = api.getState().playing ? requestAnimationFrame(loop) : 0;
    };
    const start = () => {
      if (frame === 0 && api.getState().playing) {
        last = null;
        frame = requestAnimationFrame(loop);
      }
    };
    start();
    const unsubscribe = api.subscribe((s, prev) => {
      if (s.playing && !prev.playing) start();
      if (edited(s, prev)) editPending = true;
    });
    return () => {
      unsubscribe();
      if (frame !== 0) cancelAnimationFrame(frame);
    };
  }, [api]);
}
