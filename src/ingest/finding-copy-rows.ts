import { CopyBinaryWriter, type CopyType, type CopyValue } from '../db/copy-binary.ts';
import { RISK_FORMULA_VERSION, riskScore } from '../domain/findings/risk.ts';
import type { SlaDays } from '../domain/findings/sla.ts';
import {
  COMPUTED_FINDING_COLUMNS,
  FINDING_COLUMNS,
  NOW_FINDING_COLUMNS,
  STAGED_FINDING_COLUMNS,
  type ComputedFindingColumn,
  type NowFindingColumn,
  type StagedFindingColumn,
} from '../domain/findings/columns.ts';
import type { StagingRow } from './normalize-row.ts';

/**
 * A version's first upload copies the rows the staging thread knows to be the first of their
 * fingerprint straight into `findings` (first-upload.ts): it writes every column an insert gives a
 * value (domain/findings/columns.ts: staged, computed, or the insert's time), as the insert from
 * staging (merge.ts `insertStaged`) does. The rest take their defaults or stay null.
 */
type FindingCopyColumn = StagedFindingColumn | ComputedFindingColumn | NowFindingColumn;

export const FINDING_COPY_COLUMNS: readonly FindingCopyColumn[] = [
  ...STAGED_FINDING_COLUMNS,
  ...COMPUTED_FINDING_COLUMNS,
  ...NOW_FINDING_COLUMNS,
];
const FINDING_TYPES: readonly CopyType[] = FINDING_COPY_COLUMNS.map((column) => FINDING_COLUMNS[column].type);

/** A writer of finding rows in binary COPY format (`findingValues` gives a row's fields). */
export const findingWriter = (): CopyBinaryWriter => new CopyBinaryWriter(FINDING_TYPES);

/**
 * Where a first upload's findings go, and when: plain data, copied to the staging thread. `nowMicros`
 * is the transaction's `now()` (PostgreSQL: the upload's; PGlite: its opening's), in microseconds
 * since the Unix epoch: the findings' timestamps, as the insert's defaults would have set them.
 */
export interface DirectFindings {
  applicationId: number;
  versionId: number;
  scannerTypeId: number;
  scanId: number;
  /** The application's asset weight M (risk.ts `ASSET_WEIGHT`). */
  assetWeight: number;
  /** The application's SLA days (domain/findings/sla.ts). */
  slaDays: SlaDays;
  nowMicros: number;
}

const MICROS_PER_DAY = 86_400_000_000n;

/**
 * A new finding's due date: first seen (`now`) plus its severity's SLA days, each 24 hours, nothing
 * paused yet — `slaDueDate` in microseconds (domain/findings/sla.ts; what `slaDueDateSql` gives the
 * insert from staging, so either way of inserting agrees whatever the session's time zone); null
 * when the severity is not enforced.
 */
export const dueDateMicros = (
  nowMicros: number,
  severity: StagingRow['severity'],
  slaDays: SlaDays,
  concern: StagingRow['concern'] = 'security',
): bigint | null => {
  // A code-quality finding has no SLA (domain/findings/concern.ts), as `slaDueDateSql` says.
  if (concern === 'quality') return null;
  const days = slaDays[severity];
  return days === null ? null : BigInt(nowMicros) + BigInt(days) * MICROS_PER_DAY;
};

/** The finding a staged row becomes, as the insert from staging makes it, in `FINDING_COPY_COLUMNS` order. */
export function findingValues(row: StagingRow, into: DirectFindings): CopyValue[] {
  const now = BigInt(into.nowMicros);
  const values: Record<FindingCopyColumn, CopyValue> = {
    // Named one by one, not spread from `row`: a literal spread from the staging row took this
    // function from 1.4 µs to 95 µs a row (V8 builds such objects in dictionary mode), a 100k
    // first upload from ~5.5 to ~16 s. The type holds it to the registry's columns, no more, no less.
    application_id: into.applicationId,
    version_id: into.versionId,
    scanner_type_id: into.scannerTypeId,
    first_scan_id: into.scanId,
    last_scan_id: into.scanId,
    fingerprint: row.fingerprint,
    identity_base: row.base,
    category: row.category,
    kind: row.kind,
    concern: row.concern,
    title: row.title,
    severity: row.severity,
    severity_rank: row.severity_rank,
    severity_score: row.severity_score,
    status: row.initial_status,
    description: row.description,
    remediation: row.remediation,
    rule_id: row.rule_id,
    file_path: row.file_path,
    line: row.line,
    column: row.column,
    end_line: row.end_line,
    snippet: row.snippet,
    package_name: row.package_name,
    package_version: row.package_version,
    fixed_version: row.fixed_version,
    cve_ids: row.cve_ids,
    cwe_ids: row.cwe_ids,
    cwe_id: row.cwe_ids[0] ?? null,
    cvss_score: row.cvss_score,
    cvss_vector: row.cvss_vector,
    references: row.references,
    tool_name: row.tool_name,
    tool_version: row.tool_version,
    tool_fingerprint: row.tool_fingerprint,
    report_epss: row.report_epss,
    report_epss_percentile: row.report_epss_percentile,
    risk_severity: row.risk_severity,
    risk_exploitation: row.risk_exploitation,
    risk_age: 0,
    risk_asset: into.assetWeight,
    risk_score: riskScore({
      severity: row.risk_severity,
      exploitation: row.risk_exploitation,
      age: 0,
      asset: into.assetWeight,
    }),
    risk_formula_version: RISK_FORMULA_VERSION,
    due_date: dueDateMicros(into.nowMicros, row.severity, into.slaDays, row.concern),
    first_seen_at: now,
    last_seen_at: now,
    created_at: now,
    updated_at: now,
  };
  return FINDING_COPY_COLUMNS.map((column) => values[column]);
}
