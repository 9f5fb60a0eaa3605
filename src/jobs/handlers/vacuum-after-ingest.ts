import type { JobContext } from '../jobs.ts';

/**
 * What a big upload leaves dead rows in. Vacuuming the whole database instead made every big upload
 * on PGlite pay for the size of everything stored before it.
 */
const CHURNED_TABLES = ['findings', 'ingest_staging', 'finding_scopes', 'finding_events', 'events'] as const;

/** VACUUM ANALYZE after big uploads on PGlite (no autovacuum there); a no-op on PostgreSQL. */
export async function vacuumAfterIngest(context: JobContext): Promise<void> {
  await context.database.maintain(CHURNED_TABLES);
}
