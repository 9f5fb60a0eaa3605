import type { Insertable } from 'kysely';
import type { IngestStagingTable } from '../db/schema.ts';
import { exploitationPart, severityPart } from '../domain/findings/risk.ts';
import { severityRank } from '../domain/findings/severity.ts';
import { settledConcern } from '../domain/findings/concern.ts';
import { CopyBinaryWriter, type CopyType, type CopyValue } from '../db/copy-binary.ts';
import type { FindingIdentity } from './fingerprint.ts';
import type { NormalizedFinding } from './parse/parsers/types.ts';
import { STAGING_COLUMN_TYPES, type StagingColumnName } from '../domain/findings/columns.ts';

/**
 * Every staging column with its type, in the order the COPY rows carry them: the staging table's
 * own, then the finding columns an insert takes from the staged row (domain/findings/columns.ts).
 */
export const STAGING_COPY_TYPES: Readonly<Record<keyof IngestStagingTable, CopyType>> = STAGING_COLUMN_TYPES;

type StagingColumn = keyof IngestStagingTable;

// The Kysely table (db/schema.ts) and the registry name the same staging columns: one added to
// either alone fails to compile here.
type UndeclaredColumn =
  Exclude<keyof IngestStagingTable, StagingColumnName> | Exclude<StagingColumnName, keyof IngestStagingTable>;
const everyColumnDeclared: [UndeclaredColumn] extends [never] ? true : UndeclaredColumn = true;
void everyColumnDeclared;

export const STAGING_COLUMNS = Object.keys(STAGING_COPY_TYPES) as readonly StagingColumn[];
const STAGING_TYPES: readonly CopyType[] = STAGING_COLUMNS.map((column) => STAGING_COPY_TYPES[column]);

/** A writer of staging rows in binary COPY format (`stagingValues` gives a row's fields). */
export const stagingWriter = (): CopyBinaryWriter => new CopyBinaryWriter(STAGING_TYPES);

/** A staging row's fields in the order of `STAGING_COLUMNS`. */
export const stagingValues = (row: StagingRow): CopyValue[] => STAGING_COLUMNS.map((column) => row[column]);

export type StagingRow = Required<Insertable<IngestStagingTable>>;

const finiteOrNull = (value: number | null): number | null =>
  value !== null && Number.isFinite(value) ? value : null;

/**
 * A score (CVSS, a tool's): finite, and 0 below a magnitude no score means. A subnormal double
 * (a report's `5e-324`) is stored, but PostgreSQL's risk arithmetic on it underflows (22003) and
 * failed the upload.
 */
export const scoreOrNull = (value: number | null): number | null => {
  const finite = finiteOrNull(value);
  return finite !== null && Math.abs(finite) < 1e-9 ? 0 : finite;
};

/** A probability or percentile (EPSS): 0–1, tiny values as 0 (see `scoreOrNull`); anything else null. */
const unitOrNull = (value: number | null | undefined): number | null => {
  const score = scoreOrNull(value ?? null);
  return score !== null && score >= 0 && score <= 1 ? score : null;
};

const intOrNull = (value: number | null): number | null =>
  value !== null && Number.isSafeInteger(value) && Math.abs(value) <= 2_147_483_647 ? value : null;

/**
 * One parsed finding as a staging row, with its fingerprint and risk inputs. Its strings are already
 * capped and free of NUL (`capFindingFields`); numbers out of range become null.
 */
export function toStagingRow(
  uploadKey: string,
  seq: number,
  identity: FindingIdentity,
  finding: NormalizedFinding,
  maybeRepeat: boolean,
): StagingRow {
  const cvssScore = scoreOrNull(finding.cvssScore);
  const severityScore = scoreOrNull(finding.severityScore);
  const reportEpss = unitOrNull(finding.reportEpss);
  return {
    upload_key: uploadKey,
    seq,
    fingerprint: identity.base,
    base: identity.base,
    twin_ordinal: identity.twins,
    maybe_repeat: maybeRepeat,
    category: finding.category ?? '',
    kind: finding.kind,
    concern: settledConcern(finding.kind, finding.concern),
    title: finding.title || '(untitled finding)',
    severity: finding.severity,
    severity_rank: severityRank(finding.severity),
    severity_score: severityScore,
    initial_status: finding.initialStatus ?? 'open',
    description: finding.description,
    remediation: finding.remediation,
    rule_id: finding.ruleId,
    file_path: finding.filePath,
    line: intOrNull(finding.line),
    column: intOrNull(finding.column),
    end_line: intOrNull(finding.endLine),
    snippet: finding.snippet,
    package_name: finding.packageName,
    package_version: finding.packageVersion,
    fixed_version: finding.fixedVersion,
    cve_ids: finding.cveIds,
    cwe_ids: finding.cweIds.filter((id) => intOrNull(id) !== null),
    cvss_score: cvssScore,
    cvss_vector: finding.cvssVector,
    references: finding.references,
    tool_name: finding.toolName || 'unknown',
    tool_version: finding.toolVersion,
    tool_fingerprint: finding.toolFingerprint,
    report_epss: reportEpss,
    report_epss_percentile: reportEpss === null ? null : unitOrNull(finding.reportEpssPercentile),
    risk_severity: severityPart(finding.severity, cvssScore, severityScore),
    // No snapshot is consulted here: the report's EPSS until the enrichment job (after the upload)
    // finds a snapshot that knows the CVE.
    risk_exploitation: exploitationPart(finding.cveIds.length > 0, reportEpss, false),
  };
}
