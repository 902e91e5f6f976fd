/**
 * Brings the stage into view after an action whose result is drawn there (an experiment chosen, a
 * moment gone to, a log replayed), when the page is one column and the stage is not on the
 * screen: on a phone it sits under the settings, thousands of px below the button pressed. Its top
 * (the clock bar) goes to the top of the screen, smoothly unless the person prefers reduced
 * motion. On a wide screen, where the stage is beside the settings, nothing moves. True when the
 * stage is now at the top of the screen (or on its way there), false when nothing was needed.
 *
 * The page scrolls to the stage's own top rather than through `scrollIntoView`: the page's
 * `scroll-padding-top` keeps what focus reaches clear of the sticky clock bar, but here the bar is
 * the stage's first child, and that padding would leave a gap of its height above it.
 */
export function bringStageIntoView(): boolean {
  const stage = document.getElementById('stage');
  const sidebar = document.querySelector('.sidebar');
  if (stage === null || sidebar === null) return false;
  const top = stage.getBoundingClientRect().top;
  // Two columns: the stage starts above the settings' end, beside them.
  if (top < sidebar.getBoundingClientRect().bottom - 1) return false;
  if (Math.abs(top) < 8) return true;
  const reduced = window.matchMedia?.('(prefers-reduced-motion: reduce)').matches ?? false;
  window.scrollTo({ top: window.scrollY + top, behavior: reduced ? 'instant' : 'smooth' });
  return true;
}
