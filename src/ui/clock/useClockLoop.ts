import { useEffect } from 'react';
import { usePlaygroundApi } from '../../store/react';

/**
 * Advances the virtual clock on every animation frame while playing: t += real elapsed × speed, with
 * the real elapsed clamped (store `tick`) so a tab coming back from the background never jumps.
 * Reads the store with getState/subscribe: this hook itself never re-renders per frame.
 */
export function useClockLoop(): void {
  const api = usePlaygroundApi();
  useEffect(() => {
    let frame = 0;
    let last: number | null = null;
    const loop = (now: number) => {
      if (last !== null) api.getState().tick(now - last);
      last = now;
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
    });
    return () => {
      unsubscribe();
      if (frame !== 0) cancelAnimationFrame(frame);
    };
  }, [api]);
}
