import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FindingStatus } from '../../src/db/schema.ts';
import { hideScanFindingsUntilShown } from '../../src/domain/findings/unpublished-scans.ts';
import { dashboardStats } from '../../src/modules/dashboard/dashboard.service.ts';
import * as dayCounts from '../../src/db/migrations/2026-11-29T1300-finding-day-counts.ts';
import { compactFindingCounts } from '../../src/modules/findings/finding-counts.repository.ts';
import { makeApplication, makeFinding, makeUser, type TestUser } from '../support/factories.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

/**
 * The dashboard's moving windows (new and fixed in 7 and 30 days, overdue) read from the
 * `finding_day_counts` ledger plus each window's first, partial UTC day (migration 2026-11-29T1300)
 * must equal the same windows counted from the findings, whatever inserts, updates and deletes
 * came before, with findings placed on both sides of every boundary: each window's start, the end of
 * its first UTC day, and now.
 */

let t: TestApp;
let owner: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  owner = await makeUser(t);
});
afterAll(() => t.close());

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const STATUSES: FindingStatus[] = ['open', 'confirmed', 'false_positive', 'fixed'];

const nextUtcDay = (at: Date) =>
  new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 1));

/** Instants near the boundaries the windows have at `now`, or anywhere in the last 60 days. */
function instant(now: Date) {
  const since7 = new Date(now.getTime() - 7 * DAY);
  const since30 = new Date(now.getTime() - 30 * DAY);
  const anchors = [since7, since30, now, nextUtcDay(since7), nextUtcDay(since30), nextUtcDay(now)];
  return fc.oneof(
    fc
      .tuple(fc.constantFrom(...anchors), fc.integer({ min: -3 * HOUR, max: 3 * HOUR }))
      .map(([anchor, offset]) => new Date(anchor.getTime() + offset)),
    fc.constantFrom(...anchors),
    fc.integer({ min: -60 * DAY, max: 2 * DAY }).map((offset) => new Date(now.getTime() + offset)),
  );
}

interface Row {
  status: FindingStatus;
  first_seen_at: Date;
  fixed_at: Date | null;
  due_date: Date | null;
}

/** The windows counted from the findings' rows as the dashboard defines them. */
function expected(rows: readonly Row[], now: Date) {
  const since7 = now.getTime() - 7 * DAY;
  const since30 = now.getTime() - 30 * DAY;
  const open = rows.filter((row) => row.status === 'open' || row.status === 'confirmed');
  const fixed = rows.filter((row) => row.status === 'fixed' && row.fixed_at);
  return {
    new_last_7_days: rows.filter((row) => row.first_seen_at.getTime() >= since7).length,
    new_last_30_days: rows.filter((row) => row.first_seen_at.getTime() >= since30).length,
    fixed_last_7_days: fixed.filter((row) => (row.fixed_at as Date).getTime() >= since7).length,
    fixed_last_30_days: fixed.filter((row) => (row.fixed_at as Date).getTime() >= since30).length,
    overdue: open.filter((row) => row.due_date !== null && row.due_date.getTime() < now.getTime()).length,
  };
}

const windowsOf = (stats: Awaited<ReturnType<typeof dashboardStats>>) => ({
  new_last_7_days: stats.new_last_7_days,
  new_last_30_days: stats.new_last_30_days,
  fixed_last_7_days: stats.fixed_last_7_days,
  fixed_last_30_days: stats.fixed_last_30_days,
  overdue: stats.overdue,
});

describe('dashboard windows from the day ledger', () => {
  it('equal the windows counted from the findings after any inserts, updates and deletes', async () => {
    const now = new Date();
    const finding = fc.record({
      status: fc.constantFrom(...STATUSES),
      first_seen_at: instant(now),
      fixed_at: fc.option(instant(now)),
      due_date: fc.option(instant(now)),
    });
    const operation = fc.oneof(
      fc.record({
        kind: fc.constant('insert' as const),
        rows: fc.array(finding, { minLength: 1, maxLength: 8 }),
      }),
      fc.record({
        kind: fc.constant('update' as const),
        pick: fc.integer({ min: 0, max: 4 }),
        status: fc.constantFrom(...STATUSES),
        fixed_at: fc.option(instant(now)),
        due_date: fc.option(instant(now)),
        first_seen_at: instant(now),
      }),
      fc.record({ kind: fc.constant('delete' as const), pick: fc.integer({ min: 0, max: 4 }) }),
      fc.constant({ kind: 'compact' as const }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { minLength: 1, maxLength: 6 }), async (operations) => {
        const app = await makeApplication(t, owner);
        for (const op of operations) {
          const picked = sql<boolean>`application_id = ${app.id} and id % 5 = ${'pick' in op ? op.pick : 0}`;
          if (op.kind === 'insert') {
            for (const row of op.rows) await makeFinding(t, app.id, row);
          } else if (op.kind === 'update') {
            // One statement changes several rows, every counted column at once.
            await sql`update findings set status = ${op.status}, fixed_at = ${op.fixed_at},
              due_date = ${op.due_date}, first_seen_at = ${op.first_seen_at} where ${picked}`.execute(t.db);
          } else if (op.kind === 'delete') {
            await sql`delete from findings where ${picked}`.execute(t.db);
          } else {
            await compactFindingCounts(t.db);
          }
        }
        const rows = await t.db
          .selectFrom('findings')
          .select(['status', 'first_seen_at', 'fixed_at', 'due_date'])
          .where('application_id', '=', app.id)
          .execute();
        const stats = await dashboardStats(t.db, owner.principal, { applicationId: String(app.id) }, now);
        expect(windowsOf(stats)).toEqual(expected(rows, now));
        await compactFindingCounts(t.db);
        const compacted = await dashboardStats(t.db, owner.principal, { applicationId: String(app.id) }, now);
        expect(windowsOf(compacted)).toEqual(expected(rows, now));
      }),
      { numRuns: 25 },
    );
  }, 300_000);

  it('the migration fills the ledger from existing findings, one row per day', async () => {
    const app = await makeApplication(t, owner);
    const now = new Date();
    for (let day = 0; day < 3; day++) {
      for (let copy = 0; copy < 3; copy++) {
        await makeFinding(t, app.id, {
          first_seen_at: new Date(now.getTime() - day * DAY),
          due_date: new Date(now.getTime() + 10 * DAY),
        });
      }
    }
    // As on a database that had findings before the migration: the ledger dropped and made again.
    await dayCounts.down(t.db as never);
    await dayCounts.up(t.db as never);
    const ledger = await t.db
      .selectFrom('finding_day_counts')
      .select(['measure', sql<string>`day::text`.as('day'), 'findings'])
      .where('application_id', '=', app.id)
      .orderBy('measure')
      .orderBy('day')
      .execute();
    // Three `seen` days (24 hours apart) and one `due` day, nine findings in each measure.
    const sum = (measure: string) =>
      ledger.filter((row) => row.measure === measure).reduce((total, row) => total + Number(row.findings), 0);
    expect(sum('seen')).toBe(9);
    expect(sum('due')).toBe(9);
    expect(ledger.filter((row) => row.measure === 'due')).toHaveLength(1);
    expect(ledger.filter((row) => row.measure === 'seen').length).toBe(3);
    const stats = await dashboardStats(t.db, owner.principal, { applicationId: String(app.id) }, now);
    expect(stats.new_last_7_days).toBe(9);
  });

  it('while a merge hides its findings, the windows leave them out', async () => {
    const app = await makeApplication(t, owner);
    const now = new Date();
    await makeFinding(t, app.id, { first_seen_at: new Date(now.getTime() - HOUR) });
    const version = await t.db
      .selectFrom('application_versions')
      .select('id')
      .where('application_id', '=', app.id)
      .executeTakeFirstOrThrow();
    const scan = await t.db
      .insertInto('scans')
      .values({
        application_id: app.id,
        version_id: version.id,
        file_size: 1,
        file_sha256: 'x'.repeat(64),
        status: 'processing',
        uploaded_via: 'api_key',
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await makeFinding(t, app.id, { first_seen_at: new Date(now.getTime() - HOUR), first_scan_id: scan.id });
    const show = hideScanFindingsUntilShown(t.db, scan.id);
    try {
      const hidden = await dashboardStats(t.db, owner.principal, { applicationId: String(app.id) }, now);
      expect(hidden.new_last_7_days).toBe(1);
    } finally {
      show();
    }
    const shown = await dashboardStats(t.db, owner.principal, { applicationId: String(app.id) }, now);
    expect(shown.new_last_7_days).toBe(2);
  });
});
