import { sql, type Kysely } from 'kysely';

/**
 * What the enrichment migration (2026-11-29T0100) made every inserted finding pay (issue 45: the
 * first 100k upload took ~10 % longer on PostgreSQL, 6 % on PGlite), taken back:
 *
 * - `findings_epss` indexed every finding, although an upload's findings have no EPSS (no parser
 *   read one; only an import or a report carrying it sets one). It now holds only findings with an
 *   EPSS, in both directions' order (a btree reads backwards): the list reads the findings without
 *   one, its tail, by id on its own (modules/findings/findings.repository.ts).
 * - `epss_snapshot_id` and `kev_snapshot_id` were foreign keys: a row trigger per inserted finding,
 *   although both are null on every insert (migration 2026-11-25T0100 measured the same for the
 *   assignee and reviewer, 136 and 60 ms per 100k). Only the enrichment's own set-wise update writes
 *   them, from `epss_scores` and `kev_entries` rows whose snapshots they reference; what the foreign
 *   keys did on delete (set null) a statement trigger on `enrichment_snapshots` does, once per
 *   statement, as `users_release_findings` does for users.
 *
 * `findings_in_kev` stays: it is partial (`where in_kev`), so an upload's findings never enter it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`drop index findings_epss`.execute(db);
  await sql`create index findings_epss on findings (application_id, epss, id) where epss is not null`.execute(
    db,
  );

  await sql`alter table findings
    drop constraint findings_epss_snapshot_id_fkey,
    drop constraint findings_kev_snapshot_id_fkey`.execute(db);
  await sql`create function enrichment_snapshots_release_findings() returns trigger language plpgsql as $$
    begin
      update findings
      set epss_snapshot_id = case when epss_snapshot_id in (select id from old_rows) then null else epss_snapshot_id end,
        kev_snapshot_id = case when kev_snapshot_id in (select id from old_rows) then null else kev_snapshot_id end
      where epss_snapshot_id in (select id from old_rows) or kev_snapshot_id in (select id from old_rows);
      return null;
    end $$`.execute(db);
  await sql`create trigger enrichment_snapshots_release_findings after delete on enrichment_snapshots
    referencing old table as old_rows
    for each statement execute function enrichment_snapshots_release_findings()`.execute(db);
}
