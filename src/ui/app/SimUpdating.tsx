import { useSimulationStatus } from '../../store/react';

/**
 * A quiet "updating" note while a newer result computes off the main thread: the page keeps
 * showing the previous one meanwhile (`first`: there is none yet, a large link is opening). It fades in only after a frame (CSS animation delay), so a run
 * that answers at once shows nothing; with the worker's progress, how far the run is.
 */
export function SimUpdating({ first = false }: { first?: boolean }) {
  const { pending, progress } = useSimulationStatus();
  if (!pending) return null;
  const percent = progress === null ? null : Math.floor(progress * 100);
  return (
    <p className="sim-updating" role="status" aria-live="polite">
      {first ? 'Computing the simulation' : 'Updating the simulation'}
      {percent === null ? '…' : ` · ${percent}%`}
      {percent !== null && (
        <progress className="sim-updating-bar" max={100} value={percent} aria-hidden="true" />
      )}
    </p>
  );
}
