import { sql, type Kysely } from 'kysely';

/**
 * Posture over time (issue 47): daily snapshots the metrics API reads instead of counting findings.
 *
 * - `posture_daily`: one row per application × UTC day × severity × status with findings in that
 *   state at the end of the day (their risk, how many were past due, their ages), and what happened
 *   that day (opened, fixed, breached), counted on the row of the status the finding ended the day in.
 * - `posture_fixes`: the fixes of a day per application × severity × scanner type × days-to-fix
 *   bucket, with how many had a due date and how many met it: mean and median time to fix and SLA
 *   compliance are sums over these rows.
 * - `posture_group_daily` / `posture_group_fixes`: the same summed per group, and over every
 *   application under `group_id = 0`, written with the application rows; a year of 10k applications
 *   is read from a few hundred thousand rows instead of tens of millions.
 * - `posture_days`: which days are written, and whether completely (a day written before it ended
 *   is written again later); the job back-fills every day missing here.
 *
 * No foreign keys: history outlives a deleted application, until retention drops it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const stateColumns = sql.raw(`severity text not null,
    status text not null,
    findings integer not null default 0,
    risk bigint not null default 0,
    overdue integer not null default 0,
    opened integer not null default 0,
    fixed integer not null default 0,
    breached integer not null default 0,
    age_0_7 integer not null default 0,
    age_8_30 integer not null default 0,
    age_31_90 integer not null default 0,
    age_over_90 integer not null default 0`);
  const fixColumns = sql.raw(`severity text not null,
    scanner_type_id integer not null,
    fix_days integer not null,
    fixed integer not null,
    sla_fixed integer not null,
    within_sla integer not null,
    fix_seconds double precision not null`);

  // The keys' indexes carry the sums: one application's year is a run of index pages read by an
  // index-only scan, where the table (written a day at a time) has it on a page per day.
  const stateIncluded = sql.raw(
    'findings, risk, overdue, opened, fixed, breached, age_0_7, age_8_30, age_31_90, age_over_90',
  );
  const fixIncluded = sql.raw('fixed, sla_fixed, within_sla, fix_seconds');

  await sql`create table posture_daily (
    day date not null,
    application_id integer not null,
    ${stateColumns},
    primary key (application_id, day, severity, status) include (${stateIncluded})
  )`.execute(db);
  // Top applications of one day, and retention.
  await sql`create index posture_daily_day_idx on posture_daily (day)`.execute(db);

  await sql`create table posture_group_daily (
    day date not null,
    group_id integer not null,
    ${stateColumns},
    primary key (group_id, day, severity, status) include (${stateIncluded})
  )`.execute(db);
  await sql`create index posture_group_daily_day_idx on posture_group_daily (day)`.execute(db);

  await sql`create table posture_fixes (
    day date not null,
    application_id integer not null,
    ${fixColumns},
    primary key (application_id, day, severity, scanner_type_id, fix_days) include (${fixIncluded})
  )`.execute(db);
  await sql`create index posture_fixes_day_idx on posture_fixes (day)`.execute(db);

  await sql`create table posture_group_fixes (
    day date not null,
    group_id integer not null,
    ${fixColumns},
    primary key (group_id, day, severity, scanner_type_id, fix_days) include (${fixIncluded})
  )`.execute(db);
  await sql`create index posture_group_fixes_day_idx on posture_group_fixes (day)`.execute(db);

  await sql`create table posture_days (
    day date primary key,
    complete boolean not null,
    written_at timestamptz not null default now()
  )`.execute(db);
}
