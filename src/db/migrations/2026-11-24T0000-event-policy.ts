import { sql, type Kysely } from 'kysely';

/**
 * A policy's `webhook` action writes an outbox event that names the policy: the dispatcher delivers
 * it to every active webhook of the application, whatever they subscribe to. The partial index is
 * the dispatcher's queue: it reads unprocessed events in id order.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table events add column policy_id integer`.execute(db);
  await sql`create index events_unprocessed_idx on events (id) where processed_at is null`.execute(db);
}
