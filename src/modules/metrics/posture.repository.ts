import { sql, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { isOpen } from '../../domain/findings/lifecycle.ts';
import { effectiveDueDateSql, joinSlaDueSql } from '../../domain/findings/sla.ts';
import { SEVERITIES } from '../../domain/findings/severity.ts';
import { fixDaysBucketSql } from './fix-buckets.ts';

/**
 * The SQL of the posture snapshots (src/db/migrations/2026-11-28T1950-posture-snapshots.ts): one
 * day of one table in one statement, whatever the number of findings. A finding's status at the end
 * of a past day is read from its timeline: the `from_status` of its first status change after the
 * day ended, else its status now; so a missed day is written later exactly as it would have been.
 */

/** Summed columns of the state tables, in the order they are inserted. */
export const STATE_SUMS = [
  'findings',
  'risk',
  'overdue',
  'opened',
  'fixed',
  'breached',
  'age_0_7',
  'age_8_30',
  'age_31_90',
  'age_over_90',
] as const;

/** Summed columns of the fix tables. */
export const FIX_SUMS = ['fixed', 'sla_fixed', 'within_sla', 'fix_seconds'] as const;

const list = (names: readonly string[], prefix = '') =>
  sql.raw(names.map((name) => `${prefix}${name}`).join(', '));
const sums = (names: readonly string[], prefix = '') =>
  sql.raw(names.map((name) => `sum(${prefix}${name})`).join(', '));

/** Writes `day`'s application rows: the findings' state at `end` and what happened in [start, end). */
async function writeApplicationState(
  trx: Transaction<DB>,
  day: string,
  start: Date,
  end: Date,
): Promise<void> {
  const open = isOpen(sql.ref('status'));
  await sql`
    insert into posture_daily (day, application_id, severity, status, ${list(STATE_SUMS)})
    with later as (
      select distinct on (e.finding_id) e.finding_id, e.from_status
      from finding_events e
      where e.created_at >= ${end} and e.to_status is not null
      order by e.finding_id, e.created_at, e.id
    ), fixed_that_day as (
      select distinct e.finding_id
      from finding_events e
      where e.created_at >= ${start} and e.created_at < ${end} and e.to_status = 'fixed'
    ), state as (
      select f.application_id, f.severity, coalesce(l.from_status, f.status) as status, f.first_seen_at,
        ${effectiveDueDateSql('f', 'o')} as due_date, f.risk_score, d.finding_id is not null as fixed_that_day,
        floor(extract(epoch from (${end}::timestamptz - f.first_seen_at)) / 86400)::integer as age
      from findings f
      ${joinSlaDueSql('f', 'o')}
      left join later l on l.finding_id = f.id
      left join fixed_that_day d on d.finding_id = f.id
      -- Posture is security posture: code-quality findings are not counted (domain/findings/concern.ts).
      where f.first_seen_at < ${end} and f.concern = 'security'
    )
    select ${day}::date, application_id, severity, status,
      count(*),
      sum(risk_score),
      count(*) filter (where ${open} and due_date < ${end}),
      count(*) filter (where first_seen_at >= ${start}),
      count(*) filter (where fixed_that_day),
      count(*) filter (where ${open} and due_date >= ${start} and due_date < ${end}),
      count(*) filter (where ${open} and age <= 7),
      count(*) filter (where ${open} and age between 8 and 30),
      count(*) filter (where ${open} and age between 31 and 90),
      count(*) filter (where ${open} and age > 90)
    from state
    group by application_id, severity, status`.execute(trx);
}

/**
 * Writes `posture_open_daily` (migration 2026-11-30T1100) for the days `where` selects, from their
 * rows of `posture_daily`: per application and day, the open findings of each severity.
 */
async function writeOpenDaily(trx: Transaction<DB>, where: RawBuilder<boolean>): Promise<void> {
  const bySeverity = sql.join(
    SEVERITIES.map(
      (severity) => sql`coalesce(sum(findings) filter (where severity = ${sql.lit(severity)}), 0)::integer`,
    ),
  );
  await sql`insert into posture_open_daily (application_id, day, ${list(SEVERITIES)})
    select application_id, day, ${bySeverity}
    from posture_daily
    where ${where} and ${isOpen(sql.ref('status'))}
    group by application_id, day`.execute(trx);
}

/**
 * Rebuilds `posture_open_daily` of the days `from` to `to` (inclusive) from `posture_daily`: delete
 * and insert in one transaction (what the job keeps day by day, recomputed).
 */
export async function rebuildPostureOpenDaily(db: Kysely<DB>, from: string, to: string): Promise<void> {
  const inRange = sql<boolean>`day between ${from}::date and ${to}::date`;
  await db.transaction().execute(async (trx) => {
    await sql`delete from posture_open_daily where ${inRange}`.execute(trx);
    await writeOpenDaily(trx, inRange);
  });
}

/** Writes `day`'s fixes per application: each finding's last fix in [start, end), timed from first seen. */
async function writeApplicationFixes(
  trx: Transaction<DB>,
  day: string,
  start: Date,
  end: Date,
): Promise<void> {
  const bucket = fixDaysBucketSql(sql<number>`floor(seconds / 86400)::integer`);
  await sql`
    insert into posture_fixes (day, application_id, severity, scanner_type_id, fix_days, ${list(FIX_SUMS)})
    with fixes as (
      select distinct on (e.finding_id) e.finding_id, e.created_at as fixed_at
      from finding_events e
      where e.created_at >= ${start} and e.created_at < ${end} and e.to_status = 'fixed'
      order by e.finding_id, e.created_at desc, e.id desc
    ), timed as (
      select f.application_id, f.severity, f.scanner_type_id, ${effectiveDueDateSql('f', 'o')} as due_date, x.fixed_at,
        greatest(extract(epoch from (x.fixed_at - f.first_seen_at)), 0)::float8 as seconds
      from fixes x
      join findings f on f.id = x.finding_id and f.concern = 'security'
      ${joinSlaDueSql('f', 'o')}
    )
    select ${day}::date, application_id, severity, scanner_type_id, ${bucket} as fix_days,
      count(*), count(due_date), count(*) filter (where fixed_at <= due_date), sum(seconds)
    from timed
    group by application_id, severity, scanner_type_id, fix_days`.execute(trx);
}

/**
 * Sums `day`'s application rows of `source` into `target` per group, and over every application as
 * group 0 (the group is the application's group when the day is written).
 */
async function writeGroupRollup(
  trx: Transaction<DB>,
  day: string,
  source: 'posture_daily' | 'posture_fixes',
  target: 'posture_group_daily' | 'posture_group_fixes',
  keys: readonly string[],
  summed: readonly string[],
): Promise<void> {
  const keyList = list(keys, 'p.');
  await sql`
    insert into ${sql.table(target)} (day, group_id, ${list(keys)}, ${list(summed)})
    select p.day, a.group_id, ${keyList}, ${sums(summed, 'p.')}
    from ${sql.table(source)} p
    join applications a on a.id = p.application_id
    where p.day = ${day}::date
    group by p.day, a.group_id, ${keyList}
    union all
    select p.day, 0, ${keyList}, ${sums(summed, 'p.')}
    from ${sql.table(source)} p
    where p.day = ${day}::date
    group by p.day, ${keyList}`.execute(trx);
}

const POSTURE_TABLES = [
  'posture_daily',
  'posture_fixes',
  'posture_group_daily',
  'posture_group_fixes',
] as const;

/**
 * Replaces every row of `day` with the posture at `end` (midnight after the day, or now for a day
 * not yet over): delete and insert in one transaction, so writing a day twice leaves the same rows.
 */
export async function writePostureDay(db: Kysely<DB>, day: string, end: Date): Promise<void> {
  const start = new Date(`${day}T00:00:00.000Z`);
  const complete = end.getTime() >= start.getTime() + 86_400_000;
  await db.transaction().execute(async (trx) => {
    await deleteDays(trx, sql<boolean>`day = ${day}::date`);
    await writeApplicationState(trx, day, start, end);
    await writeOpenDaily(trx, sql<boolean>`day = ${day}::date`);
    await writeApplicationFixes(trx, day, start, end);
    await writeGroupRollup(
      trx,
      day,
      'posture_daily',
      'posture_group_daily',
      ['severity', 'status'],
      STATE_SUMS,
    );
    await writeGroupRollup(
      trx,
      day,
      'posture_fixes',
      'posture_group_fixes',
      ['severity', 'scanner_type_id', 'fix_days'],
      FIX_SUMS,
    );
    await addToPeriods(trx, sql<boolean>`day = ${day}::date`, 1);
    await sql`insert into posture_days (day, complete, written_at) values (${day}::date, ${complete}, ${end})
      on conflict (day) do update set complete = excluded.complete, written_at = excluded.written_at`.execute(
      trx,
    );
  });
}

/** Summed columns of the period flow tables. */
export const FLOW_SUMS = ['opened', 'fixed', 'breached'] as const;

export type PosturePeriodKind = 'week' | 'month';

/** A roll-up period: its kind and first day (`YYYY-MM-DD`). */
export interface PosturePeriodKey {
  period: PosturePeriodKind;
  start: string;
}

/**
 * Rebuilds the week or month roll-ups (migration 2026-11-29T1200) of the periods `key.start` to
 * `last` (first days; `last` defaults to the first) from the daily rows of their days that exist:
 * delete and insert in one transaction, so a period's rows are always the sum of its days, however
 * often and in whatever order its days are written or dropped.
 */
export async function rebuildPosturePeriod(
  db: Kysely<DB>,
  key: PosturePeriodKey,
  last: string = key.start,
): Promise<void> {
  const length = sql.raw(key.period === 'week' ? "interval '7 days'" : "interval '1 month'");
  const inPeriods = sql`p.day >= ${key.start}::date and p.day < (${last}::date + ${length})::date`;
  // A literal (not a parameter), so the select's expression is the group by's.
  const start = sql`date_trunc(${sql.lit(key.period)}, p.day)::date`;
  const flowSums = sums(FLOW_SUMS, 'p.');
  const fixSums = sums(FIX_SUMS, 'p.');
  const fixKeys = list(['severity', 'scanner_type_id', 'fix_days'], 'p.');
  await db.transaction().execute(async (trx) => {
    for (const table of PERIOD_TABLES) {
      await sql`delete from ${sql.table(table)}
        where period = ${key.period} and day between ${key.start}::date and ${last}::date`.execute(trx);
    }
    // Flows live on few rows (a day's opened, fixed or breached findings): the others add nothing.
    await sql`insert into posture_period_flows (application_id, period, day, severity, ${list(FLOW_SUMS)})
      select p.application_id, ${key.period}, ${start}, p.severity, ${flowSums}
      from posture_daily p
      where ${inPeriods} and (p.opened > 0 or p.fixed > 0 or p.breached > 0)
      group by p.application_id, ${start}, p.severity`.execute(trx);
    await sql`insert into posture_group_period_flows (group_id, period, day, severity, ${list(FLOW_SUMS)})
      select p.group_id, ${key.period}, ${start}, p.severity, ${flowSums}
      from posture_group_daily p
      where ${inPeriods} and (p.opened > 0 or p.fixed > 0 or p.breached > 0)
      group by p.group_id, ${start}, p.severity`.execute(trx);
    await sql`insert into posture_period_fixes
        (application_id, period, day, severity, scanner_type_id, fix_days, ${list(FIX_SUMS)})
      select p.application_id, ${key.period}, ${start}, ${fixKeys}, ${fixSums}
      from posture_fixes p
      where ${inPeriods}
      group by p.application_id, ${start}, ${fixKeys}`.execute(trx);
    await sql`insert into posture_group_period_fixes
        (group_id, period, day, severity, scanner_type_id, fix_days, ${list(FIX_SUMS)})
      select p.group_id, ${key.period}, ${start}, ${fixKeys}, ${fixSums}
      from posture_group_fixes p
      where ${inPeriods}
      group by p.group_id, ${start}, ${fixKeys}`.execute(trx);
  });
}

const PERIOD_TABLES = [
  'posture_period_flows',
  'posture_group_period_flows',
  'posture_period_fixes',
  'posture_group_period_fixes',
] as const;

/**
 * Days from `oldest` to `newest` (inclusive) not completely written, newest first, at most `limit`;
 * none before the first finding was seen.
 */
export async function missingPostureDays(
  db: Kysely<DB>,
  oldest: string,
  newest: string,
  limit: number,
): Promise<string[]> {
  const rows = await sql<{ day: string }>`
    select to_char(d, 'YYYY-MM-DD') as day
    from generate_series(
      -- No finding yet: nothing to back-fill (the series starts after it ends).
      greatest(
        ${oldest}::date,
        coalesce((select (min(first_seen_at) at time zone 'UTC')::date from findings), ${newest}::date + 1)
      ),
      ${newest}::date, interval '1 day') as d
    where not exists (select 1 from posture_days p where p.day = d::date and p.complete)
    order by d desc
    limit ${limit}`.execute(db);
  return rows.rows.map((row) => row.day);
}

/**
 * Drops every snapshot row of days before `oldestKept`, and the roll-ups of periods that ended
 * before it (the period `oldestKept` falls in is rebuilt by the caller from the days it keeps).
 */
export async function dropPostureBefore(db: Kysely<DB>, oldestKept: string): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const dropped = await deleteDays(trx, sql<boolean>`day < ${oldestKept}::date`);
    const result = await sql`delete from posture_days where day < ${oldestKept}::date`.execute(trx);
    return dropped + Number(result.numAffectedRows ?? 0n);
  });
}

/** The roll-up of each period table: its daily source, key columns and sums. */
const PERIOD_SOURCES = [
  {
    table: 'posture_period_flows',
    source: 'posture_daily',
    owner: 'application_id',
    keys: ['severity'],
    summed: FLOW_SUMS,
  },
  {
    table: 'posture_group_period_flows',
    source: 'posture_group_daily',
    owner: 'group_id',
    keys: ['severity'],
    summed: FLOW_SUMS,
  },
  {
    table: 'posture_period_fixes',
    source: 'posture_fixes',
    owner: 'application_id',
    keys: ['severity', 'scanner_type_id', 'fix_days'],
    summed: FIX_SUMS,
  },
  {
    table: 'posture_group_period_fixes',
    source: 'posture_group_fixes',
    owner: 'group_id',
    keys: ['severity', 'scanner_type_id', 'fix_days'],
    summed: FIX_SUMS,
  },
] as const;

/**
 * Adds (`sign` 1) or takes away (-1) the daily rows of `rows` (a derived table with the daily
 * tables' columns, or `where` over them) to the week and month roll-ups of their days, and drops
 * roll-up rows left at zero: so each period stays the sum of the days it has, one day at a time.
 */
async function addToPeriods(
  trx: Transaction<DB>,
  where: RawBuilder<boolean>,
  sign: 1 | -1,
  deleted?: { [table: string]: RawBuilder<unknown> },
): Promise<void> {
  for (const { table, source, owner, keys, summed } of PERIOD_SOURCES) {
    const from = deleted?.[source] ?? sql`(select * from ${sql.table(source)} where ${where})`;
    const start = sql`date_trunc(k.period, p.day)::date`;
    const nonZero =
      summed === FLOW_SUMS ? sql`(p.opened > 0 or p.fixed > 0 or p.breached > 0)` : sql`p.fixed > 0`;
    const updates = sql.raw(summed.map((name) => `${name} = t.${name} + excluded.${name}`).join(', '));
    await sql`
      insert into ${sql.table(table)} as t (${sql.raw(owner)}, period, day, ${list(keys)}, ${list(summed)})
      select p.${sql.raw(owner)}, k.period, ${start}, ${list(keys, 'p.')},
        ${sql.raw(summed.map((name) => `${sign} * sum(p.${name})`).join(', '))}
      from ${from} p cross join (values ('week'), ('month')) k(period)
      where ${nonZero}
      group by p.${sql.raw(owner)}, k.period, ${start}, ${list(keys, 'p.')}
      on conflict (${sql.raw(owner)}, period, day, ${list(keys)}) do update set ${updates}`.execute(trx);
    if (sign < 0) {
      const zero =
        summed === FLOW_SUMS
          ? sql`opened = 0 and fixed = 0 and breached = 0`
          : sql`fixed = 0 and sla_fixed = 0`;
      await sql`delete from ${sql.table(table)} where ${zero}
        and (period, day) in (select distinct k.period, date_trunc(k.period, p.day)::date
          from ${from} p cross join (values ('week'), ('month')) k(period))`.execute(trx);
    }
  }
}

/** Deletes the daily rows `where` selects from every posture table, taking them out of the roll-ups. */
async function deleteDays(trx: Transaction<DB>, where: RawBuilder<boolean>): Promise<number> {
  let dropped = 0;
  const gone: { [table: string]: RawBuilder<unknown> } = {};
  for (const table of POSTURE_TABLES) {
    // Into a temporary table: the roll-ups read what each delete removed.
    const temp = `posture_gone_${table}`;
    await sql`create temporary table if not exists ${sql.table(temp)} (like ${sql.table(table)}) on commit drop`.execute(
      trx,
    );
    await sql`delete from ${sql.table(temp)}`.execute(trx);
    const result = await sql`with gone as (delete from ${sql.table(table)} where ${where} returning *)
      insert into ${sql.table(temp)} select * from gone`.execute(trx);
    dropped += Number(result.numAffectedRows ?? 0n);
    gone[table] = sql.table(temp);
  }
  await addToPeriods(trx, where, -1, gone);
  // Derived from posture_daily's rows of the same days: counted there (`dropped`), not again here.
  await sql`delete from posture_open_daily where ${where}`.execute(trx);
  return dropped;
}
