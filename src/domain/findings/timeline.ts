import type { Insertable, Transaction } from 'kysely';
import type { DB, FindingEventsTable, FindingStatus } from '../../db/schema.ts';

/** Who made a change: a user, or the system (`ingest`, `policy:<id>`). */
export type Actor = { userId: number } | { system: string };

export interface TimelineEntry {
  findingId: number;
  type:
    | 'status_changed'
    | 'reassigned'
    | 'reviewed'
    | 'commented'
    | 'inherited'
    | 'fixed'
    | 'reopened'
    | 'severity_changed';
  actor: Actor;
  scanId?: number | null;
  fromStatus?: FindingStatus | null;
  toStatus?: FindingStatus | null;
  fromAssigneeId?: number | null;
  toAssigneeId?: number | null;
  detail?: Record<string, unknown>;
}

/** Appends timeline entries in the caller's transaction (one statement per 1,000 entries). */
export async function recordTimeline(trx: Transaction<DB>, entries: readonly TimelineEntry[]): Promise<void> {
  const rows: Insertable<FindingEventsTable>[] = entries.map((entry) => ({
    finding_id: entry.findingId,
    type: entry.type,
    actor_user_id: 'userId' in entry.actor ? entry.actor.userId : null,
    actor_system: 'system' in entry.actor ? entry.actor.system : null,
    scan_id: entry.scanId ?? null,
    from_status: entry.fromStatus ?? null,
    to_status: entry.toStatus ?? null,
    from_assignee_id: entry.fromAssigneeId ?? null,
    to_assignee_id: entry.toAssigneeId ?? null,
    detail: entry.detail ? JSON.stringify(entry.detail) : null,
  }));
  for (let start = 0; start < rows.length; start += 1000) {
    await trx
      .insertInto('finding_events')
      .values(rows.slice(start, start + 1000))
      .execute();
  }
}
