import { sql, type Kysely } from 'kysely';

/**
 * A credential notice names the schema whose users or keys changed, so that servers on other
 * schemas of the same database (the test suite's files, each in its own schema, running side by
 * side) do not drop their caches for it. Servers still drop theirs on a notice without a name.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create or replace function notify_credentials_changed() returns trigger language plpgsql as $$
    begin
      perform pg_notify('scanhub_credentials', tg_table_schema);
      return null;
    end $$`.execute(db);
}
