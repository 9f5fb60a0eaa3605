import type { Selectable } from 'kysely';
import type { FindingStatus, TrackerIssuesTable } from '../../db/schema.ts';
import { presentTrackerIssue } from '../issue-trackers/issue-trackers.presenter.ts';
import type { TrackerIssueRecord } from '../issue-trackers/issue-trackers.schema.ts';
import { iso } from '../../http/schemas.ts';
import { slaState } from '../../domain/findings/sla.ts';
import { EXPLOITATION_EXPLANATION, exploitationSource } from '../../domain/findings/risk.ts';
import type { FindingRow, TimelineRow } from './findings.repository.ts';
import type { FindingRecord, TimelineEntryRecord } from './findings.schema.ts';

/** Links first, then the CVE ids no link already names. */
function references(links: readonly string[], cveIds: readonly string[]): string[] {
  const seen = new Set(links);
  return [...links, ...cveIds.filter((cve) => !seen.has(cve))];
}

/** A finding as the API shows it; its SLA state is read at `now` (domain/findings/sla.ts). */
export function presentFinding(row: FindingRow, now: Date = new Date()): FindingRecord {
  const sla = slaState(row, now);
  // The imported snapshot's EPSS wins; the report's own is shown (and scored) only while no snapshot
  // knows the finding's CVEs (domain/findings/enrichment.ts).
  const fromSnapshot = row.epss_snapshot_id !== null;
  const epss = fromSnapshot ? row.epss : (row.epss ?? row.report_epss);
  const epssPercentile = fromSnapshot
    ? row.epss_percentile
    : row.epss !== null
      ? row.epss_percentile
      : row.report_epss_percentile;
  const source = exploitationSource(row.cve_ids.length > 0, epss, row.in_kev, fromSnapshot);
  return {
    id: row.id,
    application_id: row.application_id,
    version_id: row.version_id,
    scan_id: row.seen_scan_id,
    first_scan_id: row.first_scan_id,
    scanner_type_id: row.scanner_type_id,
    scanner_type: row.scanner_type_name,
    scanner: row.tool_name,
    tool_version: row.tool_version,
    kind: row.kind,
    concern: row.concern,
    category: row.category,
    title: row.title,
    severity: row.severity,
    status: row.status,
    description: row.description,
    remediation: row.remediation,
    rule_id: row.rule_id,
    location: { file_path: row.file_path, line: row.line, column: row.column, end_line: row.end_line },
    file_path: row.file_path,
    line: row.line,
    snippet: row.snippet,
    package_name: row.package_name,
    package_version: row.package_version,
    fixed_version: row.fixed_version,
    cve_ids: row.cve_ids,
    cwe_id: row.cwe_id,
    cwe_ids: row.cwe_ids,
    cvss_score: row.cvss_score,
    cvss_vector: row.cvss_vector,
    references: references(row.references, row.cve_ids),
    fingerprint: row.fingerprint,
    dismissal_reason: row.dismissal_reason,
    dismissal_comment: row.dismissal_comment,
    acceptance_id: row.acceptance_id,
    epss,
    epss_percentile: epssPercentile,
    report_epss: row.report_epss,
    report_epss_percentile: row.report_epss_percentile,
    in_kev: row.in_kev,
    kev:
      row.in_kev && row.kev_date_added !== null && row.kev_due_date !== null
        ? {
            date_added: row.kev_date_added,
            due_date: row.kev_due_date,
            ransomware: row.kev_ransomware ?? false,
          }
        : null,
    enrichment: {
      epss_snapshot_id: row.epss_snapshot_id,
      epss_source: fromSnapshot ? 'snapshot' : epss !== null ? 'report' : null,
      kev_snapshot_id: row.kev_snapshot_id,
    },
    risk_score: row.risk_score,
    risk: {
      score: row.risk_score,
      formula_version: row.risk_formula_version,
      severity: row.risk_severity,
      exploitation: row.risk_exploitation,
      age: row.risk_age,
      asset: row.risk_asset,
      exploitation_source: source,
      exploitation_explanation: EXPLOITATION_EXPLANATION[source],
    },
    assignee_id: row.assignee_id,
    assignee:
      row.assignee_id !== null && row.assignee_email !== null
        ? { id: row.assignee_id, email: row.assignee_email, name: row.assignee_name ?? '' }
        : null,
    due_date: iso(row.due_date),
    due_date_source: row.due_date_source,
    sla_days_remaining: sla.daysRemaining,
    sla_breached: sla.breached,
    sla_breached_at: iso(row.sla_breached_at),
    reviewed_at: iso(row.reviewed_at),
    reviewed_by: row.reviewed_by,
    first_seen_at: iso(row.first_seen_at),
    last_seen_at: iso(row.seen_at),
    fixed_at: iso(row.fixed_at),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

function presentActor(row: TimelineRow): TimelineEntryRecord['actor'] {
  if (row.actor_user_id !== null && row.actor_email !== null) {
    return { type: 'user', id: row.actor_user_id, email: row.actor_email, name: row.actor_name ?? '' };
  }
  return { type: 'system', name: row.actor_system ?? 'deleted-user' };
}

export function presentTimelineEntry(row: TimelineRow): TimelineEntryRecord {
  return {
    id: row.id,
    type: row.type,
    actor: presentActor(row),
    from_status: row.from_status,
    to_status: row.to_status,
    from_assignee_id: row.from_assignee_id,
    to_assignee_id: row.to_assignee_id,
    scan_id: row.scan_id,
    detail: row.detail,
    created_at: iso(row.created_at),
  };
}

/**
 * The `created` entry ingest does not write (one row per new finding would slow 100k-finding
 * uploads). Its status is the one before the first recorded status change, else the current one.
 */
export function createdEntry(finding: FindingRow, rows: readonly TimelineRow[]): TimelineEntryRecord {
  const firstChange = rows.find((row) => row.from_status !== null);
  const initialStatus: FindingStatus = firstChange?.from_status ?? finding.status;
  return {
    id: null,
    type: 'created',
    actor: { type: 'system', name: 'ingest' },
    from_status: null,
    to_status: initialStatus,
    from_assignee_id: null,
    to_assignee_id: null,
    scan_id: finding.first_scan_id,
    detail: null,
    created_at: iso(finding.first_seen_at),
  };
}

/** The finding's tracker issue as the detail shows it (the link row, or null). */
export function presentFindingIssue(
  row: Selectable<TrackerIssuesTable> | undefined,
): TrackerIssueRecord | null {
  return row ? presentTrackerIssue(row) : null;
}

export function presentTimeline(finding: FindingRow, rows: readonly TimelineRow[]): TimelineEntryRecord[] {
  return [createdEntry(finding, rows), ...rows.map(presentTimelineEntry)];
}
