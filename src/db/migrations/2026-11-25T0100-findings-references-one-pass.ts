import { sql, type Kysely } from 'kysely';

/**
 * Every reference of a finding is checked by the statement trigger, in one pass over the statement's
 * rows (issue 15, ingest speed).
 *
 * Migration 2026-11-24T1700 left three foreign keys per row: the version (composite with the
 * application), the assignee and the reviewer. Measured on the insert of a 100k upload's findings
 * (PostgreSQL, `auto_explain.log_triggers`): 390 ms for the version, 136 and 60 ms for assignee and
 * reviewer, although those two are null on every inserted row (a foreign key's trigger still runs
 * once per row). The statement check read its rows five times (218–237 ms). Now:
 * - The distinct references of the statement's rows are collected in one pass, then each kind is
 *   looked up by key and locked `for key share`, as a foreign key does: a concurrent delete either
 *   waits for this transaction or has already happened and fails the check (23503).
 * - Version and application are checked on insert. An update cannot move a finding to another
 *   version or application (refused by a column trigger), so updates check only scanner type, scans,
 *   assignee and reviewer — and stay valid while a deleted version's scans release its findings.
 * - Deleting a version deletes its findings first (a row trigger before the delete), so the scans
 *   deleted with the version have no findings left to release. Deleting an application deletes its
 *   versions, and so their findings, as before.
 * - Deleting users clears `assignee_id` and `reviewed_by` where they named them (`on delete set
 *   null` before).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table findings
    drop constraint findings_version_fkey,
    drop constraint findings_assignee_id_fkey,
    drop constraint findings_reviewed_by_fkey`.execute(db);
  await sql`alter table application_versions drop constraint application_versions_id_application_key`.execute(
    db,
  );

  await sql`create type finding_references as (
    application_id integer, version_id integer, scanner_type_id integer,
    first_scan_id integer, last_scan_id integer, assignee_id integer, reviewed_by integer)`.execute(db);

  // Locks the rows of `target` with these ids (distinct, not null) `for key share`, as a foreign key
  // does; false when any of them does not exist.
  await sql`create function lock_referenced_keys(target regclass, ids integer[]) returns boolean
    language plpgsql as $$
    declare
      locked integer;
    begin
      execute format('select count(*) from (select id from %s where id = any($1) for key share) held', target)
        into locked using ids;
      return locked = cardinality(ids);
    end $$`.execute(db);

  await sql`create or replace function findings_check_references() returns trigger language plpgsql as $$
    declare
      refs finding_references[];
      wanted integer;
      locked integer;
    begin
      select coalesce(array_agg(r), '{}') into refs from (
        select distinct application_id, version_id, scanner_type_id, first_scan_id, last_scan_id,
          assignee_id, reviewed_by
        from new_rows) r;
      if TG_OP = 'INSERT' then
        with keys as (select distinct version_id, application_id from unnest(refs)),
        held as (
          select v.id from application_versions v
          join keys on keys.version_id = v.id and keys.application_id = v.application_id
          for key share of v
        ) select (select count(*) from keys), (select count(*) from held) into wanted, locked;
        if locked <> wanted then
          raise foreign_key_violation
            using message = 'a finding references a version that does not exist or is another application''s';
        end if;
      end if;
      if not lock_referenced_keys('scanner_types', array(select distinct scanner_type_id from unnest(refs))) then
        raise foreign_key_violation using message = 'a finding references a scanner type that does not exist';
      end if;
      if not lock_referenced_keys('scans', array(
        select first_scan_id from unnest(refs) where first_scan_id is not null
        union select last_scan_id from unnest(refs) where last_scan_id is not null)) then
        raise foreign_key_violation using message = 'a finding references a scan that does not exist';
      end if;
      if not lock_referenced_keys('users', array(
        select assignee_id from unnest(refs) where assignee_id is not null
        union select reviewed_by from unnest(refs) where reviewed_by is not null)) then
        raise foreign_key_violation using message = 'a finding references a user that does not exist';
      end if;
      return null;
    end $$`.execute(db);

  await sql`create function findings_refuse_move() returns trigger language plpgsql as $$
    begin
      if new.version_id <> old.version_id or new.application_id <> old.application_id then
        raise foreign_key_violation using message = 'a finding cannot move to another version or application';
      end if;
      return new;
    end $$`.execute(db);
  await sql`create trigger findings_refuse_move before update of version_id, application_id on findings
    for each row execute function findings_refuse_move()`.execute(db);

  await sql`create function application_versions_delete_findings() returns trigger language plpgsql as $$
    begin
      delete from findings where version_id = old.id;
      return old;
    end $$`.execute(db);
  await sql`create trigger application_versions_delete_findings before delete on application_versions
    for each row execute function application_versions_delete_findings()`.execute(db);

  await sql`create function users_release_findings() returns trigger language plpgsql as $$
    begin
      -- One statement, as for scans: the check on its rows must not see the other column still
      -- naming a deleted user.
      update findings
      set assignee_id = case when assignee_id in (select id from old_rows) then null else assignee_id end,
        reviewed_by = case when reviewed_by in (select id from old_rows) then null else reviewed_by end
      where assignee_id in (select id from old_rows) or reviewed_by in (select id from old_rows);
      return null;
    end $$`.execute(db);
  await sql`create trigger users_release_findings after delete on users
    referencing old table as old_rows
    for each statement execute function users_release_findings()`.execute(db);
}
