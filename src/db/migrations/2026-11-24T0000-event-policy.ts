import { sql, type Kysely } from 'kysely';

/**
 * A policy's `webhook` action writes an outbox event that names the policy: the dispatcher delivers
 * it to every active webhook of the application, whatever they subscribe to. `dispatch_cursor` is
 * how far the dispatcher got through an event that stands for many findings (an upload's new ones).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table events add column policy_id integer`.execute(db);
  await sql`alter table events add column dispatch_cursor integer`.execute(db);
}
