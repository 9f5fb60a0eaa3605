import { sql, type Kysely } from 'kysely';

/**
 * A finding's status at the end of a past day is the `from_status` of its first status change after
 * that day (posture back-fill, issue 47): the status changes made after a moment, by time.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index finding_events_status_time_idx on finding_events (created_at, finding_id)
    where to_status is not null`.execute(db);
}
