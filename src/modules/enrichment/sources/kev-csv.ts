import { EnrichmentFormatError, type KevRow, type SnapshotHeader } from './types.ts';
import { KEV_FIELDS, kevRow } from './kev-fields.ts';

/**
 * CISA's KEV catalog, CSV form (known_exploited_vulnerabilities.csv): a header line of the JSON's
 * entry fields, then one quoted RFC 4180 record per entry; `cwes` is a comma-separated list in one
 * field. The CSV carries no catalog version or release date: its newest `dateAdded` stands for both.
 */

/** RFC 4180 records with the line each starts on; quoted fields may hold commas, quotes and newlines. */
function* records(text: string): Generator<{ line: number; fields: string[] }> {
  let fields: string[] = [];
  let field = '';
  let quoted = false;
  let line = 1;
  let start = 1;
  let any = false;
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i]!;
    if (quoted) {
      if (char === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i += 1;
        } else quoted = false;
      } else {
        if (char === '\n') line += 1;
        field += char;
      }
      continue;
    }
    if (char === '"' && field === '') {
      quoted = true;
      any = true;
    } else if (char === ',') {
      fields.push(field);
      field = '';
      any = true;
    } else if (char === '\n' || char === '\r') {
      if (char === '\r' && text[i + 1] === '\n') i += 1;
      fields.push(field);
      if (any || field !== '') yield { line: start, fields };
      fields = [];
      field = '';
      any = false;
      line += 1;
      start = line;
    } else {
      field += char;
      any = true;
    }
  }
  if (quoted) throw new EnrichmentFormatError(`line ${start}`, 'a quoted field is not closed');
  if (any || field !== '') {
    fields.push(field);
    yield { line: start, fields };
  }
}

export function looksLikeKevCsv(head: string): boolean {
  return /^\uFEFF?"?cveID"?,"?vendorProject"?/.test(head);
}

export function parseKevCsv(text: string): { header: SnapshotHeader; rows: KevRow[] } {
  const iterator = records(text.replace(/^\uFEFF/, ''));
  const first = iterator.next();
  const columns = first.done ? [] : first.value.fields.map((name) => name.trim());
  const missing = KEV_FIELDS.filter((name) => name !== 'notes' && name !== 'cwes' && !columns.includes(name));
  if (missing.length > 0) {
    throw new EnrichmentFormatError('line 1', `the header lacks ${missing.join(', ')}`);
  }
  const rows: KevRow[] = [];
  const seen = new Set<string>();
  let newest = '';
  for (const { line, fields } of iterator) {
    if (fields.length !== columns.length) {
      throw new EnrichmentFormatError(
        `line ${line}`,
        `expected ${columns.length} fields, found ${fields.length}`,
      );
    }
    const entry = Object.fromEntries(columns.map((name, index) => [name, fields[index]]));
    const cwes = String(entry.cwes ?? '')
      .split(',')
      .map((cwe) => cwe.trim())
      .filter((cwe) => cwe !== '');
    const row = kevRow(entry, `line ${line}`, cwes);
    if (seen.has(row.cve))
      throw new EnrichmentFormatError(`line ${line}, field cveID`, `${row.cve} appears twice`);
    seen.add(row.cve);
    if (row.dateAdded > newest) newest = row.dateAdded;
    rows.push(row);
  }
  if (rows.length === 0) throw new EnrichmentFormatError('line 2', 'the catalog lists no vulnerability');
  return {
    header: {
      source: 'kev',
      format: 'kev_csv',
      version: `csv-${newest}`,
      dataDate: newest,
      releasedAt: null,
    },
    rows,
  };
}
