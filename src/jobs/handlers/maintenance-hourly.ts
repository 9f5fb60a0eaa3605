import { sql } from 'kysely';
import { discardAbandonedStaging } from '../../ingest/stage.ts';
import type { JobContext } from '../jobs.ts';

const HOUR = 3_600_000;
/** No upload stages for this long; older rows belong to a process that died mid-upload. */
const ABANDONED_STAGING_AGE = 6 * HOUR;

/**
 * Hourly upkeep, once per hour whichever process runs it: staged rows of crashed uploads, stored
 * files of scans that finished, expired sessions, and PGlite's VACUUM (it has no autovacuum).
 */
export async function runHourlyMaintenance(context: JobContext): Promise<void> {
  const { db } = context;
  const staging = await discardAbandonedStaging(db, ABANDONED_STAGING_AGE);
  const uploads = await sql`delete from upload_chunks c using scans s
    where s.id = c.scan_id and s.status in ('completed', 'failed')`.execute(db);
  const sessions = await db.deleteFrom('sessions').where('expires_at', '<', new Date()).executeTakeFirst();
  await context.database.maintain();
  context.log.info(
    {
      staging_rows: staging,
      upload_chunks: Number(uploads.numAffectedRows ?? 0),
      sessions: Number(sessions.numDeletedRows),
    },
    'hourly maintenance done',
  );
}
