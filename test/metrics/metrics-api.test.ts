import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPostureSnapshots } from '../../src/modules/metrics/posture.service.ts';
import { grant, makeUser, type TestUser } from '../support/factories.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { NOW, seedHistory, type SeededHistory } from './seeded-history.ts';

/**
 * `/api/metrics/...` against figures computed by hand from the seeded history
 * (test/metrics/seeded-history.ts), for January 2026, and scoped to what each caller may read.
 */

let t: TestApp;
let admin: TestUser;
let seeded: SeededHistory;
/** Reads group G1 by a grant on the group (its per-group sums). */
let groupReader: TestUser;
/** Reads A and B by grants on each (their own rows): must see what groupReader sees. */
let appsReader: TestUser;
/** Reads B only. */
let bReader: TestUser;
let outsider: TestUser;

const JANUARY = 'from=2026-01-01&to=2026-01-31';

async function get(user: TestUser, path: string) {
  const response = await t.app.inject({ url: `/api/metrics/${path}`, headers: user.headers });
  return response;
}

async function json(user: TestUser, path: string) {
  const response = await get(user, path);
  expect(response.statusCode, response.body).toBe(200);
  return response.json();
}

beforeAll(async () => {
  t = await createTestApp();
  admin = await makeUser(t, { role: 'admin' });
  seeded = await seedHistory(t, admin);
  await runPostureSnapshots(t.db, { now: NOW, retentionDays: 40, maxDays: 100 });
  groupReader = await makeUser(t);
  await t.db
    .insertInto('permission_policies')
    .values({ user_id: groupReader.id, group_id: seeded.g1, action: 'read' })
    .execute();
  appsReader = await makeUser(t);
  await grant(t, appsReader, seeded.a, 'read');
  await grant(t, appsReader, seeded.b, 'read');
  bReader = await makeUser(t);
  await grant(t, bReader, seeded.b, 'read');
  outsider = await makeUser(t);
}, 240_000); // a fresh database and 40 days of snapshots: slow on a shared, loaded machine
afterAll(() => t?.close());

describe('metrics API, hand-computed figures (admin, every application)', () => {
  it('open by severity at the end of each week', async () => {
    const body = await json(admin, `open-over-time?${JANUARY}&interval=week`);
    expect(body.points.map((p: { date: string }) => p.date)).toEqual([
      '2026-01-04',
      '2026-01-11',
      '2026-01-18',
      '2026-01-25',
      '2026-01-31',
    ]);
    const [w1, w2, w3, w4, w5] = body.points;
    expect(w1).toMatchObject({ critical: 0, high: 2, medium: 0, total: 2 }); // f4, f8
    expect(w2).toMatchObject({ critical: 1, high: 3, medium: 1, total: 5 }); // f2; f3 f4 f8; f5
    expect(w3).toMatchObject({ critical: 1, high: 3, medium: 1, total: 5 }); // f7 reopened
    expect(w4).toMatchObject({ critical: 1, high: 3, medium: 1, low: 0, total: 5 });
    expect(w5).toMatchObject({ critical: 1, high: 3, medium: 1, total: 5 });
  });

  it('new versus fixed per week, the first week clipped to the range', async () => {
    const body = await json(admin, `new-vs-fixed?${JANUARY}`);
    expect(body.points).toEqual([
      { period_start: '2026-01-01', period_end: '2026-01-04', new: 1, fixed: 0 },
      { period_start: '2026-01-05', period_end: '2026-01-11', new: 4, fixed: 1 },
      { period_start: '2026-01-12', period_end: '2026-01-18', new: 1, fixed: 2 },
      { period_start: '2026-01-19', period_end: '2026-01-25', new: 1, fixed: 1 },
      { period_start: '2026-01-26', period_end: '2026-01-31', new: 0, fixed: 0 },
    ]);
  });

  it('mean and median time to fix by severity, and by scanner', async () => {
    const body = await json(admin, `time-to-fix?${JANUARY}`);
    // critical: f1 3 days, f2 10 days, f7 2 days (fixed once, reopened later); low: f6 half a day.
    expect(body.rows).toEqual([
      {
        period_start: '2026-01-01',
        period_end: '2026-01-31',
        key: 'critical',
        fixed: 3,
        mean_days: 5,
        median_days: 3,
      },
      {
        period_start: '2026-01-01',
        period_end: '2026-01-31',
        key: 'low',
        fixed: 1,
        mean_days: 0.5,
        median_days: 0,
      },
    ]);
    const scanners = await json(admin, `time-to-fix?${JANUARY}&by=scanner`);
    expect(scanners.rows).toEqual([
      {
        period_start: '2026-01-01',
        period_end: '2026-01-31',
        key: 'sarif',
        fixed: 4,
        mean_days: 3.88,
        median_days: 2,
      },
    ]);
    const monthly = await json(admin, `time-to-fix?from=2025-12-24&to=2026-01-31&interval=month`);
    expect(
      monthly.rows.map((row: { period_start: string; key: string; fixed: number }) => [
        row.period_start,
        row.key,
        row.fixed,
      ]),
    ).toEqual([
      ['2026-01-01', 'critical', 3],
      ['2026-01-01', 'low', 1],
    ]);
  });

  it('SLA compliance (fixed within due date ÷ fixed with one) and findings past due now', async () => {
    const body = await json(admin, `sla?${JANUARY}&interval=week`);
    expect(body).toMatchObject({
      as_of: '2026-01-31',
      fixed: 4,
      sla_fixed: 4,
      within_sla: 3,
      compliance_percent: 75,
      breached: 3,
    });
    const bySeverity = Object.fromEntries(
      body.by_severity.map((row: { severity: string }) => [row.severity, row]),
    );
    expect(bySeverity.critical).toMatchObject({
      fixed: 3,
      within_sla: 2,
      compliance_percent: 66.67,
      breached: 1,
    });
    expect(bySeverity.high).toMatchObject({ fixed: 0, compliance_percent: null, breached: 2 });
    expect(bySeverity.low).toMatchObject({ fixed: 1, within_sla: 1, compliance_percent: 100, breached: 0 });
    expect(body.periods.map((p: { fixed: number; within_sla: number }) => [p.fixed, p.within_sla])).toEqual([
      [0, 0],
      [1, 1],
      [2, 1],
      [1, 1],
      [0, 0],
    ]);
  });

  it('whole weeks and months from the roll-ups, edges from the days: every range and interval sums as its days do', async () => {
    // Ranges inside the 40 days kept (2025-12-24 .. 2026-02-01), starting and ending mid-week and mid-month.
    const ranges = [
      ['2025-12-24', '2026-02-01'],
      ['2025-12-29', '2026-01-25'],
      ['2026-01-01', '2026-01-31'],
      ['2026-01-03', '2026-01-30'],
      ['2026-01-06', '2026-01-19'],
    ];
    for (const [from, to] of ranges) {
      const range = `from=${from}&to=${to}`;
      const byDay = await json(admin, `sla?${range}&interval=day`);
      for (const interval of ['', '&interval=week', '&interval=month']) {
        const body = await json(admin, `sla?${range}${interval}`);
        expect(body.by_severity, `sla ${range}${interval}`).toEqual(byDay.by_severity);
        const ttf = await json(admin, `time-to-fix?${range}${interval}`);
        const ttfDays = await json(admin, `time-to-fix?${range}&interval=day`);
        const fixed = (rows: { fixed: number }[]) => rows.reduce((sum, row) => sum + row.fixed, 0);
        expect(fixed(ttf.rows), `time-to-fix ${range}${interval}`).toBe(fixed(ttfDays.rows));
      }
      const flows = async (interval: string) => {
        const body = await json(admin, `new-vs-fixed?${range}&interval=${interval}`);
        return body.points.reduce(
          (sum: { new: number; fixed: number }, point: { new: number; fixed: number }) => ({
            new: sum.new + point.new,
            fixed: sum.fixed + point.fixed,
          }),
          { new: 0, fixed: 0 },
        );
      };
      const daily = await flows('day');
      expect(await flows('week'), `new-vs-fixed ${range} weekly`).toEqual(daily);
      expect(await flows('month'), `new-vs-fixed ${range} monthly`).toEqual(daily);
    }
  });

  it('ageing of open findings at the end of the range', async () => {
    const body = await json(admin, `ageing?${JANUARY}`);
    expect(body.as_of).toBe('2026-01-31');
    const rows = Object.fromEntries(body.rows.map((row: { severity: string }) => [row.severity, row]));
    expect(rows.critical).toMatchObject({ days_0_7: 0, days_8_30: 1, days_31_90: 0, days_over_90: 0 }); // f7: 20 days
    expect(rows.high).toMatchObject({ days_0_7: 0, days_8_30: 2, days_31_90: 0, days_over_90: 1 }); // f3 25, f8 30; f4 122
    expect(rows.medium).toMatchObject({ days_8_30: 1 }); // f5: 22 days
    // A week into January: f8 5 days old, f4 97 days.
    const early = await json(admin, 'ageing?from=2026-01-01&to=2026-01-06');
    const earlyHigh = early.rows.find((row: { severity: string }) => row.severity === 'high');
    expect(earlyHigh).toMatchObject({ days_0_7: 2, days_over_90: 1 }); // f8, f3 (0 days); f4
  });

  it('burndown: open at the start, then at each period end with new and fixed since the start', async () => {
    const body = await json(admin, `burndown?${JANUARY}`);
    expect(body.open_at_start).toBe(1); // f4
    expect(
      body.points.map((p: { open: number; new_cumulative: number; fixed_cumulative: number }) => [
        p.open,
        p.new_cumulative,
        p.fixed_cumulative,
      ]),
    ).toEqual([
      [2, 1, 0],
      [5, 5, 1],
      [5, 6, 3],
      [5, 7, 4],
      [5, 7, 4],
    ]);
  });

  it('top applications by open risk and by findings past due', async () => {
    const byRisk = await json(admin, `top-applications?${JANUARY}`);
    expect(
      byRisk.applications.map((row: { id: number; risk: number; open: number }) => [
        row.id,
        row.risk,
        row.open,
      ]),
    ).toEqual([
      [seeded.a, 150, 3],
      [seeded.b, 90, 1],
      [seeded.c, 70, 1],
    ]);
    const byBreach = await json(admin, `top-applications?${JANUARY}&by=breach&limit=2`);
    expect(
      byBreach.applications.map((row: { id: number; breached: number }) => [row.id, row.breached]),
    ).toEqual([
      [seeded.a, 1],
      [seeded.b, 1],
    ]);
  });

  it('CSV of the same figures', async () => {
    const response = await t.app.inject({
      url: `/api/metrics/new-vs-fixed?${JANUARY}&format=csv`,
      headers: admin.headers,
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/csv/);
    expect(response.headers['content-disposition']).toContain('new-vs-fixed.csv');
    expect(response.body.split('\r\n')).toEqual([
      '"period_start","period_end","new","fixed"',
      '"2026-01-01","2026-01-04",1,0',
      '"2026-01-05","2026-01-11",4,1',
      '"2026-01-12","2026-01-18",1,2',
      '"2026-01-19","2026-01-25",1,1',
      '"2026-01-26","2026-01-31",0,0',
      '',
    ]);
    const byAccept = await t.app.inject({
      url: `/api/metrics/sla?${JANUARY}`,
      headers: { ...admin.headers, accept: 'text/csv' },
    });
    expect(byAccept.body).toContain('"all",4,4,3,75,3');
  });
});

describe('metrics API, scopes and access', () => {
  const ENDPOINTS = [
    'open-over-time',
    'new-vs-fixed',
    'time-to-fix',
    'sla',
    'ageing',
    'burndown',
    'top-applications',
  ];

  it('401 without credentials', async () => {
    const response = await t.app.inject({ url: '/api/metrics/sla' });
    expect(response.statusCode).toBe(401);
  });

  it('a group read whole (its sums) and its applications read one by one give the same figures', async () => {
    for (const endpoint of ENDPOINTS) {
      const whole = await json(groupReader, `${endpoint}?${JANUARY}`);
      const oneByOne = await json(appsReader, `${endpoint}?${JANUARY}`);
      const asGroup = await json(admin, `${endpoint}?${JANUARY}&group_id=${seeded.g1}`);
      expect(oneByOne, endpoint).toEqual(whole);
      expect(asGroup, endpoint).toEqual(whole);
    }
    const sla = await json(groupReader, `sla?${JANUARY}`);
    expect(sla).toMatchObject({ fixed: 4, within_sla: 3, breached: 2 }); // C's f8 is not theirs
  });

  it('a member sees only the applications they may read', async () => {
    const sla = await json(bReader, `sla?${JANUARY}`);
    expect(sla).toMatchObject({
      fixed: 2,
      sla_fixed: 2,
      within_sla: 2,
      compliance_percent: 100,
      breached: 1,
    }); // f6, f7
    const top = await json(bReader, `top-applications?${JANUARY}`);
    expect(top.applications.map((row: { id: number }) => row.id)).toEqual([seeded.b]);
    // G1 is visible through B, but only B counts.
    const group = await json(bReader, `new-vs-fixed?${JANUARY}&group_id=${seeded.g1}`);
    expect(group.points.reduce((sum: number, p: { new: number }) => sum + p.new, 0)).toBe(2); // f6, f7
    const nothing = await json(outsider, `open-over-time?${JANUARY}`);
    expect(nothing.points.every((p: { total: number }) => p.total === 0)).toBe(true);
  });

  it('404 for an application or group the caller cannot read', async () => {
    for (const path of [
      `sla?application_id=${seeded.a}`,
      `sla?group_id=${seeded.g2}`,
      'sla?application_id=999999',
    ]) {
      const response = await get(bReader, path);
      expect(response.statusCode, path).toBe(404);
      expect(response.headers['content-type']).toMatch(/problem\+json/);
    }
  });

  it('400 problem+json for bad ranges and parameters', async () => {
    const cases: [string, RegExp][] = [
      ['sla?from=2026-02-30', /from/],
      ['sla?from=2026-02-01&to=2026-01-01', /from/],
      ['sla?from=2024-01-01&to=2026-01-31', /to/],
      ['sla?to=yesterday', /to/],
      ['open-over-time?interval=year', /interval/],
      ['time-to-fix?by=team', /by/],
      ['top-applications?limit=0', /limit/],
      ['top-applications?limit=101', /limit/],
      [`sla?application_id=${seeded.b}&group_id=${seeded.g1}`, /group_id/],
      ['sla?application=1', /application/],
      ['ageing?interval=week', /interval/],
      ['sla?format=xml', /format/],
    ];
    for (const [path, field] of cases) {
      const response = await get(admin, path);
      expect(response.statusCode, path).toBe(400);
      expect(response.headers['content-type'], path).toMatch(/application\/problem\+json/);
      expect(JSON.stringify(response.json().errors), path).toMatch(field);
    }
  });
});

describe('GET /api/applications/:id/posture', () => {
  it('open findings by severity per version, and 404 when unreadable', async () => {
    const response = await t.app.inject({
      url: `/api/applications/${seeded.a}/posture`,
      headers: admin.headers,
    });
    expect(response.statusCode, response.body).toBe(200);
    const [version] = response.json().versions;
    expect(version).toMatchObject({
      name: 'default',
      is_default: true,
      critical: 0,
      high: 2,
      medium: 1,
      total: 3,
    });
    const hidden = await t.app.inject({
      url: `/api/applications/${seeded.a}/posture`,
      headers: bReader.headers,
    });
    expect(hidden.statusCode).toBe(404);
  });
});
