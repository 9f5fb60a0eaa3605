import type { Insertable } from 'kysely';
import type { IngestStagingTable } from '../db/schema.ts';
import { exploitationPart, severityPart } from '../domain/findings/risk.ts';
import { severityRank } from '../domain/findings/severity.ts';
import { copyLine } from '../db/copy-text.ts';
import type { FindingIdentity } from './fingerprint.ts';
import type { NormalizedFinding } from './parsers/types.ts';

/** Every staging column, in the order the COPY rows carry them. */
export const STAGING_COLUMNS = [
  'upload_key',
  'seq',
  'fingerprint',
  'base',
  'twin_ordinal',
  'maybe_repeat',
  'category',
  'kind',
  'title',
  'severity',
  'severity_rank',
  'severity_score',
  'initial_status',
  'description',
  'remediation',
  'rule_id',
  'file_path',
  'line',
  'column',
  'end_line',
  'snippet',
  'package_name',
  'package_version',
  'fixed_version',
  'cve_ids',
  'cwe_ids',
  'cvss_score',
  'cvss_vector',
  'references',
  'tool_name',
  'tool_version',
  'tool_fingerprint',
  'risk_severity',
  'risk_exploitation',
] as const satisfies readonly (keyof IngestStagingTable)[];

// A column added to the table but not to the list fails to compile here.
type UncopiedColumn = Exclude<keyof IngestStagingTable, (typeof STAGING_COLUMNS)[number]>;
const everyColumnCopied: [UncopiedColumn] extends [never] ? true : UncopiedColumn = true;
void everyColumnCopied;

export type StagingRow = Required<Insertable<IngestStagingTable>>;

const finiteOrNull = (value: number | null): number | null =>
  value !== null && Number.isFinite(value) ? value : null;

const intOrNull = (value: number | null): number | null =>
  value !== null && Number.isSafeInteger(value) && Math.abs(value) <= 2_147_483_647 ? value : null;

/** A staging row as one line of COPY text. */
export const stagingLine = (row: StagingRow): string =>
  copyLine(STAGING_COLUMNS.map((column) => row[column]));

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
  const cvssScore = finiteOrNull(finding.cvssScore);
  const severityScore = finiteOrNull(finding.severityScore);
  return {
    upload_key: uploadKey,
    seq,
    fingerprint: identity.base,
    base: identity.base,
    twin_ordinal: identity.twins,
    maybe_repeat: maybeRepeat,
    category: finding.category ?? '',
    kind: finding.kind,
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
    risk_severity: severityPart(finding.severity, cvssScore, severityScore),
    risk_exploitation: exploitationPart(finding.cveIds.length > 0, null, false),
  };
}
