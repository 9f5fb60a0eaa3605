import { sql, type Kysely } from 'kysely';

/**
 * Whether the upload of a scan created the scan's version (an upload naming a version that did not
 * exist). On PGlite an upload opens its scan, and maybe its version, in a transaction of its own and
 * inserts findings in later ones (chunked-merge.ts, chunked-first-upload.ts): when it fails, or the
 * process dies, what it wrote is deleted (orphans.ts at the next start), and with this flag the
 * version it created too, unless something else uses it by then. A version created by hand is never
 * deleted so. On PostgreSQL an upload is one transaction; the flag is written, and never needed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table scans add column created_version boolean not null default false`.execute(db);
}
