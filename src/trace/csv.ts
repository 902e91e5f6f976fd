/**
 * The one CSV writer every file the page writes goes through (the decision log, the dry run's
 * changes, the compact trace): RFC 4180 fields, and text a spreadsheet would run as a formula
 * neutralised the same way everywhere (OWASP "CSV Injection": a cell starting with `=`, `+`, `-`,
 * `@`, tab or CR gets a leading `'`). A cell already starting with `'` gets one too, so the change
 * can be undone exactly (`csvText`): the compact trace reads its keys back unchanged.
 */

/** A cell starting with one of these gets a leading `'` (see the module comment). */
const GUARDED = /^[=+\-@\t\r']/;

/**
 * One CSV field: text neutralised (see above), then quoted when it holds a comma, a quote, CR or
 * LF, or starts or ends with white space (so a reader that trims keeps it), quotes doubled.
 * Numbers are written as they are; null is an empty field.
 */
export function csvField(value: string | number | null): string {
  if (value === null) return '';
  if (typeof value === 'number') return String(value);
  const text = GUARDED.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) || text !== text.trim() ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The text a field written by `csvField` held, once the CSV reader has unquoted it. */
export function csvText(cell: string): string {
  return cell.startsWith("'") ? cell.slice(1) : cell;
}
