import { sql, type Kysely } from 'kysely';

/**
 * Whether a staged row's fingerprint may have appeared earlier in its upload, as the staging thread
 * saw it (a Bloom filter of the upload's fingerprints: no false negatives). A version's first upload
 * inserts the rows that are certainly first as they are, without looking for an earlier one
 * (upload-in-transaction.ts); true, the default, is the answer that is always safe.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table ingest_staging add column maybe_repeat boolean not null default true`.execute(db);
}
