import { sql, type Kysely } from 'kysely';

/**
 * SLA due dates recomputed without rewriting findings (issue 47 item 1: 1M findings ≤ 60 s on
 * PostgreSQL; docs/architecture.md, "Recomputing at 1M findings").
 *
 * `finding_sla_due` is an overlay on `findings.due_date`: a row exists only for an open finding
 * whose SLA due date a recompute moved (`recomputeDueDates`, domain/findings/sla.ts); where there is
 * none, `findings.due_date` is right. Its `due_date` may be null (a severity no longer enforced).
 * Readers take `case when o.finding_id is null then f.due_date else o.due_date end`
 * (`effectiveDueDateSql`). The recompute writes these narrow rows and the day ledger's `due` deltas
 * (migration 2026-11-29T1300), not the ~2 KB findings row and its indexes.
 *
 * Two `before update` row triggers keep it honest, fired only by statements that name the columns
 * they watch, and only for an open finding whose due date comes from its SLA (the only kind that
 * may have a row):
 *
 * - `findings_sla_due_1_written` (a statement naming `due_date` or `due_date_source`: triage, KEV,
 *   the clock resumed, an acceptance's end): the writer's value wins; the overlay row is dropped.
 * - `findings_sla_due_2_moved` (a statement changing `status`, `concern` or `application_id`): the
 *   overlay's date is written into `findings.due_date` (frozen when closed, as before) and the row
 *   dropped. Named to fire after the first: a statement naming both finds no row left.
 *
 * The ledger's statement trigger sees the stale `old.due_date` where the overlay counted its own
 * date, so both append the correction (−1 on the overlay's day, +1 on the stale one). Deleted
 * findings' rows go with them by a statement trigger (with the same correction), as `finding_epss`
 * does (migration 2026-11-29T1600): no foreign key, so an insert into findings pays nothing.
 *
 * A recompute does not lock the findings it reads (that would write each row), so it and a writer
 * meet on an advisory lock of the application's bucket (`application_id % 1024`, class 47001): the
 * triggers take it shared, each recompute batch exclusively (domain/findings/sla.ts) before it reads.
 * A writer's change is committed before a recompute reads the finding, or the writer waits for the
 * recompute's commit and then finds its overlay row.
 *
 * Online: the table starts empty (nothing to copy); creating triggers on findings takes a lock that
 * lets reads through and makes writes wait for the commit.
 */

const OPEN = `('open', 'confirmed')`;

/** The advisory lock a recompute and the writers of due dates meet on (sla.ts says the same). */
const SLA_DUE_LOCK_CLASS = 47001;
const SLA_DUE_LOCK_BUCKETS = 1024;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table finding_sla_due (
    finding_id integer primary key,
    application_id integer not null,
    due_date timestamptz
  )`.execute(db);
  await sql`create index finding_sla_due_application_idx on finding_sla_due (application_id, due_date)`.execute(
    db,
  );

  // TG_ARGV[0] = 'freeze': the overlay's date becomes findings.due_date; else the writer's stands.
  await sql
    .raw(
      `create function findings_sla_due_release() returns trigger language plpgsql as $$
    declare
      moved timestamptz;
    begin
      -- Shared with other writers, exclusive to a recompute of this application's bucket: a
      -- recompute never reads a finding that a writer is changing (SLA_DUE_LOCK in sla.ts).
      perform pg_advisory_xact_lock_shared(${SLA_DUE_LOCK_CLASS}, old.application_id % ${SLA_DUE_LOCK_BUCKETS});
      delete from finding_sla_due where finding_id = old.id returning due_date into moved;
      if not found then
        return new;
      end if;
      insert into finding_day_counts (application_id, concern, measure, day, findings)
      select old.application_id, old.concern, 'due', d.day, sum(d.findings)
      from (values ((moved at time zone 'UTC')::date, -1), ((old.due_date at time zone 'UTC')::date, 1))
        as d (day, findings)
      group by d.day having sum(d.findings) <> 0;
      if tg_argv[0] = 'freeze' then
        new.due_date := moved;
      end if;
      return new;
    end $$`,
    )
    .execute(db);
  await sql
    .raw(
      `create trigger findings_sla_due_1_written before update of due_date, due_date_source on findings
    for each row when (old.status in ${OPEN} and old.due_date_source = 'sla')
    execute function findings_sla_due_release('keep')`,
    )
    .execute(db);
  await sql
    .raw(
      `create trigger findings_sla_due_2_moved before update of status, concern, application_id on findings
    for each row when (old.status in ${OPEN} and old.due_date_source = 'sla'
      and (new.status is distinct from old.status or new.concern is distinct from old.concern
        or new.application_id is distinct from old.application_id))
    execute function findings_sla_due_release('freeze')`,
    )
    .execute(db);

  await sql
    .raw(
      `create function findings_sla_due_after_delete() returns trigger language plpgsql as $$
    begin
      -- After a recompute of these applications' buckets commits, whose overlay rows go too.
      perform pg_advisory_xact_lock_shared(${SLA_DUE_LOCK_CLASS}, k)
        from (select distinct application_id % ${SLA_DUE_LOCK_BUCKETS} as k from old_rows order by 1) keys;
      -- Driven from the deleted rows, the overlay probed by its key (no join whose plan would
      -- trust the overlay's statistics, which lag behind a table filled and emptied in bulk).
      insert into finding_day_counts (application_id, concern, measure, day, findings)
      select x.application_id, x.concern, 'due', d.day, sum(d.findings)
      from (
        select r.application_id, r.concern, r.due_date as stale,
          (select array[o.due_date] from finding_sla_due o where o.finding_id = r.id) as moved
        from old_rows r where r.status in ${OPEN} offset 0
      ) x
      cross join lateral (values ((x.moved[1] at time zone 'UTC')::date, -1), ((x.stale at time zone 'UTC')::date, 1))
        as d (day, findings)
      where x.moved is not null
      group by x.application_id, x.concern, d.day having sum(d.findings) <> 0;
      delete from finding_sla_due where finding_id = any (array(select id from old_rows));
      return null;
    end $$`,
    )
    .execute(db);
  await sql`create trigger findings_sla_due_delete after delete on findings
    referencing old table as old_rows
    for each statement execute function findings_sla_due_after_delete()`.execute(db);
  await sql`create function findings_sla_due_truncate() returns trigger language plpgsql as $$
    begin
      truncate finding_sla_due;
      return null;
    end $$`.execute(db);
  await sql`create trigger findings_sla_due_truncate after truncate on findings
    for each statement execute function findings_sla_due_truncate()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  // Back to due dates on findings: the overlay's dates are written into them first.
  await sql`update findings f set due_date = o.due_date from finding_sla_due o where o.finding_id = f.id`.execute(
    db,
  );
  for (const name of ['findings_sla_due_1_written', 'findings_sla_due_2_moved', 'findings_sla_due_delete']) {
    await sql.raw(`drop trigger if exists ${name} on findings`).execute(db);
  }
  await sql`drop trigger if exists findings_sla_due_truncate on findings`.execute(db);
  await sql`drop function if exists findings_sla_due_release()`.execute(db);
  await sql`drop function if exists findings_sla_due_after_delete()`.execute(db);
  await sql`drop function if exists findings_sla_due_truncate()`.execute(db);
  await sql`drop table if exists finding_sla_due`.execute(db);
}
