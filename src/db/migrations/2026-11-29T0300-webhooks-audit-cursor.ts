import { sql, type Kysely } from 'kysely';

/**
 * Audit-trail streaming (issue 49): a webhook subscribed to `audit.*` keeps how far it was sent, the
 * id of the last audit event it got a delivery for. Null: it does not stream the trail. Audit ids
 * are consecutive and commit in order (the chain's head is locked from an append to its commit), so
 * "every event above the cursor" misses none and repeats none.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table webhooks add column audit_cursor bigint`.execute(db);
}
