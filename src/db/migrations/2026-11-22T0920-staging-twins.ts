import { sql, type Kysely } from 'kysely';

/** Twins are numbered in SQL over the staged rows (report order), not in a per-upload map in memory. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table ingest_staging add column seq integer not null default 0`.execute(db);
  await sql`alter table ingest_staging add column twin_ordinal boolean not null default false`.execute(db);
}
