import { EXPORTED_FINDING_COLUMNS } from '../../domain/findings/columns.ts';
import type { FindingRecord } from './findings.schema.ts';

/**
 * CSV rows of findings (RFC 4180: CRLF line ends, every text cell quoted, quotes doubled). A finding
 * title or path is written by whoever wrote the scanned code, not by the person opening the file, so
 * text a spreadsheet could run as a formula is neutralised with a leading `'` (OWASP's CSV-injection
 * advice) — at the start of the cell and at the start of every part a spreadsheet might split it into:
 * many locales split on `;`, others on `,` or tab, and some importers ignore the quotes.
 */

type Cell = string | number | null;

/** A finding's field as a cell: lists joined by `;`. */
const cellOf = (value: unknown): Cell => (Array.isArray(value) ? value.join(';') : (value as Cell));

type Column = readonly [heading: string, read: (finding: FindingRecord) => Cell];

/** Cells from other tables than `findings`, or derived (the SLA state), each after the exported column named. */
const JOINED: ReadonlyArray<readonly [after: string, column: Column]> = [
  ['title', ['scanner_type', (f) => f.scanner_type]],
  ['risk_score', ['assignee', (f) => f.assignee?.email ?? null]],
  ['due_date_source', ['sla_days_remaining', (f) => f.sla_days_remaining]],
  ['due_date_source', ['sla_breached', (f) => String(f.sla_breached)]],
];

/** The registry's exported columns (domain/findings/columns.ts), in its order, and the joined cells. */
const COLUMNS: readonly Column[] = EXPORTED_FINDING_COLUMNS.flatMap(([heading]): Column[] => [
  [heading, (f) => cellOf(f[heading as keyof FindingRecord])],
  ...JOINED.filter(([after]) => after === heading).map(([, column]) => column),
]);

const SEPARATORS = new Set([';', ',', '\t', '\r', '\n']);
/** A part that, past spaces and quotes a reader may drop, begins like a formula. */
const FORMULA_START = /^[ "]*[=+\-@\t\r]/;

/**
 * Text with a `'` before the start of the text and of every part after a separator (`;`, `,`, tab,
 * line break) that could be read as a formula (`=`, `+`, `-`, `@`, tab, CR).
 */
export function neutraliseFormulas(text: string): string {
  let result = '';
  let partStart = 0;
  for (let index = 0; index <= text.length; index += 1) {
    if (index === text.length || SEPARATORS.has(text[index] ?? '')) {
      const part = text.slice(partStart, index);
      // The separator itself (tab, CR) may begin a formula in a reader that does not split on it.
      const rest = text.slice(partStart, index + 1);
      result += FORMULA_START.test(rest) ? `'${part}` : part;
      if (index < text.length) result += text[index];
      partStart = index + 1;
    }
  }
  return result;
}

/** One CSV field: a number as is, text neutralised and always quoted. */
export function csvCell(value: Cell): string {
  if (value === null) return '';
  if (typeof value === 'number') return String(value);
  return `"${neutraliseFormulas(value).replaceAll('"', '""')}"`;
}

export function csvHeader(): string {
  return `${COLUMNS.map(([name]) => name).join(',')}\r\n`;
}

export function csvRow(finding: FindingRecord): string {
  return `${COLUMNS.map(([, read]) => csvCell(read(finding))).join(',')}\r\n`;
}
