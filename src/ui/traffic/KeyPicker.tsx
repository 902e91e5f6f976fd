import { keySpecOfText, keySpecText } from '../../trace';
import type { KeySpec } from '../../trace';

/** Key choices every log offers (see KeySpec), by their word (src/trace/keys.ts `keySpecText`). */
const KEY_CHOICES: { id: string; label: string }[] = [
  { id: 'client', label: 'client address' },
  { id: 'xff-first', label: 'X-Forwarded-For, first hop' },
  { id: 'xff-last', label: 'X-Forwarded-For, last hop' },
  { id: 'path', label: 'path' },
  { id: 'client+path', label: 'client address + path' },
  { id: 'all', label: 'one key for everything' },
];

/** The select's value for a field (a column or a header): `field:<name>`. */
const FIELD = 'field:';

export interface KeyPickerProps {
  /** The key the loaded (or next) log is read with. */
  keySpec: KeySpec;
  /**
   * What the loaded file can be keyed by besides the built-in choices: its columns (CSV/TSV, JSON
   * lines) or the request headers its entries carry (HAR). Empty for line logs.
   */
  fields: readonly string[];
  /** Whether `fields` are HAR request headers (named so) rather than columns. */
  headers: boolean;
  /** Reads the file again keyed by `spec`. */
  onPick: (spec: KeySpec) => void;
}

/**
 * The key requests are counted under: the choices a gateway offers, and any column of the file
 * (or, for a HAR, any request header), each as the one part of the key.
 */
export function KeyPicker({ keySpec, fields, headers, onPick }: KeyPickerProps) {
  const value = keySpecText(keySpec) ?? 'client';
  // A field the key names that this file does not list (another file was loaded) stays choosable.
  const current = value.startsWith(FIELD) ? value.slice(FIELD.length) : null;
  const listed = current !== null && !fields.includes(current) ? [current, ...fields] : fields;
  return (
    <label className="field trace-key-picker">
      Key{' '}
      <select
        value={value}
        data-testid="trace-key"
        onChange={(e) => {
          onPick(keySpecOfText(e.target.value) ?? [{ kind: 'client' }]);
        }}
      >
        {KEY_CHOICES.map((c) => (
          <option key={c.id} value={c.id}>
            {c.label}
          </option>
        ))}
        {listed.length > 0 && (
          <optgroup label={headers ? 'Request header' : 'Column of the file'}>
            {listed.map((f) => (
              <option key={f} value={FIELD + f}>
                {headers ? `header ${f}` : `column ${f}`}
              </option>
            ))}
          </optgroup>
        )}
      </select>
    </label>
  );
}
