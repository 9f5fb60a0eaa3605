import { sql, type Kysely } from 'kysely';

/**
 * A key made for reading (a dashboard, a report script) cannot change anything: the authentication
 * hook refuses every state-changing request made with it. Keys made before keep full access.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table api_keys add column read_only boolean not null default false`.execute(db);
}
