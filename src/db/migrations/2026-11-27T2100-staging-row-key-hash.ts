import { sql, type Kysely } from 'kysely';

/**
 * Staged rows are looked up by fingerprint (twin groups, findings an upload no longer reports, the
 * matched rows of a merge) through a hash index of their key, the upload key and fingerprint joined
 * by a space (src/ingest/staged-row-key.ts), instead of a btree of (upload_key, fingerprint).
 * Fingerprints are hashes, so each staged row went to a random leaf of that btree: inserting 100k
 * rows into `ingest_staging` took 3.0–3.7 s on PGlite with it, 2.1–2.3 s with no such index and
 * 2.1–2.6 s with this one (a scratch script, three alternating rounds). One index over both keys,
 * not a hash of the fingerprint alone: a lookup that also says `upload_key = …` may be planned
 * through the (upload_key, seq) index instead, once per probe, when the statistics are stale.
 * Nothing reads staged rows in fingerprint order across a whole upload: the untwinned index serves
 * the one-per-fingerprint reads, the (upload_key, seq) index the ranges, deletes and full reads.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`drop index ingest_staging_key_idx`.execute(db);
  await sql`create index ingest_staging_row_key_idx on ingest_staging
    using hash ((upload_key || ' ' || fingerprint))`.execute(db);
}
