import type { AuditEntry } from '../../events/audit.ts';
import type { FindingStatus } from '../../db/schema.ts';

/** The finding a triage audit row is about. */
interface AuditedFinding {
  id: number;
  application_id: number;
}

/** One `finding.status_changed` row per finding moved (bulk triage writes them in one statement). */
export function statusAudit(
  findings: readonly (AuditedFinding & { status: FindingStatus })[],
  to: FindingStatus,
  via?: string,
): AuditEntry[] {
  return findings
    .filter((finding) => finding.status !== to)
    .map((finding) => ({
      action: 'finding.status_changed',
      target: { type: 'finding', id: finding.id },
      applicationId: finding.application_id,
      before: { status: finding.status },
      after: { status: to },
      ...(via ? { details: { via } } : {}),
    }));
}

/** One `finding.reassigned` row per finding whose assignee or due date changed. */
export function assignmentAudit(
  findings: readonly (AuditedFinding & { assignee_id: number | null; due_date: Date | null })[],
  changedIds: readonly number[],
  assigneeId: number | null,
  dueDate: Date | null | undefined,
  via?: string,
): AuditEntry[] {
  const changed = new Set(changedIds);
  return findings
    .filter((finding) => changed.has(finding.id))
    .map((finding) => ({
      action: 'finding.reassigned',
      target: { type: 'finding', id: finding.id },
      applicationId: finding.application_id,
      before: {
        assignee_id: finding.assignee_id,
        ...(dueDate !== undefined ? { due_date: finding.due_date } : {}),
      },
      after: { assignee_id: assigneeId, ...(dueDate !== undefined ? { due_date: dueDate } : {}) },
      ...(via ? { details: { via } } : {}),
    }));
}
