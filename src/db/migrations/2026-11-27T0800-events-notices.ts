import { sql, type Kysely } from 'kysely';

/**
 * Events committed to the outbox send a notice on `scanhub_events` naming their schema, at commit:
 * every process that runs workers hears it and looks for undispatched events at once, wherever the
 * events were written (another server, `scanhub worker`), instead of at its next poll. One notice per
 * statement, and PostgreSQL folds a transaction's identical notices into one.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create function notify_events_added() returns trigger language plpgsql as $$
    begin
      perform pg_notify('scanhub_events', tg_table_schema);
      return null;
    end $$`.execute(db);
  await sql`create trigger events_added after insert on events
    for each statement execute function notify_events_added()`.execute(db);
}
