import { sql, type Kysely } from 'kysely';

/**
 * The dashboard's moving windows without counting findings (issue 44, 10M findings on PostgreSQL).
 *
 * The dashboard counts findings first seen and fixed in the last 7 and 30 days, and the open
 * findings not yet due. Those windows move with the clock, so `finding_counts` cannot hold them,
 * and they were counted through indexes: at 10M findings about 3M index entries a request.
 * `finding_day_counts` holds the same counts per application and UTC day: `seen` (every finding,
 * by the day of `first_seen_at`), `fixed` (fixed findings with a `fixed_at`, by its day) and `due`
 * (open or confirmed findings, by the day of `due_date`; `day` null for none). A window is then the
 * sum of its whole days in the ledger plus an exact count of the findings in its first, partial day
 * through the same index as before (1/365 of what it read).
 *
 * A ledger of deltas, as `finding_counts` (migration 2026-11-24T1400): statement triggers append
 * what each statement added (+1) and removed (−1), grouped, in the statement's transaction, so a
 * snapshot's sums match the findings it sees, and appends take no row lock.
 * `compact_finding_day_counts()` folds it into one row per key and drops the days no window reads
 * any more (`seen` and `fixed` older than 32 days, `due` before yesterday), so it stays at about
 * (31 + 31 + the days ahead with a due date) rows per application.
 *
 * Findings an upload on PGlite is still merging in chunks are counted here at once; while any
 * merge hides its findings, the dashboard counts the windows from the findings as before.
 *
 * Online on an existing database: one transaction creates the table, its triggers and fills it from
 * the findings (a scan of the table: ~1 min at 10M findings on this machine). Creating the triggers
 * takes a lock that lets reads through and makes writes to findings wait for the commit.
 */

/** One delta row per counted fact of each changed finding. */
const delta = (rows: string, sign: string) => `
  select application_id, concern, 'seen'::text as measure, (first_seen_at at time zone 'UTC')::date as day,
    ${sign} 1 as findings from ${rows}
  union all
  select application_id, concern, 'fixed', (fixed_at at time zone 'UTC')::date, ${sign} 1 from ${rows}
    where status = 'fixed' and fixed_at is not null
  union all
  select application_id, concern, 'due', (due_date at time zone 'UTC')::date, ${sign} 1 from ${rows}
    where status in ('open', 'confirmed')`;

// Keyed by concern too: the dashboard counts security results unless asked (migration 2026-11-29T1000).
const append = (
  source: string,
) => `insert into finding_day_counts (application_id, concern, measure, day, findings)
  select application_id, concern, measure, day, sum(findings) from (${source}) d
  group by application_id, concern, measure, day having sum(findings) <> 0`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table finding_day_counts (
    application_id integer not null,
    concern text not null,
    measure text not null check (measure in ('seen', 'fixed', 'due')),
    day date,
    findings bigint not null
  )`.execute(db);
  await sql`create index finding_day_counts_key_idx on finding_day_counts (application_id, measure, day)`.execute(
    db,
  );

  for (const [event, body] of [
    ['insert', append(delta('new_rows', '+'))],
    ['delete', append(delta('old_rows', '-'))],
    // Most updates (sightings, assignment, text) change no counted column: their groups sum to
    // zero and append nothing.
    ['update', append(`${delta('new_rows', '+')} union all ${delta('old_rows', '-')}`)],
  ] as const) {
    await sql
      .raw(
        `create function finding_day_counts_after_${event}() returns trigger language plpgsql as $$
        begin
          ${body};
          return null;
        end $$`,
      )
      .execute(db);
  }
  await sql`create function finding_day_counts_after_truncate() returns trigger language plpgsql as $$
    begin
      delete from finding_day_counts;
      return null;
    end $$`.execute(db);
  await sql`create trigger finding_day_counts_insert after insert on findings
    referencing new table as new_rows for each statement execute function finding_day_counts_after_insert()`.execute(
    db,
  );
  await sql`create trigger finding_day_counts_delete after delete on findings
    referencing old table as old_rows for each statement execute function finding_day_counts_after_delete()`.execute(
    db,
  );
  await sql`create trigger finding_day_counts_update after update on findings
    referencing old table as old_rows new table as new_rows
    for each statement execute function finding_day_counts_after_update()`.execute(db);
  await sql`create trigger finding_day_counts_truncate after truncate on findings
    for each statement execute function finding_day_counts_after_truncate()`.execute(db);

  // One statement: rows appended by transactions still open are invisible to it, neither deleted
  // nor counted. Days no window reads any more are dropped (the windows' first, partial day is
  // counted from the findings, so a dropped day is never needed).
  await sql`create function compact_finding_day_counts() returns void language sql as $$
    with folded as (delete from finding_day_counts returning *)
    insert into finding_day_counts (application_id, concern, measure, day, findings)
    select application_id, concern, measure, day, sum(findings) from folded
    where day is null
      or (measure = 'due' and day >= (now() at time zone 'UTC')::date - 1)
      or (measure <> 'due' and day >= (now() at time zone 'UTC')::date - 32)
    group by application_id, concern, measure, day
    having sum(findings) <> 0
  $$`.execute(db);

  await sql.raw(append(delta('findings', '+'))).execute(db);
  await sql`select compact_finding_day_counts()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const event of ['insert', 'delete', 'update', 'truncate']) {
    await sql.raw(`drop trigger if exists finding_day_counts_${event} on findings`).execute(db);
    await sql.raw(`drop function if exists finding_day_counts_after_${event}()`).execute(db);
  }
  await sql`drop function if exists compact_finding_day_counts()`.execute(db);
  await sql`drop table if exists finding_day_counts`.execute(db);
}
