import type { Kysely, Transaction } from 'kysely';
import { userAccessLevels } from '../../access/access.ts';
import type { UserPrincipal } from '../../access/principal.ts';
import type { DB } from '../../db/schema.ts';
import { badRequest, notFound } from '../../errors.ts';
import { iso } from '../../http/schemas.ts';
import { publishEvents, type DomainEvent } from '../../events/events.ts';
import { reactInTransaction } from '../../events/subscribers.ts';
import type { FindingDetailRecord } from './findings.schema.ts';
import { findingDetail } from './findings.service.ts';
import { recordTimeline, type TimelineEntry } from '../../domain/findings/timeline.ts';
import { lockOne } from './triage.guard.ts';
import { recordAudit, type AuditContext } from '../../events/audit.ts';
import { assignmentAudit } from './finding-audit.ts';
import type { ResolvedInApplication } from '../../access/resources.ts';
import { setAssignee, userById, type DueDateChange, type LockedFinding } from './triage.repository.ts';
import type { AssignInput } from './triage.schema.ts';

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
export async function requireAssignee(
  trx: Transaction<DB>,
  userId: number,
  applicationIds: readonly number[],
  path: string,
): Promise<void> {
  const assignee = await userById(trx, userId);
  if (!assignee) throw notFound('User');
  if (assignee.disabled) throw badRequest('assignee_disabled', `User ${userId} is disabled`);
  const levels = await userAccessLevels(trx, assignee, applicationIds);
  const unreadable = applicationIds.filter((id) => (levels.get(id)?.level ?? 0) < 1);
  if (unreadable.length > 0) {
    throw badRequest('assignee_cannot_read', `User ${userId} cannot read the finding's application`, [
      { path, message: `user cannot read application(s) ${unreadable.join(', ')}` },
    ]);
  }
}

/** Assigns findings that would change; writes a `reassigned` entry per change and an event per new assignee. */
export async function applyAssignee(
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
      (due.kind === 'set' && time(due.value) !== time(finding.due_date)),
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
  const reassigned = events.flatMap((event) => event.findingId ?? []);
  await reactInTransaction(trx, {
    event: 'finding.reassigned',
    applicationIds: [...new Set(events.map((event) => event.applicationId))],
    findings: { ids: reassigned },
  });
  return mayChange.map((finding) => finding.id);
}

/** PATCH /assign: assignee (or null) and optional due date; the assignee must be able to read the application. */
export async function assignFinding(
  db: Kysely<DB>,
  user: UserPrincipal,
  resolved: ResolvedInApplication,
  input: AssignInput,
  audit: AuditContext,
): Promise<FindingDetailRecord> {
  const assigneeId = input.user_id;
  const dueText = input.due_date;
  const dueValue = typeof dueText === 'string' ? parseDueDate(dueText) : null;
  if (typeof dueText === 'string' && dueValue === null) {
    throw badRequest('validation_failed', 'due_date is not an ISO 8601 date', [
      { path: 'body.due_date', message: 'must be an ISO 8601 date or date-time' },
    ]);
  }
  const due: DueDateChange = dueText !== undefined ? { kind: 'set', value: dueValue } : { kind: 'keep' };

  const id = await db.transaction().execute(async (trx) => {
    const finding = await lockOne(trx, resolved);
    if (assigneeId !== null) await requireAssignee(trx, assigneeId, [finding.application_id], 'body.user_id');
    const changed = await applyAssignee(trx, user, [finding], assigneeId, due, new Date());
    await recordAudit(
      trx,
      audit,
      assignmentAudit([finding], changed, assigneeId, due.kind === 'set' ? due.value : undefined),
    );
    return finding.id;
  });
  return findingDetail(db, id);
}
