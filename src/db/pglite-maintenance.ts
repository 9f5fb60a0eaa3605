import { sql, type Kysely } from 'kysely';
import type { DB } from './schema.ts';

/** Tables an upload churns; the rest need no vacuum after one. */
export type MaintainedTable =
  'findings' | 'finding_counts' | 'ingest_staging' | 'finding_scopes' | 'finding_events' | 'events';

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

/**
 * The statistics target of PGlite's ANALYZE, for columns without their own (PostgreSQL's default is
 * 100). ANALYZE holds a sample of 300 rows per unit of target in memory, whole rows: `findings` rows
 * average ~1.5 KB, so the default's 30,000 took the embedded database 63 MB of memory it never gives
 * back (PGlite's memory only grows) and 1.34 s of its one session, measured on a 200k-finding
 * upload; at 30, 9,000 rows took 19 MB and 0.46 s. The peak no longer grows with the table past
 * 9,000 findings. 9,000 rows still hold every status and severity, and tell unique columns from
 * repeated ones; every list is served by its index whatever the estimates.
 */
const PGLITE_STATISTICS_TARGET = 30;

/** PGlite has no autovacuum: VACUUM ANALYZE `tables` (or every table), the staging table truncated when it can be. */
export async function maintainPglite(db: Kysely<DB>, tables?: readonly MaintainedTable[]): Promise<void> {
  const every = !tables?.length;
  const truncated = (every || tables.includes('ingest_staging')) && (await truncateEmptyStaging(db));
  const rest = every ? [] : truncated ? tables.filter((table) => table !== 'ingest_staging') : tables;
  if (!every && rest.length === 0) return;
  const named = sql.join(rest.map((table) => sql.table(table)));
  // VACUUM refuses to run in a transaction; ANALYZE runs in one for its `set local`.
  await (every ? sql`vacuum` : sql`vacuum ${named}`).execute(db);
  await db.transaction().execute(async (trx) => {
    await sql`set local default_statistics_target = ${sql.lit(PGLITE_STATISTICS_TARGET)}`.execute(trx);
    await (every ? sql`analyze` : sql`analyze ${named}`).execute(trx);
  });
}
