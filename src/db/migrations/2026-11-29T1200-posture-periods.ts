import { sql, type Kysely } from 'kysely';

/**
 * Posture roll-ups per calendar week (ISO, from Monday) and month (issue 47): a year of metrics for
 * 10k applications read a day's fixes per row — over every application a hundred thousand rows for
 * a year's time to fix — and a member's single applications a year of daily rows for new versus
 * fixed. The flows of a day (opened, fixed, breached) and its fixes are summed here per period, so
 * a range reads its whole weeks or months from these and only the days at its edges from the daily
 * tables (src/modules/metrics/metrics.service.ts).
 *
 * - `posture_period_flows` / `posture_group_period_flows`: per application (group; 0 is every
 *   application) × period × severity, the sums of `opened`, `fixed`, `breached` over the period's
 *   daily rows (every status: a flow is counted on the row of the status its finding ended the day in).
 * - `posture_period_fixes` / `posture_group_period_fixes`: the fix tables' rows summed per period.
 *
 * `period` is `week` or `month`, `day` the period's first day. A period's rows are always the sum of
 * the daily rows of its days that exist: the posture job rebuilds a period whenever it writes or
 * drops one of its days (posture.repository.ts).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const flows = sql.raw(`period text not null check (period in ('week', 'month')),
    day date not null,
    severity text not null,
    opened integer not null,
    fixed integer not null,
    breached integer not null`);
  const fixes = sql.raw(`period text not null check (period in ('week', 'month')),
    day date not null,
    severity text not null,
    scanner_type_id integer not null,
    fix_days integer not null,
    fixed integer not null,
    sla_fixed integer not null,
    within_sla integer not null,
    fix_seconds double precision not null`);
  // As for the daily tables, the keys' indexes carry the sums (index-only scans).
  const flowSums = sql.raw('opened, fixed, breached');
  const fixSums = sql.raw('fixed, sla_fixed, within_sla, fix_seconds');
  for (const [table, owner] of [
    ['posture_period_flows', 'application_id'],
    ['posture_group_period_flows', 'group_id'],
  ] as const) {
    await sql`create table ${sql.table(table)} (
      ${sql.raw(owner)} integer not null,
      ${flows},
      primary key (${sql.raw(owner)}, period, day, severity) include (${flowSums})
    )`.execute(db);
    await sql`create index ${sql.raw(`${table}_day_idx`)} on ${sql.table(table)} (period, day)`.execute(db);
  }
  for (const [table, owner] of [
    ['posture_period_fixes', 'application_id'],
    ['posture_group_period_fixes', 'group_id'],
  ] as const) {
    await sql`create table ${sql.table(table)} (
      ${sql.raw(owner)} integer not null,
      ${fixes},
      primary key (${sql.raw(owner)}, period, day, severity, scanner_type_id, fix_days) include (${fixSums})
    )`.execute(db);
    await sql`create index ${sql.raw(`${table}_day_idx`)} on ${sql.table(table)} (period, day)`.execute(db);
  }
}
