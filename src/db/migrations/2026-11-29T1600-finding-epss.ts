import { sql, type Kysely } from 'kysely';

/**
 * EPSS off the finding's row (issue 45, the re-score target; docs/architecture.md, "Enrichment").
 * A daily EPSS file changes most CVEs' score or percentile a little, and each finding carried its
 * own copy (`epss`, `epss_percentile`, `epss_snapshot_id`): every import gave nearly every finding
 * a new ~2 KB row version and an entry in each of its ~12 indexes (726–807 s for 1M findings). The
 * three values now live in `finding_epss`, one narrow row per finding with an EPSS (a few dozen
 * bytes, two indexes): an import rewrites those, and a finding's own row only when what it keeps
 * changes — the risk score and its exploitation part (which move only when EPSS crosses 0.01, 0.1
 * or 0.5, or KEV lists the CVE), the KEV fields and the event stamps.
 *
 * `application_id` is copied (a finding never changes application: `findings_refuse_move`), so the
 * sort by EPSS reads one application's findings in EPSS order from the narrow table's index, as it
 * read `findings_epss` before. No foreign key to `findings`: a row trigger on every deleted finding
 * would be the price; a statement trigger removes a deleted finding's row, as the ledgers do.
 * `snapshot_id` is the snapshot the value came from (nulled when that snapshot is deleted, as the
 * finding's column was).
 *
 * Online: the copy reads findings with an EPSS through the partial `findings_epss`; dropping the
 * three columns (and that index with them) is a catalog change.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table finding_epss (
    finding_id integer primary key,
    application_id integer not null,
    epss double precision not null,
    percentile double precision,
    snapshot_id integer
  )`.execute(db);
  await sql`insert into finding_epss (finding_id, application_id, epss, percentile, snapshot_id)
    select id, application_id, epss, epss_percentile, epss_snapshot_id from findings where epss is not null`.execute(
    db,
  );
  await sql`create index finding_epss_order on finding_epss (application_id, epss, finding_id)`.execute(db);

  await sql`create function findings_release_epss() returns trigger language plpgsql as $$
    begin
      delete from finding_epss where finding_id in (select id from old_rows);
      return null;
    end $$`.execute(db);
  await sql`create trigger findings_release_epss after delete on findings
    referencing old table as old_rows
    for each statement execute function findings_release_epss()`.execute(db);
  await sql`create function findings_truncate_epss() returns trigger language plpgsql as $$
    begin
      truncate finding_epss;
      return null;
    end $$`.execute(db);
  await sql`create trigger findings_truncate_epss after truncate on findings
    for each statement execute function findings_truncate_epss()`.execute(db);

  await sql`create or replace function enrichment_snapshots_release_findings() returns trigger language plpgsql as $$
    begin
      update finding_epss set snapshot_id = null where snapshot_id in (select id from old_rows);
      update findings set kev_snapshot_id = null where kev_snapshot_id in (select id from old_rows);
      return null;
    end $$`.execute(db);

  await sql`alter table findings drop column epss, drop column epss_percentile, drop column epss_snapshot_id`.execute(
    db,
  );
}
