import { quoteText } from '../../core';
import { useId, useState } from 'react';
import type { ReactNode } from 'react';

/**
 * The message for text that is not a number: the field's own message for an impossible value (which
 * names the accepted range), with what was typed.
 */
function notANumber(label: ReactNode, text: string, check: (n: number) => string | null): string {
  const got = `got ${quoteText(text.trim(), 20)}`;
  const own = check(Number.NaN);
  if (own !== null) return `${own.replace(/, got .*$/s, '')}, ${got}`;
  return `${typeof label === 'string' ? label : 'this'} must be a number, ${got}`;
}

/**
 * A number input that keeps what the person typed, checks it with `check` (which returns the
 * problem, or null), and commits only valid numbers. Shows the problem next to the field.
 */
export function NumberField({
  label,
  value,
  unit,
  help,
  step,
  check,
  onCommit,
  width = '7em',
}: {
  label: ReactNode;
  value: number;
  unit?: string;
  help?: string;
  step?: number;
  /** The problem with `n` (e.g. the simulator's message for this field), or null. */
  check: (n: number) => string | null;
  onCommit: (n: number) => void;
  width?: string;
}) {
  const id = useId();
  const [text, setText] = useState(String(value));
  const [shown, setShown] = useState(value);
  // A new value from outside (an undo, a preset) replaces the text unless it is what we typed.
  if (shown !== value) {
    setShown(value);
    if (Number(text) !== value) setText(String(value));
  }
  const parsed = text.trim() === '' ? Number.NaN : Number(text);
  const error = Number.isFinite(parsed) ? check(parsed) : notANumber(label, text, check);
  return (
    <div className={`field${error !== null ? ' is-invalid' : ''}`}>
      <label htmlFor={id}>{label}</label>
      <span className="field-control">
        <input
          id={id}
          inputMode="decimal"
          value={text}
          step={step}
          style={{ width }}
          aria-invalid={error !== null}
          aria-describedby={
            error !== null ? `${id}-error` : help !== undefined ? `${id}-help` : undefined
          }
          onChange={(e) => {
            const next = e.target.value;
            setText(next);
            const n = next.trim() === '' ? Number.NaN : Number(next);
            if (Number.isFinite(n) && check(n) === null && n !== value) onCommit(n);
          }}
        />
        {unit !== undefined && <span className="param-unit">{unit}</span>}
      </span>
      {error !== null && (
        <p id={`${id}-error`} className="param-error" role="alert">
          {error}
        </p>
      )}
      {help !== undefined && error === null && (
        <p id={`${id}-help`} className="param-help">
          {help}
        </p>
      )}
    </div>
  );
}

/** A labelled select over string options. */
export function SelectField<T extends string>({
  label,
  value,
  options,
  help,
  onChange,
}: {
  label: ReactNode;
  value: T;
  /** `disabled`: shown but not choosable (its label says why). */
  options: ReadonlyArray<{ value: T; label: string; disabled?: boolean }>;
  help?: string;
  onChange: (value: T) => void;
}) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <span className="field-control">
        <select
          id={id}
          value={value}
          onChange={(e) => onChange(e.target.value as T)}
          aria-describedby={help !== undefined ? `${id}-help` : undefined}
        >
          {options.map((o) => (
            <option key={o.value} value={o.value} disabled={o.disabled === true}>
              {o.label}
            </option>
          ))}
        </select>
      </span>
      {help !== undefined && (
        <p id={`${id}-help`} className="param-help">
          {help}
        </p>
      )}
    </div>
  );
}
