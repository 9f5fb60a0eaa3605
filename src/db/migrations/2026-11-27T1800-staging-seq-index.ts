import { sql, type Kysely } from 'kysely';

/**
 * PGlite's merge inserts an upload's findings in short transactions, a range of staged rows each
 * (chunked-merge.ts). Ranges of fingerprints, read through (upload_key, fingerprint), fetched their
 * rows from all over the staging heap: every range touched ~1,000 pages of a 130 MB table through
 * 32 MB of buffers. Ranges in report order read rows COPY wrote next to each other, and this index
 * costs little to write: within an upload its keys only grow.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index ingest_staging_seq_idx on ingest_staging (upload_key, seq)`.execute(db);
}
