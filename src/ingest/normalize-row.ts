import type { Insertable } from 'kysely';
import type { IngestStagingTable } from '../db/schema.ts';
import { exploitationPart, SEVERITY_RANK, severityPart } from '../modules/findings/risk.ts';
import type { FindingIdentity } from './fingerprint.ts';
import type { NormalizedFinding } from './parsers/types.ts';

/** Field caps: a finding is for people to read; a megabyte "title" is a broken or hostile report. */
const MAX = { title: 500, text: 100_000, snippet: 10_000, short: 2_000, list: 200 } as const;

/** PostgreSQL text cannot hold NUL; tools sometimes emit it in snippets. */
function clean(value: string | null, max: number): string | null {
  if (value === null) return null;
  const text = value.includes('\u0000') ? value.replaceAll('\u0000', '') : value;
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

const finiteOrNull = (value: number | null): number | null =>
  value !== null && Number.isFinite(value) ? value : null;

const intOrNull = (value: number | null): number | null =>
  value !== null && Number.isSafeInteger(value) && Math.abs(value) <= 2_147_483_647 ? value : null;

/** One parsed finding as a staging row: cleaned, capped, with its fingerprint and risk inputs. */
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
    category: clean(finding.category, MAX.short) ?? '',
    kind: finding.kind,
    title: clean(finding.title, MAX.title) || '(untitled finding)',
    severity: finding.severity,
    severity_rank: SEVERITY_RANK[finding.severity],
    severity_score: severityScore,
    initial_status: finding.initialStatus ?? 'open',
    description: clean(finding.description, MAX.text),
    remediation: clean(finding.remediation, MAX.text),
    rule_id: clean(finding.ruleId, MAX.short),
    file_path: clean(finding.filePath, MAX.short),
    line: intOrNull(finding.line),
    column: intOrNull(finding.column),
    end_line: intOrNull(finding.endLine),
    snippet: clean(finding.snippet, MAX.snippet),
    package_name: clean(finding.packageName, MAX.short),
    package_version: clean(finding.packageVersion, MAX.short),
    fixed_version: clean(finding.fixedVersion, MAX.short),
    cve_ids: finding.cveIds.slice(0, MAX.list).map((id) => clean(id, 100) ?? ''),
    cwe_ids: finding.cweIds.filter((id) => intOrNull(id) !== null).slice(0, MAX.list),
    cvss_score: cvssScore,
    cvss_vector: clean(finding.cvssVector, MAX.short),
    references: finding.references.slice(0, MAX.list).map((ref) => clean(ref, MAX.short) ?? ''),
    tool_name: clean(finding.toolName, MAX.short) || 'unknown',
    tool_version: clean(finding.toolVersion, MAX.short),
    tool_fingerprint: clean(finding.toolFingerprint, MAX.short),
    risk_severity: severityPart(finding.severity, cvssScore, severityScore),
    risk_exploitation: exploitationPart(finding.cveIds.length > 0, null, false),
  };
}
