import { sql, type Transaction } from 'kysely';
import type { DB, FindingStatus } from '../../db/schema.ts';

/** Who made a change: a user, or the system (`ingest`, `policy:<id>`). */
export type Actor = { userId: number } | { system: string };

export interface TimelineEntry {
  findingId: number;
  type:
    | 'status_changed'
    | 'reassigned'
    | 'reviewed'
    | 'commented'
    | 'inherited'
    | 'fixed'
    | 'reopened'
    | 'severity_changed'
    | 'sla_breached'
    /** Covered by an acceptance (status → false_positive), or handed over to another one. */
    | 'accepted'
    | 'acceptance_expired'
    | 'acceptance_revoked'
    /** A pending acceptance over the finding was approved or rejected (no status change). */
    | 'acceptance_approved'
    | 'acceptance_rejected'
    /** The reason or comment of a dismissal changed, the status staying `false_positive`. */
    | 'dismissal_changed'
    /** An imported VEX document says it is fixed (the status is left to scans and people). */
    | 'vex_statement'
    /** The due date moved for a reason other than a person (detail: from, to, reason `kev`, kev_due_date). */
    | 'due_date_changed'
    /** An enrichment import listed one of its CVEs in CISA KEV (detail: cve date_added, due_date, snapshot_id). */
    | 'kev_listed';
  actor: Actor;
  scanId?: number | null;
  fromStatus?: FindingStatus | null;
  toStatus?: FindingStatus | null;
  fromAssigneeId?: number | null;
  toAssigneeId?: number | null;
  detail?: Record<string, unknown>;
}

/**
 * Appends timeline entries in the caller's transaction: one statement whatever their number, the
 * rows passed as one JSON parameter (a policy confirming 100k new findings writes 100k entries).
 */
export async function recordTimeline(trx: Transaction<DB>, entries: readonly TimelineEntry[]): Promise<void> {
  if (entries.length === 0) return;
  const rows = entries.map((entry) => ({
    finding_id: entry.findingId,
    type: entry.type,
    actor_user_id: 'userId' in entry.actor ? entry.actor.userId : null,
    actor_system: 'system' in entry.actor ? entry.actor.system : null,
    scan_id: entry.scanId ?? null,
    from_status: entry.fromStatus ?? null,
    to_status: entry.toStatus ?? null,
    from_assignee_id: entry.fromAssigneeId ?? null,
    to_assignee_id: entry.toAssigneeId ?? null,
    detail: entry.detail ?? null,
  }));
  await sql`
    insert into finding_events (finding_id, type, actor_user_id, actor_system, scan_id, from_status, to_status,
      from_assignee_id, to_assignee_id, detail)
    select finding_id, type, actor_user_id, actor_system, scan_id, from_status, to_status, from_assignee_id,
      to_assignee_id, detail
    from json_to_recordset(${JSON.stringify(rows)}::json) as x(finding_id integer, type text, actor_user_id integer,
      actor_system text, scan_id integer, from_status text, to_status text, from_assignee_id integer,
      to_assignee_id integer, detail jsonb)`.execute(trx);
}
