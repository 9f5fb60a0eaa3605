import { sql, type Kysely } from 'kysely';

/**
 * The statement check of a finding's scans (migration 2026-11-24T1700) looks each referenced scan
 * up by its key. It read `scans` once for the first and once for the last scan of the statement's
 * rows, joined with `or`, which PostgreSQL plans as a filter over every scan: each triage of one
 * finding would have read all scans ever made.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create or replace function findings_check_references() returns trigger language plpgsql as $$
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
      ), held as (
        select s.id from scans s join ids on ids.id = s.id for key share of s
      ) select (select count(*) from ids), (select count(*) from held) into wanted, locked;
      if locked <> wanted then
        raise foreign_key_violation using message = 'a finding references a scan that does not exist';
      end if;
      return null;
    end $$`.execute(db);
}
