import { EXPORTED_FINDING_COLUMNS } from '../../domain/findings/columns.ts';
import type { FindingRecord } from './findings.schema.ts';

/**
 * CSV rows of findings (RFC 4180: CRLF line ends, fields with a comma, quote or line break quoted,
 * quotes doubled). Text cells that a spreadsheet would run as a formula (starting with `=`, `+`,
 * `-`, `@`, tab or carriage return) get a leading `'`, as OWASP's CSV-injection advice says: a
 * finding title is written by whoever wrote the scanned code, not by the person opening the file.
 */

type Cell = string | number | null;

/** A finding's field as a cell: lists joined by `;`. */
const cellOf = (value: unknown): Cell => (Array.isArray(value) ? value.join(';') : (value as Cell));

type Column = readonly [heading: string, read: (finding: FindingRecord) => Cell];

/** Cells from other tables than `findings`, each after the exported column named. */
const JOINED: ReadonlyArray<readonly [after: string, column: Column]> = [
  ['title', ['scanner_type', (f) => f.scanner_type]],
  ['risk_score', ['assignee', (f) => f.assignee?.email ?? null]],
];

/** The registry's exported columns (domain/findings/columns.ts), in its order, and the joined cells. */
const COLUMNS: readonly Column[] = EXPORTED_FINDING_COLUMNS.flatMap(([heading]): Column[] => [
  [heading, (f) => cellOf(f[heading as keyof FindingRecord])],
  ...JOINED.filter(([after]) => after === heading).map(([, column]) => column),
]);

const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

/** One CSV field: neutralised if it could be read as a formula, quoted if it must be. */
export function csvCell(value: Cell): string {
  if (value === null) return '';
  if (typeof value === 'number') return String(value);
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function csvHeader(): string {
  return `${COLUMNS.map(([name]) => name).join(',')}\r\n`;
}

export function csvRow(finding: FindingRecord): string {
  return `${COLUMNS.map(([, read]) => csvCell(read(finding))).join(',')}\r\n`;
}
