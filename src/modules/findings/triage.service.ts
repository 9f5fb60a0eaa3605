import type { Kysely, Transaction } from 'kysely';
import type { UserPrincipal } from '../../access/principal.ts';
import type { DB, FindingStatus } from '../../db/schema.ts';
import { badRequest, conflict } from '../../errors.ts';
import { applyAssignee, requireAssignee } from './assign.service.ts';
import type { FindingDetailRecord } from './findings.schema.ts';
import { findingDetail } from './findings.service.ts';
import { allowedNextStatuses, checkTransition } from '../../domain/findings/lifecycle.ts';
import { changeStatus as changeFindingStatus } from '../../domain/findings/status.ts';
import { recordTimeline } from '../../domain/findings/timeline.ts';
import { lockOne, lockWritable } from './triage.guard.ts';
import type { ResolvedInApplication } from '../../access/resources.ts';
import { markReviewed, type LockedFinding } from './triage.repository.ts';
import type { BulkInput, BulkResult, ReviewInput } from './triage.schema.ts';

const invalidTransition = (finding: LockedFinding, to: FindingStatus) =>
  conflict('invalid_transition', `A finding cannot move from ${finding.status} to ${to}`, {
    from: finding.status,
    to,
    allowed: allowedNextStatuses(finding.status),
  });

/** Moves `findings` (all allowed moves) to `to` with a timeline entry and event for each. */
function applyStatus(
  trx: Transaction<DB>,
  user: UserPrincipal,
  findings: readonly LockedFinding[],
  to: FindingStatus,
  now: Date,
  detail?: Record<string, unknown>,
): Promise<void> {
  return changeFindingStatus(
    trx,
    findings.map((finding) => ({
      findingId: finding.id,
      applicationId: finding.application_id,
      from: finding.status,
      to,
      ...(detail ? { detail } : {}),
    })),
    { actor: { userId: user.id }, reason: 'status_changed', now },
  );
}

/** PATCH /status: same status → unchanged; allowed → changed with timeline and event; else 409. */
export async function triageFindingStatus(
  db: Kysely<DB>,
  user: UserPrincipal,
  resolved: ResolvedInApplication,
  to: FindingStatus,
): Promise<FindingDetailRecord> {
  const id = await db.transaction().execute(async (trx) => {
    const finding = await lockOne(trx, resolved);
    const check = checkTransition(finding.status, to);
    if (check === 'invalid') throw invalidTransition(finding, to);
    if (check === 'allowed') await applyStatus(trx, user, [finding], to, new Date());
    return finding.id;
  });
  return findingDetail(db, id);
}

/** PATCH /review: marks the finding reviewed by the caller and optionally applies a status move. */
export async function reviewFinding(
  db: Kysely<DB>,
  user: UserPrincipal,
  resolved: ResolvedInApplication,
  input: ReviewInput,
): Promise<FindingDetailRecord> {
  const id = await db.transaction().execute(async (trx) => {
    const finding = await lockOne(trx, resolved);
    const now = new Date();
    if (input.status !== undefined) {
      const check = checkTransition(finding.status, input.status);
      if (check === 'invalid') throw invalidTransition(finding, input.status);
      if (check === 'allowed') await applyStatus(trx, user, [finding], input.status, now, { via: 'review' });
    }
    await markReviewed(trx, finding.id, user.id, now);
    await recordTimeline(trx, [{ findingId: finding.id, type: 'reviewed', actor: { userId: user.id } }]);
    return finding.id;
  });
  return findingDetail(db, id);
}

/**
 * PATCH /api/findings: one status and/or assignee for up to 1,000 findings, all or nothing.
 * 404 lists unknown or unreadable ids, 403 read-only ones, 409 those whose move is not allowed.
 */
export async function bulkUpdate(db: Kysely<DB>, user: UserPrincipal, input: BulkInput): Promise<BulkResult> {
  if (input.status === undefined && input.assignee === undefined) {
    throw badRequest('validation_failed', 'Give status, assignee or both', [
      { path: 'body', message: 'must have status or assignee' },
    ]);
  }
  const ids = [...new Set(input.ids)];
  return db.transaction().execute(async (trx) => {
    const findings = await lockWritable(trx, user, ids);
    const now = new Date();
    const changed = new Set<number>();
    if (input.status !== undefined) {
      const to = input.status;
      const invalid = findings.filter((finding) => checkTransition(finding.status, to) === 'invalid');
      if (invalid.length > 0) {
        throw conflict('invalid_transition', `${invalid.length} finding(s) cannot move to ${to}`, {
          ids: invalid.map((finding) => finding.id),
          to,
          findings: invalid.map((finding) => ({
            id: finding.id,
            from: finding.status,
            allowed: allowedNextStatuses(finding.status),
          })),
        });
      }
      const moving = findings.filter((finding) => finding.status !== to);
      await applyStatus(trx, user, moving, to, now, { via: 'bulk' });
      for (const finding of moving) changed.add(finding.id);
    }
    if (input.assignee !== undefined) {
      const assigneeId = input.assignee;
      if (assigneeId !== null) {
        await requireAssignee(
          trx,
          assigneeId,
          [...new Set(findings.map((finding) => finding.application_id))],
          'body.assignee',
        );
      }
      for (const id of await applyAssignee(trx, user, findings, assigneeId, { kind: 'keep' }, now)) {
        changed.add(id);
      }
    }
    const updated = ids.filter((id) => changed.has(id));
    return { updated: updated.length, ids: updated, unchanged: ids.filter((id) => !changed.has(id)) };
  });
}
