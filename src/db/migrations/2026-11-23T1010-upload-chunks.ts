import { sql, type Kysely } from 'kysely';

/**
 * Async uploads wait in the database, not on the receiving server's disk, so any server's worker
 * can process them (jobs on pg-boss) and a restart of the receiver loses nothing.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table upload_chunks (
    scan_id integer not null references scans (id) on delete cascade,
    seq integer not null,
    data bytea not null,
    primary key (scan_id, seq)
  )`.execute(db);
}
