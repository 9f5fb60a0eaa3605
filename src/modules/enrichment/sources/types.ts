/**
 * The enrichment sources' contract, like the parsers' (ingest/parse/parsers/types.ts): bytes in,
 * provenance and rows out, no database. One file per published format; `index.ts` detects which.
 */

export type EnrichmentSource = 'epss' | 'kev';
export type EnrichmentFormat = 'epss_csv' | 'kev_json' | 'kev_csv';

/** Where a snapshot came from, as the file itself says. */
export interface SnapshotHeader {
  source: EnrichmentSource;
  format: EnrichmentFormat;
  /** EPSS `model_version`; KEV `catalogVersion` (the CSV form has none: its newest `dateAdded`). */
  version: string;
  /** EPSS `score_date` (a day); KEV `dateReleased` (the CSV form: its newest `dateAdded`). */
  dataDate: string;
  /** The exact moment the file names, when it names one (ISO 8601). */
  releasedAt: string | null;
}

export interface EpssRow {
  cve: string;
  epss: number;
  percentile: number;
}

export interface KevRow {
  cve: string;
  vendorProject: string;
  product: string;
  vulnerabilityName: string;
  dateAdded: string;
  shortDescription: string;
  requiredAction: string;
  dueDate: string;
  /** `Known` or `Unknown` as CISA writes it. */
  ransomware: boolean;
  notes: string;
  cwes: string[];
}

/** A malformed file: names the line (1-based) or the field, so the user can find it. */
export class EnrichmentFormatError extends Error {
  override name = 'EnrichmentFormatError';
  constructor(
    readonly where: string,
    message: string,
  ) {
    super(`${where}: ${message}`);
  }
}

export const CVE_ID = /^CVE-\d{4}-\d{4,9}$/;
export const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/;

/** A real calendar day `YYYY-MM-DD`. */
export function isDay(value: string): boolean {
  if (!ISO_DAY.test(value)) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
}
