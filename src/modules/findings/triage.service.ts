import type { Kysely, Transaction } from 'kysely';
import { accessLevels, parseId } from '../../access/access.ts';
import type { UserPrincipal } from '../../access/principal.ts';
import type { DB, FindingStatus } from '../../db/schema.ts';
import { AppError, badRequest, conflict, forbidden, notFound } from '../../http/errors.ts';
import { iso } from '../../http/schemas.ts';
import { publishEvents, type DomainEvent } from '../../events/events.ts';
import type { FindingDetailRecord } from './findings.schema.ts';
import { findingDetail } from './findings.service.ts';
import { allowedNextStatuses, checkTransition } from './lifecycle.ts';
import { recordTimeline, type TimelineEntry } from './timeline.ts';
import {
  lockFindings,
  markReviewed,
  setAssignee,
  setStatus,
  userById,
  type DueDateChange,
  type LockedFinding,
} from './triage.repository.ts';
import type { AssignInput, BulkInput, BulkResult, ReviewInput } from './triage.schema.ts';

/**
 * Locks findings and checks the caller may write them: unknown or unreadable → 404 (listing the
 * ids), readable but not writable → 403 (listing the ids).
 */
export async function lockWritable(
  trx: Transaction<DB>,
  user: UserPrincipal,
  ids: readonly number[],
): Promise<LockedFinding[]> {
  const rows = await lockFindings(trx, ids);
  const levels = await accessLevels(trx, user, [...new Set(rows.map((row) => row.application_id))]);
  const level = (row: LockedFinding) => levels.get(row.application_id)?.level ?? 0;
  const readable = new Set(rows.filter((row) => level(row) >= 1).map((row) => row.id));
  const missing = ids.filter((id) => !readable.has(id));
  if (missing.length > 0) {
    throw new AppError(404, 'not_found', `Finding${ids.length > 1 ? 's' : ''} not found`, { ids: missing });
  }
  const readOnly = rows.filter((row) => level(row) < 2).map((row) => row.id);
  if (readOnly.length > 0) throw forbidden(`You may read but not change finding(s) ${readOnly.join(', ')}`);
  return rows;
}

async function lockOne(trx: Transaction<DB>, user: UserPrincipal, ref: string): Promise<LockedFinding> {
  const id = parseId(ref);
  if (id === null) throw notFound('Finding');
  const [row] = await lockWritable(trx, user, [id]);
  if (!row) throw notFound('Finding');
  return row;
}

const invalidTransition = (finding: LockedFinding, to: FindingStatus) =>
  conflict('invalid_transition', `A finding cannot move from ${finding.status} to ${to}`, {
    from: finding.status,
    to,
    allowed: allowedNextStatuses(finding.status),
  });

/** Moves `findings` (all allowed moves) to `to` with a timeline entry and event for each. */
async function applyStatus(
  trx: Transaction<DB>,
  user: UserPrincipal,
  findings: readonly LockedFinding[],
  to: FindingStatus,
  now: Date,
  detail?: Record<string, unknown>,
): Promise<void> {
  await setStatus(
    trx,
    findings.map((finding) => finding.id),
    to,
    now,
  );
  await recordTimeline(
    trx,
    findings.map((finding): TimelineEntry => ({
      findingId: finding.id,
      type: 'status_changed',
      actor: { userId: user.id },
      fromStatus: finding.status,
      toStatus: to,
      ...(detail ? { detail } : {}),
    })),
  );
  await publishEvents(
    trx,
    findings.map((finding): DomainEvent => ({
      type: 'finding.status_changed',
      applicationId: finding.application_id,
      findingId: finding.id,
      data: { from: finding.status, to },
    })),
  );
}

/** PATCH /status: same status → unchanged; allowed → changed with timeline and event; else 409. */
export async function changeStatus(
  db: Kysely<DB>,
  user: UserPrincipal,
  ref: string,
  to: FindingStatus,
): Promise<FindingDetailRecord> {
  const id = await db.transaction().execute(async (trx) => {
    const finding = await lockOne(trx, user, ref);
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
  ref: string,
  input: ReviewInput,
): Promise<FindingDetailRecord> {
  const id = await db.transaction().execute(async (trx) => {
    const finding = await lockOne(trx, user, ref);
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

const ISO_8601 =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

/** An ISO 8601 date or date-time naming a real calendar day and time (no offset = UTC); else null. */
export function parseDueDate(text: string): Date | null {
  const match = ISO_8601.exec(text.trim());
  if (!match) return null;
  const [, year, month, day, hour = '00', minute = '00', second = '00', fraction = '', zone = 'Z'] = match;
  const calendar = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  if (calendar.getUTCMonth() !== Number(month) - 1 || calendar.getUTCDate() !== Number(day)) return null;
  if (Number(hour) > 23 || Number(minute) > 59 || Number(second) > 59) return null;
  const offset = zone.toUpperCase() === 'Z' ? 'Z' : `${zone.slice(0, 3)}:${zone.slice(-2)}`;
  const date = new Date(
    `${year}-${month}-${day}T${hour}:${minute}:${second}${fraction.slice(0, 4)}${offset}`,
  );
  return Number.isNaN(date.getTime()) ? null : date;
}

/**
 * The user findings are to be assigned to: unknown → 404; disabled, or unable to read one of
 * `applicationIds` → 400.
 */
async function requireAssignee(
  trx: Transaction<DB>,
  userId: number,
  applicationIds: readonly number[],
  path: string,
): Promise<void> {
  const assignee = await userById(trx, userId);
  if (!assignee) throw notFound('User');
  if (assignee.disabled) throw badRequest('assignee_disabled', `User ${userId} is disabled`);
  const principal: UserPrincipal = { kind: 'user', ...assignee, via: 'api_key' };
  const levels = await accessLevels(trx, principal, applicationIds);
  const unreadable = applicationIds.filter((id) => (levels.get(id)?.level ?? 0) < 1);
  if (unreadable.length > 0) {
    throw badRequest('assignee_cannot_read', `User ${userId} cannot read the finding's application`, [
      { path, message: `user cannot read application(s) ${unreadable.join(', ')}` },
    ]);
  }
}

/** Assigns findings that would change; writes a `reassigned` entry per change and an event per new assignee. */
async function applyAssignee(
  trx: Transaction<DB>,
  user: UserPrincipal,
  findings: readonly LockedFinding[],
  assigneeId: number | null,
  due: DueDateChange,
  now: Date,
): Promise<number[]> {
  const time = (date: Date | null) => date?.getTime() ?? null;
  const mayChange = findings.filter(
    (finding) =>
      finding.assignee_id !== assigneeId ||
      (due.kind === 'set' && time(due.value) !== time(finding.due_date)) ||
      (due.kind === 'default' && finding.due_date === null),
  );
  const after = new Map(
    (
      await setAssignee(
        trx,
        mayChange.map((finding) => finding.id),
        assigneeId,
        due,
        now,
      )
    ).map((row) => [row.id, row.due_date]),
  );
  const timeline: TimelineEntry[] = [];
  const events: DomainEvent[] = [];
  for (const finding of mayChange) {
    const dueAfter = after.get(finding.id) ?? null;
    const dueChanged = time(dueAfter) !== time(finding.due_date);
    const dueDetail = { due_date: { from: iso(finding.due_date), to: iso(dueAfter) } };
    timeline.push({
      findingId: finding.id,
      type: 'reassigned',
      actor: { userId: user.id },
      fromAssigneeId: finding.assignee_id,
      toAssigneeId: assigneeId,
      ...(dueChanged ? { detail: dueDetail } : {}),
    });
    if (finding.assignee_id !== assigneeId) {
      events.push({
        type: 'finding.reassigned',
        applicationId: finding.application_id,
        findingId: finding.id,
        data: { from: finding.assignee_id, to: assigneeId, due_date: iso(dueAfter) },
      });
    }
  }
  await recordTimeline(trx, timeline);
  await publishEvents(trx, events);
  return mayChange.map((finding) => finding.id);
}

/** PATCH /assign: assignee (or null) and optional due date; the assignee must be able to read the application. */
export async function assignFinding(
  db: Kysely<DB>,
  user: UserPrincipal,
  ref: string,
  input: AssignInput,
): Promise<FindingDetailRecord> {
  const assigneeId = input.userId !== undefined ? input.userId : input.user_id;
  if (assigneeId === undefined) {
    throw badRequest('validation_failed', 'userId is required (null unassigns)', [
      { path: 'body.userId', message: 'is required' },
    ]);
  }
  const dueText = input.dueDate !== undefined ? input.dueDate : input.due_date;
  const dueValue = typeof dueText === 'string' ? parseDueDate(dueText) : null;
  if (typeof dueText === 'string' && dueValue === null) {
    throw badRequest('validation_failed', 'dueDate is not an ISO 8601 date', [
      {
        path: input.dueDate !== undefined ? 'body.dueDate' : 'body.due_date',
        message: 'must be an ISO 8601 date or date-time',
      },
    ]);
  }
  const due: DueDateChange =
    dueText !== undefined
      ? { kind: 'set', value: dueValue }
      : assigneeId !== null
        ? { kind: 'default' }
        : { kind: 'keep' };

  const id = await db.transaction().execute(async (trx) => {
    const finding = await lockOne(trx, user, ref);
    if (assigneeId !== null) await requireAssignee(trx, assigneeId, [finding.application_id], 'body.userId');
    await applyAssignee(trx, user, [finding], assigneeId, due, new Date());
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
      const due: DueDateChange = assigneeId === null ? { kind: 'keep' } : { kind: 'default' };
      for (const id of await applyAssignee(trx, user, findings, assigneeId, due, now)) changed.add(id);
    }
    const updated = ids.filter((id) => changed.has(id));
    return { updated: updated.length, ids: updated, unchanged: ids.filter((id) => !changed.has(id)) };
  });
}
