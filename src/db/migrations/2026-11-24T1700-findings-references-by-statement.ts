import { sql, type Kysely } from 'kysely';

/**
 * A finding's references are checked once per statement, not once per row (issue 15, ingest speed).
 *
 * A foreign key checks each inserted row with a query of its own: inserting a 100k upload's
 * findings ran 500,000 such checks (application, version, scanner type, first and last scan), half
 * of the insert's time, for ids that are the same on every row. Now:
 * - Application and version are one composite key, `(version_id, application_id)` to
 *   `application_versions (id, application_id)`: one check per row instead of two, and it also
 *   holds that a finding's application is its version's. Deleting a version (or its application)
 *   still deletes its findings by cascade.
 * - Scanner type, first scan and last scan are checked by a statement trigger over the statement's
 *   rows: it locks the distinct referenced rows `for key share`, as a foreign key does, so a
 *   concurrent delete either waits for this transaction or has already happened and fails the
 *   check (23503, as a foreign key would). On the other side, a statement trigger refuses to
 *   delete a scanner type that findings use, and clears `first_scan_id` and `last_scan_id` of
 *   deleted scans — what `on delete set null` did. Those run with their statement's own snapshot,
 *   after any insert they waited for has committed, so they see its findings.
 * Assignee and reviewer stay foreign keys: they are null on insert, where a check costs nothing.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table application_versions
    add constraint application_versions_id_application_key unique (id, application_id)`.execute(db);
  await sql`alter table findings
    drop constraint findings_application_id_fkey,
    drop constraint findings_version_id_fkey,
    drop constraint findings_scanner_type_id_fkey,
    drop constraint findings_first_scan_id_fkey,
    drop constraint findings_last_scan_id_fkey`.execute(db);
  await sql`alter table findings add constraint findings_version_fkey
    foreign key (version_id, application_id) references application_versions (id, application_id)
    on delete cascade`.execute(db);

  await sql`create function findings_check_references() returns trigger language plpgsql as $$
    declare
      wanted integer;
      locked integer;
    begin
      select count(distinct scanner_type_id) into wanted from new_rows;
      with held as (
        select t.id from scanner_types t where t.id in (select scanner_type_id from new_rows) for key share
      ) select count(*) into locked from held;
      if locked <> wanted then
        raise foreign_key_violation using message = 'a finding references a scanner type that does not exist';
      end if;
      with ids as (
        select first_scan_id as id from new_rows where first_scan_id is not null
        union select last_scan_id from new_rows where last_scan_id is not null
      ) select count(*) into wanted from ids;
      with held as (
        select s.id from scans s
        where s.id in (select first_scan_id from new_rows) or s.id in (select last_scan_id from new_rows)
        for key share
      ) select count(*) into locked from held;
      if locked <> wanted then
        raise foreign_key_violation using message = 'a finding references a scan that does not exist';
      end if;
      return null;
    end $$`.execute(db);
  await sql`create trigger findings_references_insert after insert on findings
    referencing new table as new_rows
    for each statement execute function findings_check_references()`.execute(db);
  await sql`create trigger findings_references_update after update on findings
    referencing new table as new_rows
    for each statement execute function findings_check_references()`.execute(db);

  await sql`create function scanner_types_check_unused() returns trigger language plpgsql as $$
    begin
      if exists (select 1 from findings f where f.scanner_type_id in (select id from old_rows)) then
        raise foreign_key_violation using message = 'findings use this scanner type';
      end if;
      return null;
    end $$`.execute(db);
  await sql`create trigger scanner_types_unused after delete on scanner_types
    referencing old table as old_rows
    for each statement execute function scanner_types_check_unused()`.execute(db);

  await sql`create function scans_release_findings() returns trigger language plpgsql as $$
    begin
      -- One statement: after a first that cleared only one column, the check on its rows would see
      -- the other still pointing at a deleted scan.
      update findings
      set first_scan_id = case when first_scan_id in (select id from old_rows) then null else first_scan_id end,
        last_scan_id = case when last_scan_id in (select id from old_rows) then null else last_scan_id end
      where first_scan_id in (select id from old_rows) or last_scan_id in (select id from old_rows);
      return null;
    end $$`.execute(db);
  await sql`create trigger scans_release_findings after delete on scans
    referencing old table as old_rows
    for each statement execute function scans_release_findings()`.execute(db);
}
