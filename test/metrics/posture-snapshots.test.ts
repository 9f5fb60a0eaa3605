import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { periodStart } from '../../src/modules/metrics/metrics-range.ts';
import {
  rebuildPostureOpenDaily,
  rebuildPosturePeriod,
  writePostureDay,
} from '../../src/modules/metrics/posture.repository.ts';
import { runPostureSnapshots } from '../../src/modules/metrics/posture.service.ts';
import { makeUser } from '../support/factories.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { NOW, seedHistory, type SeededHistory } from './seeded-history.ts';

/** The posture job: idempotent, back-fills missed days from the timelines, keeps its retention. */

let t: TestApp;
let seeded: SeededHistory;

const TABLES = [
  'posture_daily',
  'posture_open_daily',
  'posture_group_daily',
  'posture_fixes',
  'posture_group_fixes',
] as const;

/** Every snapshot row of every table, as text, sorted: what "changes nothing" compares. */
async function allRows(day?: string): Promise<string[]> {
  const rows: string[] = [];
  for (const table of TABLES) {
    const result = await sql<Record<string, unknown>>`select * from ${sql.table(table)}
      ${day ? sql`where day = ${day}::date` : sql``}`.execute(t.db);
    rows.push(...result.rows.map((row) => `${table} ${JSON.stringify({ ...row, day: String(row.day) })}`));
  }
  return rows.sort();
}

const PERIOD_TABLES = [
  'posture_period_flows',
  'posture_group_period_flows',
  'posture_period_fixes',
  'posture_group_period_fixes',
] as const;

/** Every roll-up row, as text (seconds to the millisecond: sums taken away and added again). */
async function periodRows(): Promise<string[]> {
  const rows: string[] = [];
  for (const table of PERIOD_TABLES) {
    const result = await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(t.db);
    rows.push(
      ...result.rows.map((row) => {
        const seconds =
          row.fix_seconds === undefined ? {} : { fix_seconds: Number(row.fix_seconds).toFixed(3) };
        return `${table} ${JSON.stringify({ ...row, ...seconds, day: String(row.day) })}`;
      }),
    );
  }
  return rows.sort();
}

/**
 * The roll-ups as the job left them (day by day) and as rebuilt from the daily rows kept: the same.
 * Returns how many rows there are, so a test can tell it compared something.
 */
async function expectPeriodsAreSumsOfDays(): Promise<number> {
  const kept = await periodRows();
  const range = await sql<{ first: string; last: string }>`
    select to_char(min(day), 'YYYY-MM-DD') as first, to_char(max(day), 'YYYY-MM-DD') as last
    from posture_days`.execute(t.db);
  const { first, last } = range.rows[0] ?? { first: '', last: '' };
  for (const period of ['week', 'month'] as const) {
    await rebuildPosturePeriod(
      t.db,
      { period, start: periodStart(first, period) },
      periodStart(last, period),
    );
  }
  const rebuilt = await periodRows();
  expect(kept).toEqual(rebuilt);
  // The open findings per application-day: as the job kept them and recomputed from posture_daily.
  const openDaily = async () =>
    (
      await sql<Record<string, unknown>>`select application_id, to_char(day, 'YYYY-MM-DD') as day,
        critical, high, medium, low, info from posture_open_daily order by application_id, day`.execute(t.db)
    ).rows;
  const keptOpen = await openDaily();
  expect(keptOpen.length).toBeGreaterThan(0);
  // Wider than the days kept: a row left on a dropped day would be deleted by the rebuild.
  await rebuildPostureOpenDaily(t.db, '2000-01-01', '2100-01-01');
  expect(keptOpen).toEqual(await openDaily());
  return kept.length;
}

const openOf = async (applicationId: number, day: string) => {
  const result = await sql<{ severity: string; status: string; findings: number }>`
    select severity, status, findings from posture_daily
    where application_id = ${applicationId} and day = ${day}::date and status in ('open', 'confirmed')
    order by severity, status`.execute(t.db);
  return result.rows;
};

beforeAll(async () => {
  t = await createTestApp();
  const admin = await makeUser(t, { role: 'admin' });
  seeded = await seedHistory(t, admin);
}, 240_000); // a fresh database and 40 days of snapshots: slow on a shared, loaded machine
afterAll(() => t?.close());

describe('posture snapshots', () => {
  it('a first run writes today and back-fills every day since the oldest kept', async () => {
    const result = await runPostureSnapshots(t.db, { now: NOW, retentionDays: 40, maxDays: 100 });
    // Today (2026-02-01) so far, then 2026-01-31 back to 2025-12-24 (40 days kept, today included).
    expect(result.written[0]).toBe('2026-02-01');
    expect(result.written).toHaveLength(40);
    expect(result.written.at(-1)).toBe('2025-12-24');
    const days = await sql<{ day: string; complete: boolean }>`
      select to_char(day, 'YYYY-MM-DD') as day, complete from posture_days order by day`.execute(t.db);
    expect(days.rows).toHaveLength(40);
    expect(days.rows.filter((row) => !row.complete).map((row) => row.day)).toEqual(['2026-02-01']);
    expect(await expectPeriodsAreSumsOfDays()).toBeGreaterThan(0);
  }, 180_000);

  it('reads past statuses from the timeline: f2 open on 2026-01-11, f7 fixed on 2026-01-15, open again on 2026-01-16', async () => {
    expect(await openOf(seeded.a, '2026-01-11')).toEqual([
      { severity: 'critical', status: 'open', findings: 1 }, // f2, fixed only on the 15th
      { severity: 'high', status: 'open', findings: 2 }, // f3, f4
      { severity: 'medium', status: 'confirmed', findings: 1 }, // f5, confirmed that morning
    ]);
    expect(await openOf(seeded.a, '2026-01-10')).toContainEqual({
      severity: 'medium',
      status: 'open',
      findings: 1,
    });
    expect(await openOf(seeded.b, '2026-01-15')).toEqual([]);
    expect(await openOf(seeded.b, '2026-01-16')).toEqual([
      { severity: 'critical', status: 'open', findings: 1 },
    ]);
    // The same, one row per application-day (posture_open_daily); none for a day without open ones.
    const openDaily = async (applicationId: number, day: string) =>
      (
        await sql`select critical, high, medium, low, info from posture_open_daily
          where application_id = ${applicationId} and day = ${day}::date`.execute(t.db)
      ).rows;
    expect(await openDaily(seeded.a, '2026-01-11')).toEqual([
      { critical: 1, high: 2, medium: 1, low: 0, info: 0 },
    ]);
    expect(await openDaily(seeded.b, '2026-01-15')).toEqual([]);
    expect(await openDaily(seeded.b, '2026-01-16')).toEqual([
      { critical: 1, high: 0, medium: 0, low: 0, info: 0 },
    ]);
    // Before a finding was first seen it is nowhere.
    expect(await openOf(seeded.c, '2026-01-01')).toEqual([]);
    expect(await openOf(seeded.c, '2026-01-02')).toEqual([{ severity: 'high', status: 'open', findings: 1 }]);
  });

  it('counts opened, fixed and breached on the day they happened, and rolls them up per group and overall', async () => {
    const day = async (
      table: 'posture_daily' | 'posture_group_daily',
      key: string,
      id: number,
      date: string,
    ) =>
      (
        await sql<{ opened: number; fixed: number; breached: number; overdue: number }>`
          select sum(opened)::int as opened, sum(fixed)::int as fixed, sum(breached)::int as breached,
            sum(overdue)::int as overdue
          from ${sql.table(table)} where ${sql.ref(key)} = ${id} and day = ${date}::date`.execute(t.db)
      ).rows[0];
    expect(await day('posture_daily', 'application_id', seeded.b, '2026-01-20')).toEqual({
      opened: 1,
      fixed: 1,
      breached: 0,
      overdue: 1, // f6 seen and fixed; f7 past due since the 19th
    });
    expect(await day('posture_daily', 'application_id', seeded.b, '2026-01-19')).toEqual({
      opened: 0,
      fixed: 0,
      breached: 1,
      overdue: 1,
    });
    expect(await day('posture_group_daily', 'group_id', seeded.g1, '2026-01-05')).toEqual({
      opened: 2,
      fixed: 0,
      breached: 0,
      overdue: 1, // f1, f2; f4
    });
    expect(await day('posture_group_daily', 'group_id', 0, '2026-01-09')).toEqual({
      opened: 0,
      fixed: 0,
      breached: 1,
      overdue: 2, // f8 breaches; f4 was already past due
    });
  });

  it('running again changes nothing but today, and writing a past day twice leaves the same rows', async () => {
    const before = await allRows();
    const again = await runPostureSnapshots(t.db, { now: NOW, retentionDays: 40, maxDays: 100 });
    expect(again.written).toEqual(['2026-02-01']);
    expect(await allRows()).toEqual(before);

    const day = await allRows('2026-01-15');
    expect(day.length).toBeGreaterThan(0);
    await writePostureDay(t.db, '2026-01-15', new Date('2026-01-16T00:00:00Z'));
    await writePostureDay(t.db, '2026-01-15', new Date('2026-01-16T00:00:00Z'));
    expect(await allRows('2026-01-15')).toEqual(day);
    await expectPeriodsAreSumsOfDays();
  });

  it('a missed day is back-filled as it was, from the timelines', async () => {
    const expected = await allRows('2026-01-14');
    for (const table of [...TABLES, 'posture_days'] as const) {
      await sql`delete from ${sql.table(table)} where day = '2026-01-14'::date`.execute(t.db);
    }
    expect(await allRows('2026-01-14')).toEqual([]);
    // As if never written: its week and month hold none of it either.
    await rebuildPosturePeriod(t.db, { period: 'week', start: '2026-01-12' });
    await rebuildPosturePeriod(t.db, { period: 'month', start: '2026-01-01' });
    const run = await runPostureSnapshots(t.db, { now: NOW, retentionDays: 40 });
    expect(run.written).toEqual(['2026-02-01', '2026-01-14']);
    expect(await allRows('2026-01-14')).toEqual(expected);
    await expectPeriodsAreSumsOfDays();
  });

  it('a day written before it ended is written again, complete, by the next run after it', async () => {
    const evening = new Date('2026-02-01T20:00:00Z');
    const tomorrow = new Date('2026-02-02T01:00:00Z');
    await runPostureSnapshots(t.db, { now: evening, retentionDays: 40 });
    const run = await runPostureSnapshots(t.db, { now: tomorrow, retentionDays: 40 });
    expect(run.written).toEqual(['2026-02-02', '2026-02-01']);
    const complete = await sql<{ complete: boolean }>`
      select complete from posture_days where day = '2026-02-01'::date`.execute(t.db);
    expect(complete.rows[0]?.complete).toBe(true);
  });

  it('drops days older than the retention', async () => {
    const periodsBefore = await periodRows();
    expect(periodsBefore.some((row) => row.includes('"period":"month"'))).toBe(true);
    const run = await runPostureSnapshots(t.db, { now: new Date('2026-02-02T02:00:00Z'), retentionDays: 10 });
    expect(await periodRows()).not.toEqual(periodsBefore);
    expect(run.dropped).toBeGreaterThan(0);
    const oldest = await sql<{ day: string }>`
      select to_char(min(day), 'YYYY-MM-DD') as day from posture_days`.execute(t.db);
    expect(oldest.rows[0]?.day).toBe('2026-01-24');
    for (const table of TABLES) {
      const left = await sql<{ n: number }>`select count(*)::int as n from ${sql.table(table)}
        where day < '2026-01-24'::date`.execute(t.db);
      expect(left.rows[0]?.n, table).toBe(0);
    }
    // The month and week of the oldest day kept lost their dropped days; none before them is left.
    await expectPeriodsAreSumsOfDays();
    for (const table of PERIOD_TABLES) {
      const left = await sql<{ n: number }>`select count(*)::int as n from ${sql.table(table)}
        where day < '2026-01-01'::date`.execute(t.db);
      expect(left.rows[0]?.n, table).toBe(0);
    }
  });

  it('a range reads whole weeks from the roll-ups and its edges from the days: the same sums as the days alone', async () => {
    const daily = await sql<{ opened: number; fixed: number }>`
      select sum(opened)::int as opened, sum(fixed)::int as fixed from posture_group_daily
      where group_id = 0 and day between '2026-01-24'::date and '2026-02-02'::date`.execute(t.db);
    const weekly = await sql<{ opened: number; fixed: number }>`
      select sum(opened)::int as opened, sum(fixed)::int as fixed from (
        select opened, fixed from posture_group_period_flows
        where group_id = 0 and period = 'week' and day = '2026-01-26'::date
        union all
        select opened, fixed from posture_group_daily
        where group_id = 0 and (day between '2026-01-24'::date and '2026-01-25'::date
          or day = '2026-02-02'::date)) s`.execute(t.db);
    expect(weekly.rows[0]).toEqual(daily.rows[0]);
  });
});
