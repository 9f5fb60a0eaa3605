import type { FindingRecord } from './findings.schema.ts';

/**
 * CSV rows of findings (RFC 4180: CRLF line ends, fields with a comma, quote or line break quoted,
 * quotes doubled). Text cells that a spreadsheet would run as a formula (starting with `=`, `+`,
 * `-`, `@`, tab or carriage return) get a leading `'`, as OWASP's CSV-injection advice says: a
 * finding title is written by whoever wrote the scanned code, not by the person opening the file.
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
