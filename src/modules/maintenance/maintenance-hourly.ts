import { sql } from 'kysely';
import { discardAbandonedStaging } from '../../ingest/stage.ts';
import { compactFindingCounts } from '../findings/finding-counts.repository.ts';
import type { JobContext } from '../../app-context.ts';

const HOUR = 3_600_000;
/** No upload stages for this long; older rows belong to a process that died mid-upload. */
const ABANDONED_STAGING_AGE = 6 * HOUR;
const DAY = 24 * HOUR;
/** Dispatched outbox events are kept a week (to trace a delivery back to its change), then dropped. */
const EVENT_RETENTION = 7 * DAY;
/** Settled webhook deliveries (with their attempts) and policy runs are listed for 30 days. */
const LOG_RETENTION = 30 * DAY;

/**
 * Hourly upkeep, once per hour whichever process runs it: staged rows of crashed uploads, stored
 * files of scans that finished, expired sessions, dispatched events, settled deliveries and policy
 * runs past their retention, the finding counts ledger folded, and PGlite's VACUUM (it has no
 * autovacuum).
 */
export async function runHourlyMaintenance(context: JobContext): Promise<void> {
  const { db } = context;
  const staging = await discardAbandonedStaging(db, ABANDONED_STAGING_AGE);
  const uploads = await sql`delete from upload_chunks c using scans s
    where s.id = c.scan_id and s.status in ('completed', 'failed')`.execute(db);
  const sessions = await db.deleteFrom('sessions').where('expires_at', '<', new Date()).executeTakeFirst();
  const now = Date.now();
  const events = await db
    .deleteFrom('events')
    .where('processed_at', '<', new Date(now - EVENT_RETENTION))
    .executeTakeFirst();
  // Pending deliveries are never dropped, whatever their age: they are still being retried.
  const deliveries = await db
    .deleteFrom('webhook_deliveries')
    .where('status', '!=', 'pending')
    .where('created_at', '<', new Date(now - LOG_RETENTION))
    .executeTakeFirst();
  const runs = await db
    .deleteFrom('policy_runs')
    .where('created_at', '<', new Date(now - LOG_RETENTION))
    .executeTakeFirst();
  const countRows = await compactFindingCounts(db);
  await context.database.maintain();
  context.log.info(
    {
      staging_rows: staging,
      upload_chunks: Number(uploads.numAffectedRows ?? 0),
      sessions: Number(sessions.numDeletedRows),
      events: Number(events.numDeletedRows),
      webhook_deliveries: Number(deliveries.numDeletedRows),
      policy_runs: Number(runs.numDeletedRows),
      finding_counts_rows: countRows,
    },
    'hourly maintenance done',
  );
}
