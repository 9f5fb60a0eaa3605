import { sql, type Kysely } from 'kysely';

/**
 * Exact totals without counting findings (issue 15, lists at 1M findings): `finding_counts` holds
 * how many findings each (version, severity, status) has, with the sums the dashboard needs, so a
 * list total filtered only by application, version, severity and status, and the dashboard's
 * matrix, are sums of a few hundred rows instead of a count over up to every finding.
 *
 * The table is a ledger of deltas, not one row per key: statement-level triggers (transition
 * tables, so one INSERT … SELECT of 100k rows costs one grouped insert, not 100k row triggers)
 * append what each statement added (+) and removed (−). Appending takes no row lock, so concurrent
 * uploads into one version never wait on or deadlock over a shared counter row; the rows are
 * written in the same transaction as the findings, so every snapshot sees totals that match the
 * findings it sees. `compact_finding_counts()` folds the ledger into one row per key (maintenance
 * jobs); readers sum whatever is there, so folding changes no answer.
 *
 * No foreign keys: deleting a version or an application cascades into findings, whose delete
 * trigger appends the negative rows; a reference to the version being deleted would fail then.
 * Rows that sum to zero are dropped by the next compaction.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table finding_counts (
    application_id integer not null,
    version_id integer not null,
    severity text not null,
    status text not null,
    findings bigint not null,
    risk bigint not null,
    -- fixed findings with a fixed_at, and their seconds from first seen to fixed (mean time to fix)
    fixed_timed bigint not null,
    fix_seconds numeric not null
  )`.execute(db);
  await sql`create index finding_counts_application_idx on finding_counts (application_id, version_id)`.execute(
    db,
  );

  // One grouped row per key a statement touched: +1 per new row, −1 per old row.
  const delta = (rows: string, sign: string) => `select application_id, version_id, severity, status,
      ${sign} 1 as findings, ${sign} risk_score::bigint as risk,
      ${sign} (status = 'fixed' and fixed_at is not null)::int as fixed_timed,
      -- numeric (extract's type): sums of fractional seconds stay exact however they are folded
      ${sign} coalesce(case when status = 'fixed' then extract(epoch from fixed_at - first_seen_at) end, 0)
        as fix_seconds
    from ${rows}`;
  const append = (source: string) => `insert into finding_counts
      select application_id, version_id, severity, status, sum(findings), sum(risk), sum(fixed_timed),
        sum(fix_seconds)
      from (${source}) d
      group by application_id, version_id, severity, status
      having sum(findings) <> 0 or sum(risk) <> 0 or sum(fixed_timed) <> 0 or sum(fix_seconds) <> 0`;

  await sql
    .raw(
      `create function finding_counts_after_insert() returns trigger language plpgsql as $$
      begin
        ${append(delta('new_rows', '+'))};
        return null;
      end $$`,
    )
    .execute(db);
  await sql
    .raw(
      `create function finding_counts_after_delete() returns trigger language plpgsql as $$
      begin
        ${append(delta('old_rows', '-'))};
        return null;
      end $$`,
    )
    .execute(db);
  // Most updates (presence, sightings, assignment, text) change no counted column: the HAVING
  // drops their groups, so they append nothing.
  await sql
    .raw(
      `create function finding_counts_after_update() returns trigger language plpgsql as $$
      begin
        ${append(`${delta('new_rows', '+')} union all ${delta('old_rows', '-')}`)};
        return null;
      end $$`,
    )
    .execute(db);
  await sql`create function finding_counts_after_truncate() returns trigger language plpgsql as $$
    begin
      delete from finding_counts;
      return null;
    end $$`.execute(db);
  await sql`create trigger finding_counts_insert after insert on findings
    referencing new table as new_rows for each statement execute function finding_counts_after_insert()`.execute(
    db,
  );
  await sql`create trigger finding_counts_delete after delete on findings
    referencing old table as old_rows for each statement execute function finding_counts_after_delete()`.execute(
    db,
  );
  await sql`create trigger finding_counts_update after update on findings
    referencing old table as old_rows new table as new_rows
    for each statement execute function finding_counts_after_update()`.execute(db);
  await sql`create trigger finding_counts_truncate after truncate on findings
    for each statement execute function finding_counts_after_truncate()`.execute(db);

  // Folds the ledger into one row per key, in one statement: rows appended by transactions still
  // open are not visible to it, so they are neither deleted nor counted, and stay as they are.
  await sql`create function compact_finding_counts() returns void language sql as $$
    with folded as (delete from finding_counts returning *)
    insert into finding_counts
    select application_id, version_id, severity, status, sum(findings), sum(risk), sum(fixed_timed),
      sum(fix_seconds)
    from folded
    group by application_id, version_id, severity, status
    having sum(findings) <> 0 or sum(risk) <> 0 or sum(fixed_timed) <> 0 or sum(fix_seconds) <> 0
  $$`.execute(db);

  await sql
    .raw(
      `insert into finding_counts
      select application_id, version_id, severity, status, sum(findings), sum(risk), sum(fixed_timed),
        sum(fix_seconds)
      from (${delta('findings', '+')}) d
      group by application_id, version_id, severity, status`,
    )
    .execute(db);
}
