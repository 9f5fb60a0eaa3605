import { sql, type RawBuilder } from 'kysely';

/**
 * A staged row's key in `ingest_staging_row_key_idx` (a hash index, migration
 * `2026-11-27T2100-staging-row-key-hash`): its upload key and fingerprint, joined by a space. Upload
 * keys hold no space (`newUploadKey`), so the key names one fingerprint of one upload.
 *
 * A lookup of staged rows by fingerprint states this key and nothing else about the upload. With
 * `upload_key = …` beside it, a plan made on statistics of an earlier upload (which say a new key
 * has no rows) could read the whole upload through the (upload_key, seq) index once per probe.
 */
export const stagedRowKey = (alias: string): RawBuilder<string> =>
  sql<string>`(${sql.ref(`${alias}.upload_key`)} || ' ' || ${sql.ref(`${alias}.fingerprint`)})`;

/** The key `stagedRowKey` gives the row of `uploadKey` with `fingerprint` (an SQL expression). */
export const rowKeyOf = (uploadKey: string, fingerprint: RawBuilder<unknown>): RawBuilder<string> =>
  sql<string>`(${uploadKey}::text || ' ' || ${fingerprint})`;

/**
 * The keys of `fingerprints` in `uploadKey` as one array literal, for `stagedRowKey(…) = any(…::text[])`.
 * Each is quoted for its space; upload keys and fingerprints (hex digests) hold no quote or backslash.
 */
export const rowKeysLiteral = (uploadKey: string, fingerprints: readonly string[]): string =>
  `{${fingerprints.map((fingerprint) => `"${uploadKey} ${fingerprint}"`).join(',')}}`;
