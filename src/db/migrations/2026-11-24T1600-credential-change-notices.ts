import { sql, type Kysely } from 'kysely';

/**
 * Every server keeps the API keys it has checked in memory (src/http/api-key-cache.ts), so a request
 * need not look its key up again. Whatever can make such an entry wrong — a key revoked, expired,
 * deleted or rehashed; its user disabled, deleted, or given another role, email or name — now sends
 * a notice on the `scanhub_credentials` channel, at commit, and every server drops its entries on
 * it. Statement-level, with the columns listed: `last_used_at` and password changes send nothing.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create function notify_credentials_changed() returns trigger language plpgsql as $$
    begin
      perform pg_notify('scanhub_credentials', '');
      return null;
    end $$`.execute(db);
  await sql`create trigger api_keys_credentials_changed
    after update of user_id, key_hash, expires_at, revoked_at or delete or truncate on api_keys
    for each statement execute function notify_credentials_changed()`.execute(db);
  await sql`create trigger users_credentials_changed
    after update of id, email, name, role, disabled or delete or truncate on users
    for each statement execute function notify_credentials_changed()`.execute(db);
}
