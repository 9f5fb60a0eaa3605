import type { Insertable } from 'kysely';
import type { IngestStagingTable } from '../db/schema.ts';
import { exploitationPart, severityPart } from '../domain/findings/risk.ts';
import { severityRank } from '../domain/findings/severity.ts';
import type { FindingIdentity } from './fingerprint.ts';
import type { NormalizedFinding } from './parsers/types.ts';

const finiteOrNull = (value: number | null): number | null =>
  value !== null && Number.isFinite(value) ? value : null;

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
): Insertable<IngestStagingTable> {
  const cvssScore = finiteOrNull(finding.cvssScore);
  const severityScore = finiteOrNull(finding.severityScore);
  return {
    upload_key: uploadKey,
    seq,
    fingerprint: identity.base,
    base: identity.base,
    twin_ordinal: identity.twins,
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
