import type { Transaction } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { recordAudit, type AuditContext } from '../../events/audit.ts';
import type { AcceptanceRow } from './acceptances.repository.ts';

/**
 * An acceptance's audit rows (docs/architecture.md, "The audit trail"): one per decision — made,
 * approved, rejected, extended, revoked, expired — with the acceptance's deciding fields before and
 * after. What it did to findings is counted in `details`, not written per finding (the finding
 * timeline has that). Each caller writes it last in its transaction.
 */

export type AcceptanceAuditAction =
  | 'acceptance.created'
  | 'acceptance.approved'
  | 'acceptance.rejected'
  | 'acceptance.extended'
  | 'acceptance.revoked'
  | 'acceptance.expired';

const fields = (row: AcceptanceRow) => ({
  status: row.status,
  reason: row.reason,
  expires_at: row.expires_at,
  group_id: row.group_id,
  application_id: row.application_id,
  finding_ids: row.finding_ids,
  match_cve: row.match_cve,
  match_rule_id: row.match_rule_id,
  match_package: row.match_package,
  match_path_prefix: row.match_path_prefix,
  owner_id: row.owner_id,
});

export async function recordAcceptanceAudit(
  trx: Transaction<DB>,
  audit: AuditContext,
  action: AcceptanceAuditAction,
  before: AcceptanceRow | null,
  after: AcceptanceRow,
  details: Record<string, unknown> = {},
): Promise<void> {
  await recordAudit(trx, audit, {
    action,
    target: { type: 'acceptance', id: after.id, label: after.reason },
    applicationId: after.application_id,
    before: before ? fields(before) : null,
    after: fields(after),
    details: Object.keys(details).length > 0 ? details : null,
  });
}
