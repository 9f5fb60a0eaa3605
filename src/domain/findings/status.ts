import { sql, type Transaction } from 'kysely';
import type { DB, FindingStatus } from '../../db/schema.ts';
import { publishEvents, type DomainEvent } from '../../events/events.ts';
import { reactInTransaction, type Cascade } from '../../events/subscribers.ts';
import { isOpenStatus } from './lifecycle.ts';
import { pauseSlaClock, resumeSlaClock } from './sla.ts';
import type { DismissalReason } from './dismissal.ts';
import { recordTimeline, type Actor, type TimelineEntry } from './timeline.ts';

/** Why findings moving to `false_positive` are dismissed, and the acceptance that covers them. */
export interface Dismissal {
  reason: DismissalReason | null;
  comment: string | null;
  /** Set by an acceptance covering the findings (modules/acceptances); null for a person's dismissal. */
  acceptanceId?: number | null;
}

/** One finding's move, with the status it had before. */
export interface StatusMove {
  findingId: number;
  applicationId: number;
  from: FindingStatus;
  to: FindingStatus;
  /** Written to the timeline entry; for a system move also to the event. */
  detail?: Record<string, unknown>;
}

export interface StatusChangeContext {
  actor: Actor;
  /** `status_changed` for a person's move; ingest names why (`fixed`, `reopened`, `inherited`). */
  reason: Extract<
    TimelineEntry['type'],
    | 'status_changed'
    | 'fixed'
    | 'reopened'
    | 'inherited'
    | 'accepted'
    | 'acceptance_expired'
    | 'acceptance_revoked'
  >;
  scanId?: number;
  /**
   * Ingest's merge sets statuses in the same statement that updates presence and content (one pass
   * over up to 100k findings); it passes `statusWritten` and this records the moves only.
   */
  statusWritten?: boolean;
  now?: Date;
  /** Set when a policy makes the change: the policies it sets off run one level deeper. */
  cascade?: Cascade;
  /**
   * Why findings moving to `false_positive` are dismissed. A move anywhere else clears the reason,
   * the comment and the covering acceptance: a finding is covered only while dismissed.
   */
  dismissal?: Dismissal;
}

/** The dismissal columns a move to `to` writes. */
export function dismissalColumns(to: FindingStatus, dismissal: Dismissal | undefined) {
  const dismissed = to === 'false_positive';
  return {
    dismissal_reason: dismissed ? (dismissal?.reason ?? null) : null,
    dismissal_comment: dismissed ? (dismissal?.comment ?? null) : null,
    acceptance_id: dismissed ? (dismissal?.acceptanceId ?? null) : null,
  };
}

/** What the timeline and the event say of a dismissal (nothing when nothing was said). */
function dismissalDetail(to: FindingStatus, dismissal: Dismissal | undefined): Record<string, unknown> {
  if (to !== 'false_positive' || !dismissal) return {};
  return {
    ...(dismissal.reason !== null ? { dismissal_reason: dismissal.reason } : {}),
    ...(dismissal.comment !== null ? { dismissal_comment: dismissal.comment } : {}),
    ...(dismissal.acceptanceId != null ? { acceptance_id: dismissal.acceptanceId } : {}),
  };
}

/**
 * Every status change of findings goes through here: sets the statuses (one statement per target
 * status; `fixed_at` set on entering `fixed`, cleared otherwise; the dismissal's reason, comment and
 * acceptance set on entering `false_positive`, cleared otherwise), appends a timeline entry per finding
 * and writes one `finding.status_changed` outbox event per finding, all in the caller's transaction.
 * A person's move is a plain status change in the event (`{from, to}`); a system move names its
 * reason and detail there too, so subscribers can tell a fix by absence from a triage decision.
 * Then the in-transaction subscribers of `finding.status_changed` (policies) react to the moved
 * findings, in the same transaction, so the caller's answer already shows what they did.
 */
export async function changeStatus(
  trx: Transaction<DB>,
  moves: readonly StatusMove[],
  context: StatusChangeContext,
): Promise<void> {
  if (moves.length === 0) return;
  const now = context.now ?? new Date();
  if (!context.statusWritten) {
    const byTarget = new Map<FindingStatus, number[]>();
    for (const move of moves) byTarget.set(move.to, [...(byTarget.get(move.to) ?? []), move.findingId]);
    for (const [to, ids] of byTarget) {
      await trx
        .updateTable('findings')
        .set({
          status: to,
          fixed_at: to === 'fixed' ? now : null,
          ...dismissalColumns(to, context.dismissal),
          updated_at: now,
        })
        // One parameter for any number of ids (an inheriting upload may move 100k findings).
        .where(
          'id',
          'in',
          sql<number>`(select json_array_elements_text(${JSON.stringify(ids)}::json)::integer)`,
        )
        .execute();
    }
  }
  await followSlaClock(trx, moves, now);
  const scanId = context.scanId;
  await recordTimeline(
    trx,
    moves.map((move): TimelineEntry => ({
      findingId: move.findingId,
      type: context.reason,
      actor: context.actor,
      ...(scanId !== undefined ? { scanId } : {}),
      fromStatus: move.from,
      toStatus: move.to,
      ...(move.detail || (move.to === 'false_positive' && context.dismissal)
        ? { detail: { ...move.detail, ...dismissalDetail(move.to, context.dismissal) } }
        : {}),
    })),
  );
  const personal = 'userId' in context.actor;
  await publishEvents(
    trx,
    moves.map((move): DomainEvent => ({
      type: 'finding.status_changed',
      applicationId: move.applicationId,
      findingId: move.findingId,
      ...(scanId !== undefined ? { scanId } : {}),
      data: personal
        ? { from: move.from, to: move.to, ...dismissalDetail(move.to, context.dismissal) }
        : {
            from: move.from,
            to: move.to,
            reason: context.reason,
            ...move.detail,
            ...dismissalDetail(move.to, context.dismissal),
          },
    })),
  );
  await reactInTransaction(trx, {
    event: 'finding.status_changed',
    applicationIds: [...new Set(moves.map((move) => move.applicationId))],
    findings: { ids: moves.map((move) => move.findingId) },
    cascade: context.cascade,
  });
}

/**
 * The SLA clock follows the status (domain/findings/sla.ts): it pauses when a finding is dismissed
 * (an accepted risk is a dismissal) and runs again, with its due date recomputed, when the finding
 * is reopened — from a dismissal or after a fix. Closing freezes the due date as it was.
 */
async function followSlaClock(trx: Transaction<DB>, moves: readonly StatusMove[], now: Date): Promise<void> {
  const paused = moves.filter((move) => move.to === 'false_positive' && isOpenStatus(move.from));
  const resumed = moves.filter((move) => isOpenStatus(move.to) && !isOpenStatus(move.from));
  await pauseSlaClock(
    trx,
    paused.map((move) => move.findingId),
    now,
  );
  await resumeSlaClock(
    trx,
    resumed.map((move) => move.findingId),
    now,
  );
}
