/**
 * PostgreSQL's COPY text format (the default of `COPY … FROM`), written by hand because it is four
 * escapes and one array syntax: rows are lines, fields are tab-separated, `\N` is null.
 * https://www.postgresql.org/docs/current/sql-copy.html#id-1.9.3.55.9.2
 */

/** A field as COPY reads it: arrays become array literals (`text[]`, `integer[]`). */
export type CopyValue = string | number | boolean | null | undefined | readonly (string | number)[];

const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };
const NEEDS_COPY_ESCAPE = /[\\\n\r\t]/;

/** Backslash, newline, carriage return and tab would end a field or row: they travel escaped. */
function escapeCopy(text: string): string {
  return NEEDS_COPY_ESCAPE.test(text) ? text.replace(/[\\\n\r\t]/g, (char) => COPY_ESCAPES[char]!) : text;
}

/** An array literal with every element quoted, so commas, braces and spaces inside stay data. */
function arrayLiteral(items: readonly (string | number)[]): string {
  const inner = items.map((item) =>
    typeof item === 'number' ? String(item) : `"${item.replace(/[\\"]/g, (char) => `\\${char}`)}"`,
  );
  return `{${inner.join(',')}}`;
}

/**
 * One field. Numbers must be finite (COPY reads `NaN` and `Infinity` as such, which no column
 * here wants); strings must be free of NUL, which PostgreSQL text cannot hold — the ingest caps
 * and cleans them before they get here (cap-fields.ts).
 */
export function copyField(value: CopyValue): string {
  if (value === null || value === undefined) return '\\N';
  if (typeof value === 'string') return escapeCopy(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new RangeError(`COPY field is not a finite number: ${value}`);
    return String(value);
  }
  if (typeof value === 'boolean') return value ? 't' : 'f';
  return escapeCopy(arrayLiteral(value));
}

/** One row, newline-terminated. */
export const copyLine = (values: readonly CopyValue[]): string => `${values.map(copyField).join('\t')}\n`;
