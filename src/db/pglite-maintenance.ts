import { sql, type Kysely } from 'kysely';
import type { MaintainedTable } from './database.ts';
import type { DB } from './schema.ts';

/**
 * Truncates the shared staging table when no upload has rows in it, under a lock that keeps one
 * from staging meanwhile. Every upload deletes its staged rows when it ends, so a 100k upload left
 * 100k dead rows there, and their index entries: VACUUM took 0.4 s of PGlite's one session per 100k
 * (2.0–2.7 s after two such uploads, measured) and left the indexes at their largest; TRUNCATE took
 * 42–73 ms and gives every page back. Only on PGlite, whose one session means no transaction can
 * hold an older snapshot of the table (TRUNCATE is not MVCC-safe). Returns whether it truncated.
 */
async function truncateEmptyStaging(db: Kysely<DB>): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    await sql`lock table ingest_staging in access exclusive mode`.execute(trx);
    const { rows } = await sql<{ staged: boolean }>`
      select exists (select 1 from ingest_staging) as staged`.execute(trx);
    if (rows[0]?.staged !== false) return false;
    await sql`truncate ingest_staging`.execute(trx);
    return true;
  });
}

/** PGlite has no autovacuum: VACUUM ANALYZE `tables` (or every table), the staging table truncated when it can be. */
export async function maintainPglite(db: Kysely<DB>, tables?: readonly MaintainedTable[]): Promise<void> {
  const every = !tables?.length;
  const truncated = (every || tables.includes('ingest_staging')) && (await truncateEmptyStaging(db));
  if (every) {
    await sql`vacuum analyze`.execute(db);
    return;
  }
  const rest = truncated ? tables.filter((table) => table !== 'ingest_staging') : tables;
  if (rest.length > 0)
    await sql`vacuum analyze ${sql.join(rest.map((table) => sql.table(table)))}`.execute(db);
}
