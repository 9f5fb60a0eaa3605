import { CVE_ID, EnrichmentFormatError, isDay, type KevRow } from './types.ts';

/** The fields of one KEV entry, as CISA's schema names them, in the CSV's column order. */
export const KEV_FIELDS = [
  'cveID',
  'vendorProject',
  'product',
  'vulnerabilityName',
  'dateAdded',
  'shortDescription',
  'requiredAction',
  'dueDate',
  'knownRansomwareCampaignUse',
  'notes',
  'cwes',
] as const;

const REQUIRED = [
  'cveID',
  'vendorProject',
  'product',
  'vulnerabilityName',
  'dateAdded',
  'shortDescription',
  'requiredAction',
  'dueDate',
] as const;

const MAX_TEXT = 8 * 1024;

/**
 * One entry checked against CISA's schema (known_exploited_vulnerabilities_schema.json, see
 * test/fixtures/enrichment/README.md): the required strings present, `cveID` a CVE id, the dates
 * real days, `knownRansomwareCampaignUse` `Known` or `Unknown`, `cwes` CWE ids. `where` names the
 * entry for the error (`vulnerabilities[3]`, `line 5`).
 */
export function kevRow(entry: Record<string, unknown>, where: string, cwes: string[]): KevRow {
  const at = (field: string) => (where.startsWith('line') ? `${where}, field ${field}` : `${where}.${field}`);
  const text = (field: string): string => {
    const value = entry[field];
    if (value === undefined || value === null) return '';
    if (typeof value !== 'string') throw new EnrichmentFormatError(at(field), 'must be a string');
    if (value.includes('\u0000')) throw new EnrichmentFormatError(at(field), 'contains a NUL character');
    return value.length > MAX_TEXT ? value.slice(0, MAX_TEXT) : value;
  };
  for (const field of REQUIRED) {
    if (text(field).trim() === '') throw new EnrichmentFormatError(at(field), 'is required');
  }
  const cve = text('cveID').trim();
  if (!CVE_ID.test(cve))
    throw new EnrichmentFormatError(at('cveID'), `"${cve.slice(0, 40)}" is not a CVE id`);
  for (const field of ['dateAdded', 'dueDate'] as const) {
    if (!isDay(text(field).trim())) throw new EnrichmentFormatError(at(field), 'must be a day YYYY-MM-DD');
  }
  const ransomware = text('knownRansomwareCampaignUse').trim() || 'Unknown';
  if (ransomware !== 'Known' && ransomware !== 'Unknown') {
    throw new EnrichmentFormatError(at('knownRansomwareCampaignUse'), 'must be "Known" or "Unknown"');
  }
  for (const cwe of cwes) {
    if (!/^(CWE-\d{1,6}|NVD-CWE-(noinfo|Other))$/.test(cwe)) {
      throw new EnrichmentFormatError(at('cwes'), `"${cwe.slice(0, 40)}" is not a CWE id`);
    }
  }
  return {
    cve,
    vendorProject: text('vendorProject'),
    product: text('product'),
    vulnerabilityName: text('vulnerabilityName'),
    dateAdded: text('dateAdded').trim(),
    shortDescription: text('shortDescription'),
    requiredAction: text('requiredAction'),
    dueDate: text('dueDate').trim(),
    ransomware: ransomware === 'Known',
    notes: text('notes'),
    cwes,
  };
}
