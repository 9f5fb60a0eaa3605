import { sql, type Kysely } from 'kysely';

/**
 * Deleting findings (an application, a version) cascades into `events.finding_id`, which had no
 * index: each deleted finding read the whole events table. Deleting a bench application of 100k
 * findings from a 10M-finding database, with 16k events, ran for over 15 minutes (issue 44). Only
 * events that name a finding are indexed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index if not exists events_finding_idx on events (finding_id) where finding_id is not null`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists events_finding_idx`.execute(db);
}
