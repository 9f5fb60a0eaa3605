import type { Kysely, Transaction } from 'kysely';
import type { UserPrincipal } from '../../access/principal.ts';
import type { DB, FindingStatus } from '../../db/schema.ts';
import { badRequest, conflict } from '../../errors.ts';
import { applyAssignee, requireAssignee } from './assign.service.ts';
import type { FindingDetailRecord } from './findings.schema.ts';
import { findingDetail } from './findings.service.ts';
import { allowedNextStatuses, checkTransition } from '../../domain/findings/lifecycle.ts';
import { changeStatus as changeFindingStatus, type Dismissal } from '../../domain/findings/status.ts';
import { recordTimeline } from '../../domain/findings/timeline.ts';
import { lockOne, lockWritable } from './triage.guard.ts';
import { recordAudit, type AuditContext, type AuditEntry } from '../../events/audit.ts';
import { assignmentAudit, statusAudit } from './finding-audit.ts';
import type { ResolvedInApplication } from '../../access/resources.ts';
import { markReviewed, setDismissal, type LockedFinding } from './triage.repository.ts';
import type { BulkInput, BulkResult, DismissalInput, ReviewInput } from './triage.schema.ts';

const invalidTransition = (finding: LockedFinding, to: FindingStatus) =>
  conflict('invalid_transition', `A finding cannot move from ${finding.status} to ${to}`, {
    from: finding.status,
    to,
    allowed: allowedNextStatuses(finding.status),
  });

/**
 * The dismissal a request gives: only with `status: false_positive` (400 otherwise); undefined when it
 * gives none (the spec's clients), which dismisses without a reason.
 */
function dismissalOf(input: DismissalInput): Dismissal | undefined {
  const given = input.dismissal_reason != null || input.dismissal_comment != null;
  if (!given) return undefined;
  if (input.status !== 'false_positive') {
    const path = input.dismissal_reason != null ? 'body.dismissal_reason' : 'body.dismissal_comment';
    throw badRequest('validation_failed', 'A dismissal reason or comment goes with status false_positive', [
      { path, message: 'is allowed only with status false_positive' },
    ]);
  }
  return { reason: input.dismissal_reason ?? null, comment: input.dismissal_comment ?? null };
}

/**
 * Findings an acceptance covers stay dismissed while it is in force: moving one, or changing its
 * dismissal, is a 409 naming the acceptance (revoke it, or let it expire).
 */
function refuseCovered(findings: readonly LockedFinding[], to: FindingStatus, dismissal?: Dismissal): void {
  const covered = findings.filter(
    (finding) => finding.acceptance_id !== null && (to !== finding.status || dismissal !== undefined),
  );
  if (covered.length === 0) return;
  throw conflict(
    'covered_by_acceptance',
    `${covered.length === 1 ? 'The finding is' : `${covered.length} findings are`} covered by an acceptance: revoke it to change ${covered.length === 1 ? 'its' : 'their'} status`,
    {
      ids: covered.map((finding) => finding.id),
      acceptance_ids: [...new Set(covered.map((finding) => finding.acceptance_id))],
    },
  );
}

/**
 * A reason or comment given for findings already `false_positive` (dismissed before reasons
 * existed, or by their tool): set, with a timeline entry; no status change, no event.
 */
async function redismiss(
  trx: Transaction<DB>,
  user: UserPrincipal,
  findings: readonly LockedFinding[],
  dismissal: Dismissal,
  now: Date,
): Promise<number[]> {
  const changing = findings.filter(
    (finding) =>
      finding.status === 'false_positive' &&
      (finding.dismissal_reason !== dismissal.reason || finding.dismissal_comment !== dismissal.comment),
  );
  const ids = changing.map((finding) => finding.id);
  await setDismissal(trx, ids, dismissal, now);
  await recordTimeline(
    trx,
    changing.map((finding) => ({
      findingId: finding.id,
      type: 'dismissal_changed',
      actor: { userId: user.id },
      detail: {
        from: { dismissal_reason: finding.dismissal_reason, dismissal_comment: finding.dismissal_comment },
        to: { dismissal_reason: dismissal.reason, dismissal_comment: dismissal.comment },
      },
    })),
  );
  return ids;
}

/** Moves `findings` (all allowed moves) to `to` with a timeline entry and event for each. */
function applyStatus(
  trx: Transaction<DB>,
  user: UserPrincipal,
  findings: readonly LockedFinding[],
  to: FindingStatus,
  now: Date,
  detail?: Record<string, unknown>,
  dismissal?: Dismissal,
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
    { actor: { userId: user.id }, reason: 'status_changed', now, ...(dismissal ? { dismissal } : {}) },
  );
}

/**
 * One finding's move (PATCH /status, /review): same status → unchanged (a dismissal given for a
 * `false_positive` is set); allowed → changed with timeline and event; a covered finding → 409
 * `covered_by_acceptance`; else 409 `invalid_transition`.
 */
async function moveOne(
  trx: Transaction<DB>,
  user: UserPrincipal,
  finding: LockedFinding,
  input: DismissalInput & { status: FindingStatus },
  now: Date,
  detail?: Record<string, unknown>,
): Promise<void> {
  const to = input.status;
  const dismissal = dismissalOf(input);
  refuseCovered([finding], to, dismissal);
  const check = checkTransition(finding.status, to);
  if (check === 'invalid') throw invalidTransition(finding, to);
  if (check === 'allowed') await applyStatus(trx, user, [finding], to, now, detail, dismissal);
  else if (dismissal) await redismiss(trx, user, [finding], dismissal, now);
}

/** PATCH /status: same status → unchanged; allowed → changed with timeline and event; else 409. */
export async function triageFindingStatus(
  db: Kysely<DB>,
  user: UserPrincipal,
  resolved: ResolvedInApplication,
  input: DismissalInput & { status: FindingStatus },
  audit: AuditContext,
): Promise<FindingDetailRecord> {
  const id = await db.transaction().execute(async (trx) => {
    const finding = await lockOne(trx, resolved);
    const moves = checkTransition(finding.status, input.status) === 'allowed';
    await moveOne(trx, user, finding, input, new Date());
    // Written last: the audit chain's head stays locked until commit (docs/architecture.md).
    if (moves) await recordAudit(trx, audit, statusAudit([finding], input.status));
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
  audit: AuditContext,
): Promise<FindingDetailRecord> {
  const id = await db.transaction().execute(async (trx) => {
    const finding = await lockOne(trx, resolved);
    const now = new Date();
    if (input.status !== undefined) {
      await moveOne(trx, user, finding, { ...input, status: input.status }, now, { via: 'review' });
    } else {
      dismissalOf(input);
    }
    await markReviewed(trx, finding.id, user.id, now);
    await recordTimeline(trx, [{ findingId: finding.id, type: 'reviewed', actor: { userId: user.id } }]);
    await recordAudit(trx, audit, [
      ...(input.status !== undefined ? statusAudit([finding], input.status, 'review') : []),
      {
        action: 'finding.reviewed',
        target: { type: 'finding', id: finding.id },
        applicationId: finding.application_id,
      },
    ]);
    return finding.id;
  });
  return findingDetail(db, id);
}

/**
 * PATCH /api/findings: one status and/or assignee for up to 1,000 findings, all or nothing.
 * 404 lists unknown or unreadable ids, 403 read-only ones, 409 those whose move is not allowed.
 */
export async function bulkUpdate(
  db: Kysely<DB>,
  user: UserPrincipal,
  input: BulkInput,
  audit: AuditContext,
): Promise<BulkResult> {
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
    const audited: AuditEntry[] = [];
    if (input.status !== undefined) {
      const to = input.status;
      const dismissal = dismissalOf(input);
      refuseCovered(findings, to, dismissal);
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
      await applyStatus(trx, user, moving, to, now, { via: 'bulk' }, dismissal);
      audited.push(...statusAudit(moving, to, 'bulk'));
      for (const finding of moving) changed.add(finding.id);
      if (dismissal) {
        const staying = findings.filter((finding) => finding.status === to);
        for (const id of await redismiss(trx, user, staying, dismissal, now)) changed.add(id);
      }
    } else {
      dismissalOf(input);
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
      const reassigned = await applyAssignee(trx, user, findings, assigneeId, { kind: 'keep' }, now);
      for (const id of reassigned) changed.add(id);
      audited.push(...assignmentAudit(findings, reassigned, assigneeId, undefined, 'bulk'));
    }
    // One row per finding changed, all in one INSERT … SELECT, last: it holds the chain's head.
    await recordAudit(trx, audit, audited);
    const updated = ids.filter((id) => changed.has(id));
    return { updated: updated.length, ids: updated, unchanged: ids.filter((id) => !changed.has(id)) };
  });
}
