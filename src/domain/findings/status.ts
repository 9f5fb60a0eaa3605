import { sql, type Transaction } from 'kysely';
import type { DB, FindingStatus } from '../../db/schema.ts';
import { publishEvents, type DomainEvent } from '../../events/events.ts';
import { reactInTransaction, type Cascade } from '../../events/subscribers.ts';
import { recordTimeline, type Actor, type TimelineEntry } from './timeline.ts';

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
  reason: Extract<TimelineEntry['type'], 'status_changed' | 'fixed' | 'reopened' | 'inherited'>;
  scanId?: number;
  /**
   * Ingest's merge sets statuses in the same statement that updates presence and content (one pass
   * over up to 100k findings); it passes `statusWritten` and this records the moves only.
   */
  statusWritten?: boolean;
  now?: Date;
  /** Set when a policy makes the change: the policies it sets off run one level deeper. */
  cascade?: Cascade;
}

/**
 * Every status change of findings goes through here: sets the statuses (one statement per target
 * status; `fixed_at` set on entering `fixed`, cleared otherwise), appends a timeline entry per finding
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
        .set({ status: to, fixed_at: to === 'fixed' ? now : null, updated_at: now })
        // One parameter for any number of ids (an inheriting upload may move 100k findings).
        .where(
          'id',
          'in',
          sql<number>`(select json_array_elements_text(${JSON.stringify(ids)}::json)::integer)`,
        )
        .execute();
    }
  }
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
      ...(move.detail ? { detail: move.detail } : {}),
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
        ? { from: move.from, to: move.to }
        : { from: move.from, to: move.to, reason: context.reason, ...move.detail },
    })),
  );
  await reactInTransaction(trx, {
    event: 'finding.status_changed',
    applicationIds: [...new Set(moves.map((move) => move.applicationId))],
    findings: { ids: moves.map((move) => move.findingId) },
    cascade: context.cascade,
  });
}
