import { sql, type Kysely } from 'kysely';

/**
 * Open findings per application and day (issue 47): `posture_daily` keeps a row per application ×
 * day × severity × status, so a member's single applications cost a year of "open over time" or
 * burndown eight to thirty rows per application and day, filtered to the open statuses and grouped
 * (bench scenario 15: 146k rows for 50 applications, over the 150 ms target). This table holds the
 * same figures one row per application and day: the open findings (statuses open and confirmed) of
 * each severity at the end of the day, for the application-days that have any.
 *
 * Kept by the posture job with `posture_daily` (written, rewritten and dropped with its day:
 * src/modules/metrics/posture.repository.ts), and filled here from the days already written, so it
 * is complete on an existing database. No foreign key, as for the other posture tables.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table posture_open_daily (
    application_id integer not null,
    day date not null,
    critical integer not null,
    high integer not null,
    medium integer not null,
    low integer not null,
    info integer not null,
    primary key (application_id, day) include (critical, high, medium, low, info)
  )`.execute(db);
  // Retention drops by day.
  await sql`create index posture_open_daily_day_idx on posture_open_daily (day)`.execute(db);
  const severity = (name: string) =>
    sql.raw(`coalesce(sum(findings) filter (where severity = '${name}'), 0)::integer`);
  await sql`insert into posture_open_daily (application_id, day, critical, high, medium, low, info)
    select application_id, day, ${severity('critical')}, ${severity('high')}, ${severity('medium')},
      ${severity('low')}, ${severity('info')}
    from posture_daily
    where status in ('open', 'confirmed')
    group by application_id, day`.execute(db);
  // Statistics now: without them the planner guesses a parallel scan of most of the table.
  await sql`analyze posture_open_daily`.execute(db);
}
