import { sql, type Kysely } from 'kysely';

/**
 * "Newest first" over every finding (an admin's landing page) had no index in its order, so each
 * page sorted all findings: 1.3 s at 1M. Walked backwards, this index gives the page directly.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index findings_created_idx on findings (created_at, id)`.execute(db);
}
