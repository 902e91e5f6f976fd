import { useEffect } from 'react';
import { usePlaygroundApi } from '../../store/react';

/** Elements where keys belong to the element, not to the shortcuts. */
function isTyping(target: EventTarget | null): boolean {
  // SVG elements too: the timeline's slider is one, and handles its own arrow keys.
  if (!(target instanceof Element)) return false;
  if (target.closest('[role="slider"]') !== null) return true;
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  const tag = target.tagName;
  if (tag === 'TEXTAREA' || tag === 'SELECT') return true;
  if (tag !== 'INPUT') return false;
  const type = (target as HTMLInputElement).type;
  return !['checkbox', 'radio', 'button', 'submit', 'range'].includes(type);
}

// The list the help overlay shows is in shortcutList.ts: it loads with the overlay, not here.

/** Keyboard-first control of the clock and traffic. `onHelp` toggles the help overlay. */
export function useShortcuts(onHelp: () => void, onEscape: () => void): void {
  const api = usePlaygroundApi();
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      if (e.key === 'Escape') {
        onEscape();
        return;
      }
      if (isTyping(e.target)) return;
      const s = api.getState();
      const handled = (() => {
        switch (e.key) {
          case ' ':
            // A focused button already acts on Space; only take it when nothing else would.
            if (e.target instanceof HTMLButtonElement) return false;
            // A focused checkbox or radio toggles on Space too (the fleet controls' checkboxes).
            if (e.target instanceof HTMLInputElement) return false;
            s.togglePlay();
            return true;
          case 'f':
            s.fire(1);
            return true;
          case 'b':
            s.fire(s.burstSize);
            return true;
          case 'ArrowLeft':
            s.stepBy(e.shiftKey ? -1000 : -100);
            return true;
          case 'ArrowRight':
            s.stepBy(e.shiftKey ? 1000 : 100);
            return true;
          case 'n':
            s.stepToNextEvent();
            return true;
          case 'Home':
            s.rewind();
            return true;
          case '[':
          case ']': {
            const speeds = [0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100];
            const i = speeds.findIndex((v) => v >= s.speed);
            const next =
              speeds[Math.min(speeds.length - 1, Math.max(0, i + (e.key === ']' ? 1 : -1)))];
            if (next !== undefined) s.setSpeed(next);
            return true;
          }
          case 'c':
            if (s.limiters.length > 1) s.setMode(s.mode === 'compare' ? 'single' : 'compare');
            return true;
          case '?':
            onHelp();
            return true;
          default:
            return false;
        }
      })();
      if (handled) e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [api, onHelp, onEscape]);
}
