import { sql, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { publishEvents } from '../../events/events.ts';
import { recordTimeline, type Actor } from './timeline.ts';

/** One finding's reassignment, with the assignee it had before. */
export interface AssigneeMove {
  findingId: number;
  applicationId: number;
  from: number | null;
}

/**
 * Assigns findings set-wise for a system actor (a policy): one update, a `reassigned` timeline entry
 * and a `finding.reassigned` event per finding that changes. A person's assignment, which may also
 * set due dates, goes through the findings module and writes the same entries and events.
 */
export async function changeAssignee(
  trx: Transaction<DB>,
  moves: readonly AssigneeMove[],
  to: number | null,
  actor: Actor,
  detail?: Record<string, unknown>,
): Promise<AssigneeMove[]> {
  const changing = moves.filter((move) => move.from !== to);
  if (changing.length === 0) return [];
  await trx
    .updateTable('findings')
    .set({ assignee_id: to, updated_at: new Date() })
    .where(
      'id',
      'in',
      sql<number>`(select json_array_elements_text(${JSON.stringify(changing.map((move) => move.findingId))}::json)::integer)`,
    )
    .execute();
  await recordTimeline(
    trx,
    changing.map((move) => ({
      findingId: move.findingId,
      type: 'reassigned' as const,
      actor,
      fromAssigneeId: move.from,
      toAssigneeId: to,
      ...(detail ? { detail } : {}),
    })),
  );
  await publishEvents(
    trx,
    changing.map((move) => ({
      type: 'finding.reassigned' as const,
      applicationId: move.applicationId,
      findingId: move.findingId,
      data: { from: move.from, to, ...(detail ?? {}) },
    })),
  );
  return changing;
}
