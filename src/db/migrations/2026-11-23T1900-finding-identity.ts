import { sql, type Kysely } from 'kysely';

/**
 * Identity that survives twins and scopes (issue 9):
 * - `findings.identity_base`: the identity shared by twins (same rule, file and snippet on several
 *   lines); the fingerprint tells them apart. Twins are matched by nearest line at merge time, so the
 *   merge looks up the twin groups of a version: the partial index holds only the rows whose
 *   fingerprint is not their base (every group of two or more has one), so it costs single findings
 *   nothing. Existing rows were made with no separate base: their fingerprint is their base.
 * - `ingest_staging.base`: the same for staged rows (their fingerprint changes when they are twins).
 * - `scans.category`, `scans.partial`, `scans.root`: the upload's own scope and path settings, kept
 *   so an async upload processed later is merged as it was sent.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table findings add column identity_base text`.execute(db);
  await sql`update findings set identity_base = fingerprint`.execute(db);
  await sql`alter table findings alter column identity_base set not null`.execute(db);
  await sql`create index findings_twin_base_idx on findings (version_id, identity_base)
    where fingerprint <> identity_base`.execute(db);
  await sql`alter table ingest_staging add column base text not null default ''`.execute(db);
  await sql`alter table scans add column category text`.execute(db);
  await sql`alter table scans add column partial boolean not null default false`.execute(db);
  await sql`alter table scans add column root text`.execute(db);
}
