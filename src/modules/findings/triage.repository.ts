import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { DismissalReason } from '../../domain/findings/dismissal.ts';
import { effectiveDueDateOfSql } from '../../domain/findings/sla.ts';

/** Locks findings for a triage change, in id order so concurrent bulk changes cannot deadlock. */
export async function lockFindings(trx: Transaction<DB>, ids: readonly number[]) {
  return trx
    .selectFrom('findings')
    .select([
      'id',
      'application_id',
      'status',
      'assignee_id',
      // The due date in force (a recompute's overlay, domain/findings/sla.ts).
      effectiveDueDateOfSql('findings').as('due_date'),
      'severity',
      'first_seen_at',
      'acceptance_id',
      'dismissal_reason',
      'dismissal_comment',
    ])
    .where('id', 'in', [...ids])
    .orderBy('id')
    .forUpdate()
    .execute();
}

export type LockedFinding = Awaited<ReturnType<typeof lockFindings>>[number];

/** `set`: this value (null clears); `keep`: unchanged. */
export type DueDateChange = { kind: 'set'; value: Date | null } | { kind: 'keep' };

/**
 * Sets assignee and due date; returns each finding's due date afterwards. A due date set here (a
 * date, or null for none) is manual: SLA recomputation leaves it as set (domain/findings/sla.ts).
 */
export async function setAssignee(
  trx: Transaction<DB>,
  ids: readonly number[],
  assigneeId: number | null,
  due: DueDateChange,
  now: Date,
): Promise<{ id: number; due_date: Date | null }[]> {
  if (ids.length === 0) return [];
  return trx
    .updateTable('findings')
    .set({
      assignee_id: assigneeId,
      updated_at: now,
      ...(due.kind === 'set' ? { due_date: due.value, due_date_source: 'manual' as const } : {}),
    })
    .where('id', 'in', [...ids])
    .returning([
      'id',
      // A date set here is the findings row's own (its trigger dropped any overlay row); kept, the
      // one in force (domain/findings/sla.ts).
      due.kind === 'set' ? 'due_date' : effectiveDueDateOfSql('findings').as('due_date'),
    ])
    .execute();
}

export async function markReviewed(
  trx: Transaction<DB>,
  id: number,
  userId: number,
  now: Date,
): Promise<void> {
  await trx
    .updateTable('findings')
    .set({ reviewed_at: now, reviewed_by: userId, updated_at: now })
    .where('id', '=', id)
    .execute();
}

export async function userById(db: Kysely<DB>, id: number) {
  return db
    .selectFrom('users')
    .select(['id', 'email', 'name', 'role', 'disabled'])
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Sets the dismissal of findings already `false_positive` (a reason given after the fact). */
export async function setDismissal(
  trx: Transaction<DB>,
  ids: readonly number[],
  dismissal: { reason: DismissalReason | null; comment: string | null },
  now: Date,
): Promise<void> {
  if (ids.length === 0) return;
  await trx
    .updateTable('findings')
    .set({ dismissal_reason: dismissal.reason, dismissal_comment: dismissal.comment, updated_at: now })
    .where('id', 'in', [...ids])
    .execute();
}
