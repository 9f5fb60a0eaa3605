import { compactFindingCounts } from '../findings/finding-counts.repository.ts';
import type { JobContext } from '../../app-context.ts';

/**
 * What a big upload leaves dead rows in. Vacuuming the whole database instead made every big upload
 * on PGlite pay for the size of everything stored before it.
 */
const CHURNED_TABLES = [
  'findings',
  'finding_counts',
  'ingest_staging',
  'finding_scopes',
  'finding_events',
  'events',
] as const;

/**
 * After big uploads: folds the finding counts ledger they appended to, then VACUUM ANALYZE on PGlite
 * (no autovacuum there; a no-op on PostgreSQL).
 */
export async function vacuumAfterIngest(context: JobContext): Promise<void> {
  await compactFindingCounts(context.db);
  await context.database.maintain(CHURNED_TABLES);
}
