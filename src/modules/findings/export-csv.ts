import type { FindingRecord } from './findings.schema.ts';

/**
 * CSV rows of findings (RFC 4180: CRLF line ends, every text cell quoted, quotes doubled). A finding
 * title or path is written by whoever wrote the scanned code, not by the person opening the file, so
 * text a spreadsheet could run as a formula is neutralised with a leading `'` (OWASP's CSV-injection
 * advice) — at the start of the cell and at the start of every part a spreadsheet might split it into:
 * many locales split on `;`, others on `,` or tab, and some importers ignore the quotes.
 */

type Cell = string | number | null;

const COLUMNS: ReadonlyArray<[string, (finding: FindingRecord) => Cell]> = [
  ['id', (f) => f.id],
  ['application_id', (f) => f.application_id],
  ['version_id', (f) => f.version_id],
  ['severity', (f) => f.severity],
  ['status', (f) => f.status],
  ['title', (f) => f.title],
  ['scanner_type', (f) => f.scanner_type],
  ['scanner', (f) => f.scanner],
  ['rule_id', (f) => f.rule_id],
  ['file_path', (f) => f.file_path],
  ['line', (f) => f.line],
  ['cwe_id', (f) => f.cwe_id],
  ['cve_ids', (f) => f.cve_ids.join(';')],
  ['package_name', (f) => f.package_name],
  ['package_version', (f) => f.package_version],
  ['fixed_version', (f) => f.fixed_version],
  ['cvss_score', (f) => f.cvss_score],
  ['risk_score', (f) => f.risk_score],
  ['assignee', (f) => f.assignee?.email ?? null],
  ['due_date', (f) => f.due_date],
  ['first_seen_at', (f) => f.first_seen_at],
  ['last_seen_at', (f) => f.last_seen_at],
  ['fixed_at', (f) => f.fixed_at],
  ['fingerprint', (f) => f.fingerprint],
];

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
