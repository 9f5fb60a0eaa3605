import { sql, type Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { emptyDatabase } from '../support/migration-database.ts';
import { migrations } from '../../src/db/migrations/index.ts';

/**
 * Migration 2026-11-30T1100-posture-open-daily on a database that already has posture history: the
 * new table is filled from the `posture_daily` rows written before it, one row per application-day
 * with open findings, the open and confirmed findings summed per severity (computed here in JS).
 */

const OPEN_DAILY = '2026-11-30T1100-posture-open-daily';

const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;
const STATUSES = ['open', 'confirmed', 'fixed', 'false_positive', 'accepted'] as const;

interface DailyRow {
  application_id: number;
  day: string;
  severity: (typeof SEVERITIES)[number];
  status: (typeof STATUSES)[number];
  findings: number;
}

/** Pre-existing rows: 3 applications × 4 days, a varied subset of severity × status each. */
function dailyRows(): DailyRow[] {
  const rows: DailyRow[] = [];
  for (const application of [11, 12, 13]) {
    for (const [d, day] of ['2026-01-01', '2026-01-02', '2026-01-03', '2026-01-10'].entries()) {
      for (const [s, severity] of SEVERITIES.entries()) {
        for (const [t, status] of STATUSES.entries()) {
          const n = (application * 7 + d * 5 + s * 3 + t) % 6;
          // Application 13 has only closed findings on 2026-01-03: no row there.
          if (n === 0 || (application === 13 && d === 2 && t < 2)) continue;
          rows.push({ application_id: application, day, severity, status, findings: n });
        }
      }
    }
  }
  return rows;
}

describe('migration 2026-11-30T1100-posture-open-daily', () => {
  it('fills posture_open_daily from the posture_daily rows already written', async () => {
    const { database, migrator, drop } = await emptyDatabase('scanhub_opendaily');
    try {
      const db = database.db as unknown as Kysely<unknown>;
      const names = Object.keys(migrations);
      const before = names[names.indexOf(OPEN_DAILY) - 1] as string;
      expect((await migrator.migrateTo(before)).error).toBeUndefined();
      const rows = dailyRows();
      for (const row of rows) {
        await sql`insert into posture_daily (day, application_id, severity, status, findings)
          values (${row.day}::date, ${row.application_id}, ${row.severity}, ${row.status}, ${row.findings})`.execute(
          db,
        );
      }
      expect((await migrator.migrateTo(OPEN_DAILY)).error).toBeUndefined();

      const expected = new Map<string, Record<string, number | string>>();
      for (const row of rows.filter((r) => r.status === 'open' || r.status === 'confirmed')) {
        const key = `${row.application_id} ${row.day}`;
        const counts = expected.get(key) ?? {
          application_id: row.application_id,
          day: row.day,
          critical: 0,
          high: 0,
          medium: 0,
          low: 0,
          info: 0,
        };
        counts[row.severity] = Number(counts[row.severity]) + row.findings;
        expected.set(key, counts);
      }
      const stored = await sql<Record<string, number | string>>`
        select application_id, to_char(day, 'YYYY-MM-DD') as day, critical, high, medium, low, info
        from posture_open_daily order by application_id, day`.execute(db);
      expect(stored.rows).toEqual([...expected.values()]);
      expect(stored.rows).toHaveLength(11); // 3 × 4 application-days, but 13 on 2026-01-03
    } finally {
      await drop();
    }
  }, 120_000);
});
