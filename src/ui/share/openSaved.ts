/**
 * Opening the saved settings (the localStorage record): a chunk of its own, fetched before the
 * first render only when there are saved settings to open (the budget for the first load).
 *
 * saved settings open in ≤ 50 ms of decode and repair whatever they hold. A record the
 * page could not have written (past the limits of src/config/saved.ts: length, parts,
 * nesting, values, strings, fractions) is neither parsed nor deleted: the defaults open, the page says why and
 * offers the record as a download, and it stays in storage until the person changes a setting.
 * So is a record that is not JSON (it used to open the defaults and be overwritten at once).
 */
import { capMessages } from '../../config/url';
import { formatRepairIssue, repairConfig } from '../../config/repair';
// Not through the config barrel: a module it re-exports is counted part of the first load.
import { savedRecordOver } from '../../config/saved';
import { experimentById } from '../../config/experiments/registry';
import type { ExperimentRef } from '../../store';
import { defaultStart } from './session';
import type { SavedRefusal, Start } from './session';

/** What the page opens from the saved record `text` (see `startFrom`). */
export function openSaved(text: string, embed: boolean): Start {
  // Checked before JSON.parse; unreadable JSON is kept the same way.
  let over: SavedRefusal | null = savedRecordOver(text);
  let parsed: unknown = null;
  if (over === null) {
    try {
      parsed = JSON.parse(text);
    } catch {
      over = 'unreadable';
    }
  }
  if (over !== null) {
    return {
      ...defaultStart(embed),
      source: 'refused',
      problems: ['the saved settings were not opened'],
      refused: { text, over },
    };
  }
  const record = parsed as { config?: unknown; experiment?: unknown } | null;
  const repaired = repairConfig(record?.config);
  const ref = record?.experiment as ExperimentRef | null | undefined;
  const experiment =
    ref !== null &&
    ref !== undefined &&
    typeof ref.id === 'string' &&
    experimentById(ref.id) !== undefined
      ? { id: ref.id, variant: typeof ref.variant === 'string' ? ref.variant : null }
      : null;
  const problems = capMessages(
    repaired.issues.map((i) => `saved settings: ${formatRepairIssue(i)}`),
    'saved settings',
  );
  return { config: repaired.config, experiment, source: 'saved', problems, original: '', embed };
}
