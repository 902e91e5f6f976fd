import { Suspense, memo, useState } from 'react';
import type { SystemInfo } from '../../systems';
import { Loading, lazyPart } from '../common/lazyPart';

const List = lazyPart(
  () => import('./DifferencesList').then((m) => m.DifferencesList),
  'list of differences',
);

/**
 * What this model leaves out or does differently from the real system, under its parameters: the
 * faithfulness promise says where it stops. The text arrives when the disclosure is first opened.
 * Memoised on the system: a parameter edit does not render it.
 */
export const SystemDifferences = memo(function SystemDifferences({
  system,
}: {
  system: SystemInfo;
}) {
  const [open, setOpen] = useState(false);
  return (
    <details className="system-differences-box" onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>Where this model differs from the real {system.name}</summary>
      {open && (
        <Suspense fallback={<Loading what="list of differences" />}>
          <List system={system.id} />
        </Suspense>
      )}
    </details>
  );
});
