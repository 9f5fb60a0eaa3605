import { sql, type Kysely } from 'kysely';

/**
 * The merge reads an upload's staged rows in two parts (merge.ts `staged`): twins, all of them, and
 * the others, one per fingerprint, first in report order. With only the (upload_key, fingerprint)
 * index, the second part read every staged row of the upload to keep none: 107 ms of a 100k SARIF
 * upload, where every result is a twin. This index holds only the others, in the order that part
 * reads them, so it costs nothing to write for a SARIF upload and nothing to read when it is empty.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index ingest_staging_untwinned_idx on ingest_staging (upload_key, fingerprint, seq)
    where not twin_ordinal`.execute(db);
}
