import { iso } from '../../http/schemas.ts';
import type { AcceptanceRow } from './acceptances.repository.ts';
import type { AcceptanceRecord } from './acceptances.schema.ts';

/** Whether an acceptance in force ends within `days` of `now` (the Acceptances page's "expiring soon"). */
export function expiresWithin(row: AcceptanceRow, now: Date, days: number): boolean {
  return (
    row.status === 'active' &&
    row.expires_at !== null &&
    row.expires_at.getTime() - now.getTime() <= days * 24 * 60 * 60 * 1000
  );
}

export function presentAcceptance(row: AcceptanceRow, coveredCount?: number): AcceptanceRecord {
  return {
    id: row.id,
    group_id: row.group_id,
    application_id: row.application_id,
    status: row.status,
    reason: row.reason,
    justification: row.justification,
    impact_statement: row.impact_statement,
    comment: row.comment,
    match:
      row.finding_ids !== null
        ? { finding_ids: row.finding_ids }
        : {
            cve: row.match_cve,
            rule_id: row.match_rule_id,
            package: row.match_package,
            path_prefix: row.match_path_prefix,
          },
    expires_at: iso(row.expires_at),
    owner_id: row.owner_id,
    created_by: row.created_by,
    source: row.source,
    decided_by: row.decided_by,
    decided_at: iso(row.decided_at),
    decision_comment: row.decision_comment,
    ended_by: row.ended_by,
    ended_at: iso(row.ended_at),
    ...(coveredCount !== undefined ? { covered_findings: coveredCount } : {}),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}
