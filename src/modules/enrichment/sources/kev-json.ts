import { EnrichmentFormatError, isDay, type KevRow, type SnapshotHeader } from './types.ts';
import { kevRow } from './kev-fields.ts';

/**
 * CISA's Known Exploited Vulnerabilities catalog, JSON form
 * (https://www.cisa.gov/sites/default/files/feeds/known_exploited_vulnerabilities.json):
 * `{ title, catalogVersion, dateReleased, count, vulnerabilities: [{ cveID, … }] }`. About 1,500
 * entries (≈ 1.5 MB): read whole, within the caller's size cap.
 */
export function parseKevJson(text: string): { header: SnapshotHeader; rows: KevRow[] } {
  let document: unknown;
  try {
    document = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    throw new EnrichmentFormatError('file', `not valid JSON (${(error as Error).message.slice(0, 120)})`);
  }
  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    throw new EnrichmentFormatError('file', 'expected the KEV catalog object');
  }
  const catalog = document as Record<string, unknown>;
  const version = catalog.catalogVersion;
  if (typeof version !== 'string' || !/^[\x21-\x7e]{1,100}$/.test(version)) {
    throw new EnrichmentFormatError('catalogVersion', 'is required (a short string)');
  }
  const released = catalog.dateReleased;
  const releasedAt = typeof released === 'string' ? new Date(released) : null;
  if (!releasedAt || Number.isNaN(releasedAt.getTime()) || !isDay(String(released).slice(0, 10))) {
    throw new EnrichmentFormatError('dateReleased', 'is required (an ISO 8601 date-time)');
  }
  if (!Array.isArray(catalog.vulnerabilities)) {
    throw new EnrichmentFormatError('vulnerabilities', 'is required (an array)');
  }
  const rows: KevRow[] = [];
  const seen = new Set<string>();
  catalog.vulnerabilities.forEach((entry: unknown, index) => {
    const where = `vulnerabilities[${index}]`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      throw new EnrichmentFormatError(where, 'must be an object');
    }
    const record = entry as Record<string, unknown>;
    const cwes = record.cwes ?? [];
    if (!Array.isArray(cwes) || !cwes.every((cwe) => typeof cwe === 'string')) {
      throw new EnrichmentFormatError(`${where}.cwes`, 'must be an array of strings');
    }
    const row = kevRow(record, where, cwes as string[]);
    if (seen.has(row.cve)) throw new EnrichmentFormatError(`${where}.cveID`, `${row.cve} appears twice`);
    seen.add(row.cve);
    rows.push(row);
  });
  if (catalog.count !== undefined && catalog.count !== rows.length) {
    throw new EnrichmentFormatError(
      'count',
      `says ${String(catalog.count)} but the catalog lists ${rows.length}`,
    );
  }
  return {
    header: {
      source: 'kev',
      format: 'kev_json',
      version,
      dataDate: releasedAt.toISOString().slice(0, 10),
      releasedAt: releasedAt.toISOString(),
    },
    rows,
  };
}
