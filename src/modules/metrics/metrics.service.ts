import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Principal } from '../../access/principal.ts';
import type { DB } from '../../db/schema.ts';
import { isOpen } from '../../domain/findings/lifecycle.ts';
import { SEVERITIES } from '../../domain/findings/severity.ts';
import { medianBucket } from './fix-buckets.ts';
import {
  periodIndexOf,
  periodStart,
  periodsOf,
  resolveRange,
  type Interval,
  type Period,
  type Range,
} from './metrics-range.ts';
import {
  everyApplicationOf,
  postureRows,
  resolvePostureSource,
  type PostureSource,
} from './metrics-scope.ts';
import type {
  Ageing,
  AsOfQueryInput,
  Burndown,
  NewVersusFixed,
  OpenOverTime,
  SeriesQueryInput,
  Sla,
  SlaQueryInput,
  TimeToFix,
  TimeToFixQueryInput,
  TopApplications,
  TopApplicationsQueryInput,
} from './metrics.schema.ts';
import { addDays, daysBetween } from './utc-days.ts';

/**
 * The metrics API's figures, read from the posture snapshots (posture.repository.ts) of the
 * applications the caller may read: each answer is one or two grouped queries over at most a few
 * hundred thousand pre-summed rows, whatever the number of findings.
 */

const STATE_TABLES = { group: 'posture_group_daily', application: 'posture_daily' };
const FIX_TABLES = { group: 'posture_group_fixes', application: 'posture_fixes' };
const PERIOD_FLOW_TABLES = { group: 'posture_group_period_flows', application: 'posture_period_flows' };
const PERIOD_FIX_TABLES = { group: 'posture_group_period_fixes', application: 'posture_period_fixes' };

/**
 * The rows of `range` from the daily tables and the week or month roll-ups (`rollup`): its whole
 * periods from the roll-ups (a row per period, `day` its first day), the days at its edges (the
 * clipped first and last periods) from the daily tables (for months: their whole weeks from the
 * week roll-ups, the rest from the days), as one derived table of `columns`.
 * Without a roll-up, every day from the daily tables. The columns have the same names in both.
 */
function coveredRows(
  source: PostureSource,
  rollup: 'week' | 'month' | undefined,
  tables: { daily: { group: string; application: string }; periods: { group: string; application: string } },
  columns: readonly string[],
  range: Range,
): RawBuilder<unknown> {
  const daily = (from: string, to: string) =>
    postureRows(source, tables.daily, columns, sql<boolean>`day between ${from}::date and ${to}::date`);
  if (!rollup) return daily(range.from, range.to);
  const parts: RawBuilder<unknown>[] = [];
  const whole: string[] = [];
  for (const period of periodsOf(range, rollup)) {
    const after = addDays(period.end, 1);
    if (periodStart(period.start, rollup) === period.start && periodStart(after, rollup) === after) {
      whole.push(period.start);
    } else if (rollup === 'month') {
      // A month's clipped edge: its whole weeks (inside it, so in its month) from the week roll-ups.
      parts.push(coveredRows(source, 'week', tables, columns, { from: period.start, to: period.end }));
    } else {
      parts.push(daily(period.start, period.end));
    }
  }
  if (whole.length > 0) {
    parts.push(
      postureRows(
        source,
        tables.periods,
        columns,
        sql<boolean>`period = ${rollup} and day between ${whole[0]}::date and ${whole.at(-1)}::date`,
      ),
    );
  }
  return sql`(${sql.join(
    parts.map((part) => sql`select * from ${part} r`),
    sql` union all `,
  )})`;
}
const OPEN = isOpen(sql.ref('status'));

interface Scoped {
  source: PostureSource;
  range: Range;
}

async function scoped(
  db: Kysely<DB>,
  principal: Principal,
  query: { application_id?: string; group_id?: string; from?: string; to?: string },
  now: Date,
): Promise<Scoped> {
  const range = resolveRange(query, now);
  return { range, source: await resolvePostureSource(db, principal, query) };
}

/** The roll-up whose periods fit in the periods of `interval` (none for days). */
const rollupOf = (interval: Interval | undefined): 'week' | 'month' | undefined =>
  interval === 'week' || interval === 'month' ? interval : undefined;

const round2 = (value: number) => Math.round(value * 100) / 100;
const percent = (part: number, whole: number) => (whole === 0 ? null : round2((part / whole) * 100));
const zeros = () => ({ critical: 0, high: 0, medium: 0, low: 0, info: 0 });
type SeverityCounts = ReturnType<typeof zeros>;

/** Sums of `summed` over the scope's state rows on `days`, by day and severity, open findings only. */
async function openStateByDay(
  db: Kysely<DB>,
  source: PostureSource,
  days: readonly string[],
  summed: 'findings' | 'overdue',
): Promise<Map<string, SeverityCounts>> {
  const sorted = [...days].sort();
  const first = sorted[0] ?? '';
  const last = sorted.at(-1) ?? '';
  // Every day of a range (a daily series): one index range per key, not a probe per day.
  const contiguous = sorted.length > 0 && daysBetween(first, last) + 1 === new Set(sorted).size;
  const onDays = contiguous
    ? sql<boolean>`day between ${first}::date and ${last}::date`
    : sql<boolean>`day = any(${[...days]}::date[])`;
  // Open findings of single applications: one row per application and day (posture_open_daily),
  // summed per day and then turned into a row per severity, where posture_daily has a row per
  // severity and status (bench 15: a member's 50 applications over a year, 146k rows against 18k).
  const openDaily = summed === 'findings' && source.applicationIds.length > 0;
  const rows = postureRows(
    openDaily ? { ...source, applicationIds: [] } : source,
    STATE_TABLES,
    ['day', 'severity', 'status', summed],
    onDays,
  );
  // Some days of a range (the ends of weeks): the days as offsets from the first, so the day index
  // is no index for them — the planner otherwise intersected it (530k entries for a year's 53 days)
  // with the applications' range (18k), where reading the range and filtering is a few ms.
  const onOffsets = sql`and (day - ${first}::date) = any(${sorted.map((day) => daysBetween(first, day))}::integer[])`;
  const parts =
    openDaily && source.groupIds.length === 0
      ? []
      : [sql`select day, severity, ${sql.ref(summed)} as value from ${rows} s where ${OPEN}`];
  if (openDaily) {
    const perDay = sql.join(
      SEVERITIES.map((severity) => sql`sum(${sql.ref(severity)}) as ${sql.ref(severity)}`),
    );
    const unpivot = sql.join(
      SEVERITIES.map((severity) => sql`(${sql.lit(severity)}, o.${sql.ref(severity)})`),
    );
    parts.push(sql`select o.day, v.severity, v.value
      from (
        select day, ${perDay} from posture_open_daily
        where application_id = any(${source.applicationIds}::integer[])
          and day between ${first}::date and ${last}::date ${contiguous ? sql`` : onOffsets}
        group by day
      ) o
      cross join lateral (values ${unpivot}) v(severity, value)`);
  }
  const result = await sql<{ day: string; severity: keyof SeverityCounts; value: number }>`
    select to_char(day, 'YYYY-MM-DD') as day, severity, sum(value)::float8 as value
    from (${sql.join(parts, sql` union all `)}) u group by day, severity`.execute(db);
  const byDay = new Map<string, SeverityCounts>();
  for (const row of result.rows) {
    const counts = byDay.get(row.day) ?? zeros();
    counts[row.severity] = Number(row.value);
    byDay.set(row.day, counts);
  }
  return byDay;
}

/** Open findings by severity at the end of each period. */
export async function openOverTime(
  db: Kysely<DB>,
  principal: Principal,
  query: SeriesQueryInput,
  now: Date = new Date(),
): Promise<OpenOverTime> {
  const { source, range } = await scoped(db, principal, query, now);
  const interval = query.interval ?? 'week';
  const periods = periodsOf(range, interval);
  const byDay = await openStateByDay(
    db,
    source,
    periods.map((period) => period.end),
    'findings',
  );
  return {
    ...range,
    interval,
    points: periods.map((period) => {
      const counts = byDay.get(period.end) ?? zeros();
      return { date: period.end, ...counts, total: Object.values(counts).reduce((a, b) => a + b, 0) };
    }),
  };
}

/**
 * Findings opened and fixed over the scope per day of the range, or per whole week or month of
 * `rollup` (the row's day is the period's first) where the range covers it.
 */
async function flowsByDay(
  db: Kysely<DB>,
  source: PostureSource,
  range: Range,
  rollup: 'week' | 'month' | undefined,
): Promise<{ day: string; opened: number; fixed: number }[]> {
  const rows = coveredRows(
    source,
    rollup,
    { daily: STATE_TABLES, periods: PERIOD_FLOW_TABLES },
    ['day', 'opened', 'fixed'],
    range,
  );
  const result = await sql<{ day: string; opened: number; fixed: number }>`
    select to_char(day, 'YYYY-MM-DD') as day, sum(opened)::integer as opened, sum(fixed)::integer as fixed
    from ${rows} s group by day`.execute(db);
  return result.rows;
}

/** New and fixed findings per period. */
export async function newVersusFixed(
  db: Kysely<DB>,
  principal: Principal,
  query: SeriesQueryInput,
  now: Date = new Date(),
): Promise<NewVersusFixed> {
  const { source, range } = await scoped(db, principal, query, now);
  const interval = query.interval ?? 'week';
  const periods = periodsOf(range, interval);
  const points = periods.map((period) => ({
    period_start: period.start,
    period_end: period.end,
    new: 0,
    fixed: 0,
  }));
  for (const row of await flowsByDay(db, source, range, rollupOf(interval))) {
    const point = points[periodIndexOf(periods, row.day)];
    if (point) {
      point.new += row.opened;
      point.fixed += row.fixed;
    }
  }
  return { ...range, interval, points };
}

/** Open findings at the end of each period, with new and fixed ones since the range began. */
export async function burndown(
  db: Kysely<DB>,
  principal: Principal,
  query: SeriesQueryInput,
  now: Date = new Date(),
): Promise<Burndown> {
  const { source, range } = await scoped(db, principal, query, now);
  const interval = query.interval ?? 'week';
  const periods = periodsOf(range, interval);
  const before = addDays(range.from, -1);
  const [open, flows] = await Promise.all([
    openStateByDay(db, source, [before, ...periods.map((period) => period.end)], 'findings'),
    flowsByDay(db, source, range, rollupOf(interval)),
  ]);
  const total = (day: string) => Object.values(open.get(day) ?? zeros()).reduce((a, b) => a + b, 0);
  const sorted = [...flows].sort((a, b) => a.day.localeCompare(b.day));
  let index = 0;
  let opened = 0;
  let fixed = 0;
  const points = periods.map((period) => {
    while (index < sorted.length && (sorted[index]?.day ?? '') <= period.end) {
      opened += sorted[index]?.opened ?? 0;
      fixed += sorted[index]?.fixed ?? 0;
      index += 1;
    }
    return { date: period.end, open: total(period.end), new_cumulative: opened, fixed_cumulative: fixed };
  });
  return { ...range, interval, open_at_start: total(before), points };
}

/** SQL: the start of the period a `day` column falls in, clipped to the range. */
function periodStartSql(interval: Interval | undefined, range: Range): RawBuilder<string> {
  if (!interval) return sql<string>`${range.from}::text`;
  // On a timestamp (not the timestamptz a date is cast to by default): no time zone to apply per row.
  const start = interval === 'day' ? sql`day` : sql`date_trunc(${interval}, day::timestamp)::date`;
  return sql<string>`to_char(greatest(${start}, ${range.from}::date), 'YYYY-MM-DD')`;
}

interface FixRow {
  period: string;
  key: string;
  fix_days: number;
  fixed: number;
  sla_fixed: number;
  within_sla: number;
  fix_seconds: number;
}

/** Fixes of the range summed by period, key (severity or scanner type id) and days-to-fix bucket. */
async function fixRows(
  db: Kysely<DB>,
  scope: Scoped,
  interval: Interval | undefined,
  key: 'severity' | 'scanner_type_id',
): Promise<FixRow[]> {
  const { source, range } = scope;
  const rows = coveredRows(
    source,
    // A whole range (no interval) is a sum: months where it covers them.
    interval === undefined ? 'month' : rollupOf(interval),
    { daily: FIX_TABLES, periods: PERIOD_FIX_TABLES },
    ['day', 'severity', 'scanner_type_id', 'fix_days', 'fixed', 'sla_fixed', 'within_sla', 'fix_seconds'],
    range,
  );
  // Summed by day first (a date, a key, a bucket: cheap to hash), and only those sums given their
  // period: the period's expression per row read was most of a member's year (bench 15).
  const result = await sql<FixRow>`
    select ${periodStartSql(interval, range)} as period, key::text as key, fix_days,
      sum(fixed)::integer as fixed, sum(sla_fixed)::integer as sla_fixed,
      sum(within_sla)::integer as within_sla, sum(fix_seconds)::float8 as fix_seconds
    from (
      select day, ${sql.ref(key)} as key, fix_days, sum(fixed) as fixed, sum(sla_fixed) as sla_fixed,
        sum(within_sla) as within_sla, sum(fix_seconds) as fix_seconds
      from ${rows} s
      group by day, ${sql.ref(key)}, fix_days
    ) d
    group by 1, 2, 3`.execute(db);
  return result.rows;
}

const periodOf = (periods: readonly Period[], start: string): Period =>
  periods.find((period) => period.start === start) ?? { start, end: start };

/** Mean and median days to fix per period and severity (or scanner type). */
export async function timeToFix(
  db: Kysely<DB>,
  principal: Principal,
  query: TimeToFixQueryInput,
  now: Date = new Date(),
): Promise<TimeToFix> {
  const scope = await scoped(db, principal, query, now);
  const by = query.by ?? 'severity';
  const periods = periodsOf(scope.range, query.interval);
  const rows = await fixRows(db, scope, query.interval, by === 'severity' ? 'severity' : 'scanner_type_id');
  const names =
    by === 'scanner'
      ? new Map(
          (await db.selectFrom('scanner_types').select(['id', 'name']).execute()).map((row) => [
            String(row.id),
            row.name,
          ]),
        )
      : undefined;
  const groups = new Map<string, FixRow[]>();
  for (const row of rows) {
    const id = `${row.period}\u0000${row.key}`;
    groups.set(id, [...(groups.get(id) ?? []), row]);
  }
  const order = (key: string) => (by === 'severity' ? SEVERITIES.indexOf(key as never) : 0);
  return {
    ...scope.range,
    interval: query.interval ?? null,
    by,
    rows: [...groups.values()]
      .map((buckets) => {
        const first = buckets[0] as FixRow;
        const period = periodOf(periods, first.period);
        const fixed = buckets.reduce((sum, bucket) => sum + bucket.fixed, 0);
        const seconds = buckets.reduce((sum, bucket) => sum + bucket.fix_seconds, 0);
        return {
          period_start: period.start,
          period_end: period.end,
          key: names?.get(first.key) ?? first.key,
          fixed,
          mean_days: fixed === 0 ? null : round2(seconds / fixed / 86_400),
          median_days: medianBucket(buckets),
        };
      })
      .sort(
        (a, b) =>
          a.period_start.localeCompare(b.period_start) ||
          order(a.key) - order(b.key) ||
          a.key.localeCompare(b.key),
      ),
  };
}

/** The last snapshot day on or before `to` (null: none). */
async function asOfDay(db: Kysely<DB>, to: string): Promise<string | null> {
  const row = await sql<{ day: string | null }>`
    select to_char(max(day), 'YYYY-MM-DD') as day from posture_days where day <= ${to}::date`.execute(db);
  return row.rows[0]?.day ?? null;
}

/** SLA compliance (fixed within their due date ÷ fixed with one) and open findings past due. */
export async function slaCompliance(
  db: Kysely<DB>,
  principal: Principal,
  query: SlaQueryInput,
  now: Date = new Date(),
): Promise<Sla> {
  const scope = await scoped(db, principal, query, now);
  const periods = periodsOf(scope.range, query.interval);
  const asOf = await asOfDay(db, scope.range.to);
  const [rows, breached] = await Promise.all([
    fixRows(db, scope, query.interval, 'severity'),
    asOf
      ? openStateByDay(db, scope.source, [asOf], 'overdue')
      : Promise.resolve(new Map<string, SeverityCounts>()),
  ]);
  const figures = (selected: readonly FixRow[]) => {
    const fixed = selected.reduce((sum, row) => sum + row.fixed, 0);
    const slaFixed = selected.reduce((sum, row) => sum + row.sla_fixed, 0);
    const within = selected.reduce((sum, row) => sum + row.within_sla, 0);
    return { fixed, sla_fixed: slaFixed, within_sla: within, compliance_percent: percent(within, slaFixed) };
  };
  const breachedNow = (asOf && breached.get(asOf)) || zeros();
  return {
    ...scope.range,
    interval: query.interval ?? null,
    as_of: asOf,
    ...figures(rows),
    breached: Object.values(breachedNow).reduce((a, b) => a + b, 0),
    by_severity: SEVERITIES.map((severity) => ({
      severity,
      ...figures(rows.filter((row) => row.key === severity)),
      breached: breachedNow[severity],
    })),
    periods: periods.map((period) => ({
      period_start: period.start,
      period_end: period.end,
      ...figures(rows.filter((row) => row.period === period.start)),
    })),
  };
}

/** Open findings by severity and age (days since first seen) at the end of the last snapshot day. */
export async function ageing(
  db: Kysely<DB>,
  principal: Principal,
  query: AsOfQueryInput,
  now: Date = new Date(),
): Promise<Ageing> {
  const { source, range } = await scoped(db, principal, query, now);
  const asOf = await asOfDay(db, range.to);
  const buckets = ['age_0_7', 'age_8_30', 'age_31_90', 'age_over_90'] as const;
  const sums = new Map<string, number[]>();
  if (asOf) {
    const rows = postureRows(
      source,
      STATE_TABLES,
      ['day', 'severity', 'status', ...buckets],
      sql<boolean>`day = ${asOf}::date`,
    );
    const result = await sql<{ severity: string; a: number; b: number; c: number; d: number }>`
      select severity, sum(age_0_7)::integer as a, sum(age_8_30)::integer as b, sum(age_31_90)::integer as c,
        sum(age_over_90)::integer as d
      from ${rows} s where ${OPEN} group by severity`.execute(db);
    for (const row of result.rows) sums.set(row.severity, [row.a, row.b, row.c, row.d]);
  }
  return {
    ...range,
    as_of: asOf,
    rows: SEVERITIES.map((severity) => {
      const [a = 0, b = 0, c = 0, d = 0] = sums.get(severity) ?? [];
      return { severity, days_0_7: a, days_8_30: b, days_31_90: c, days_over_90: d };
    }),
  };
}

/** Applications with the most open risk, or the most open findings past due, at the last snapshot day. */
export async function topApplications(
  db: Kysely<DB>,
  principal: Principal,
  query: TopApplicationsQueryInput,
  now: Date = new Date(),
): Promise<TopApplications> {
  const { source, range } = await scoped(db, principal, query, now);
  const by = query.by ?? 'risk';
  const asOf = await asOfDay(db, range.to);
  if (!asOf) return { ...range, as_of: null, by, applications: [] };
  const rank = by === 'risk' ? sql`risk` : sql`breached`;
  const result = await sql<{
    id: number;
    name: string;
    slug: string;
    group_id: number;
    open: number;
    risk: number;
    breached: number;
  }>`
    select a.id, a.name, a.slug, a.group_id, t.open, t.risk, t.breached
    from (
      select application_id, sum(findings)::integer as open, sum(risk)::float8 as risk,
        sum(overdue)::integer as breached
      from posture_daily
      where day = ${asOf}::date and ${OPEN} and ${everyApplicationOf(source, 'application_id')}
      group by application_id
      order by ${rank} desc, application_id
      limit ${query.limit ?? 10}
    ) t
    join applications a on a.id = t.application_id
    where t.${rank} > 0
    order by t.${rank} desc, a.id`.execute(db);
  return {
    ...range,
    as_of: asOf,
    by,
    applications: result.rows.map((row) => ({ ...row, risk: Math.round(Number(row.risk)) })),
  };
}
