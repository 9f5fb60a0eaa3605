import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grant, makeApplication, makeFinding, makeUser, type TestUser } from '../support/factories.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

let t: TestApp;
let admin: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  admin = await makeUser(t, { role: 'admin' });
});
afterAll(() => t.close());

const DAY = 86_400_000;
const daysAgo = (days: number) => new Date(Date.now() - days * DAY);

async function makeScan(applicationId: number, createdAt: Date): Promise<void> {
  const version = await t.db
    .selectFrom('application_versions')
    .select('id')
    .where('application_id', '=', applicationId)
    .executeTakeFirstOrThrow();
  await t.db
    .insertInto('scans')
    .values({
      application_id: applicationId,
      version_id: version.id,
      file_size: 1,
      file_sha256: 'x'.repeat(64),
      status: 'completed',
      uploaded_via: 'api_key',
      created_at: createdAt,
    })
    .execute();
}

const ZERO_STATUSES = { open: 0, confirmed: 0, false_positive: 0, fixed: 0 };

/**
 * A member who owns application A, reads application B, and cannot read application C. The
 * findings and scans are placed well inside or outside each window so the clock never matters.
 */
async function scenario() {
  const member = await makeUser(t);
  const a = await makeApplication(t, member);
  const b = await makeApplication(t, admin);
  await grant(t, member, b.id, 'read');
  const c = await makeApplication(t, admin);

  // A: open critical overdue; confirmed high not yet due; fixed medium after 18 days (overdue
  // date, but fixed); false positive low (overdue date, but dismissed); old open info, no due date.
  await makeFinding(t, a.id, {
    severity: 'critical',
    status: 'open',
    first_seen_at: daysAgo(3),
    due_date: daysAgo(1),
    risk_score: 90,
  });
  await makeFinding(t, a.id, {
    severity: 'high',
    status: 'confirmed',
    first_seen_at: daysAgo(10),
    due_date: daysAgo(-5),
    risk_score: 70,
  });
  await makeFinding(t, a.id, {
    severity: 'medium',
    status: 'fixed',
    first_seen_at: daysAgo(20),
    fixed_at: daysAgo(2),
    due_date: daysAgo(1),
    risk_score: 30,
  });
  await makeFinding(t, a.id, {
    severity: 'low',
    status: 'false_positive',
    first_seen_at: daysAgo(40),
    due_date: daysAgo(10),
    risk_score: 10,
  });
  await makeFinding(t, a.id, {
    severity: 'info',
    status: 'open',
    first_seen_at: daysAgo(100),
    risk_score: 5,
  });
  // B: open high overdue; high fixed after 30 days, 20 days ago; an open finding reopened after a
  // fix keeps its old fixed_at but is not fixed now.
  await makeFinding(t, b.id, {
    severity: 'high',
    status: 'open',
    first_seen_at: daysAgo(5),
    due_date: daysAgo(2),
    risk_score: 60,
  });
  await makeFinding(t, b.id, {
    severity: 'high',
    status: 'fixed',
    first_seen_at: daysAgo(50),
    fixed_at: daysAgo(20),
    risk_score: 40,
  });
  await makeFinding(t, b.id, {
    severity: 'low',
    status: 'open',
    first_seen_at: daysAgo(60),
    fixed_at: daysAgo(3),
    risk_score: 15,
  });
  // C: unreadable by the member; would change every number if it leaked.
  await makeFinding(t, c.id, {
    severity: 'critical',
    status: 'open',
    first_seen_at: daysAgo(1),
    due_date: daysAgo(1),
    risk_score: 99,
  });
  await makeFinding(t, c.id, {
    severity: 'medium',
    status: 'fixed',
    first_seen_at: daysAgo(4),
    fixed_at: daysAgo(1),
    risk_score: 20,
  });

  await makeScan(a.id, daysAgo(2));
  await makeScan(a.id, daysAgo(40));
  await makeScan(b.id, daysAgo(10));
  await makeScan(c.id, daysAgo(1));
  return { member, a, b, c };
}

const stats = (user: TestUser, query = '') =>
  t.app.inject({ url: `/api/dashboard/stats${query}`, headers: user.headers });

describe('GET /api/dashboard/stats', () => {
  it('401 without credentials', async () => {
    const response = await t.app.inject({ url: '/api/dashboard/stats' });
    expect(response.statusCode).toBe(401);
  });

  it('404 for an unknown, malformed or unreadable applicationId', async () => {
    const { member, c } = await scenario();
    for (const id of ['999999', '0', 'no-such-app', String(c.id)]) {
      const response = await stats(member, `?applicationId=${id}`);
      expect(response.statusCode, id).toBe(404);
      expect(response.json().code).toBe('not_found');
    }
  });

  it('counts only the applications a member may read, every field from the rows', async () => {
    const { member, a, b } = await scenario();
    const response = await stats(member);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      concern: 'security',
      by_severity_status: {
        critical: { ...ZERO_STATUSES, open: 1 },
        high: { ...ZERO_STATUSES, open: 1, confirmed: 1, fixed: 1 },
        medium: { ...ZERO_STATUSES, fixed: 1 },
        low: { ...ZERO_STATUSES, open: 1, false_positive: 1 },
        info: { ...ZERO_STATUSES, open: 1 },
      },
      open_by_severity: { critical: 1, high: 2, medium: 0, low: 1, info: 1 },
      totals: { findings: 8, open: 5, fixed: 2, false_positive: 1 },
      new_last_7_days: 2,
      new_last_30_days: 4,
      fixed_last_7_days: 1,
      fixed_last_30_days: 2,
      mean_time_to_fix_days: 24,
      overdue: 2,
      top_applications: [
        { id: a.id, name: a.name, slug: a.slug, open_findings: 3, open_risk: 165 },
        { id: b.id, name: b.name, slug: b.slug, open_findings: 2, open_risk: 75 },
      ],
      scans_last_30_days: 2,
      applications: 2,
    });
  });

  it('applicationId limits every number to that application', async () => {
    const { member, b } = await scenario();
    const response = await stats(member, `?applicationId=${b.id}`);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      by_severity_status: {
        critical: ZERO_STATUSES,
        high: { ...ZERO_STATUSES, open: 1, fixed: 1 },
        medium: ZERO_STATUSES,
        low: { ...ZERO_STATUSES, open: 1 },
        info: ZERO_STATUSES,
      },
      open_by_severity: { critical: 0, high: 1, medium: 0, low: 1, info: 0 },
      totals: { findings: 3, open: 2, fixed: 1, false_positive: 0 },
      new_last_7_days: 1,
      new_last_30_days: 1,
      fixed_last_7_days: 0,
      fixed_last_30_days: 1,
      mean_time_to_fix_days: 30,
      overdue: 1,
      top_applications: [{ id: b.id, open_findings: 2, open_risk: 75 }],
      scans_last_30_days: 1,
      applications: 1,
    });
    const bySlug = await stats(member, `?applicationId=${b.slug}`);
    expect(bySlug.json()).toEqual(response.json());
  });

  it('a member with nothing readable gets zeros, a null mean time to fix and no top applications', async () => {
    await scenario();
    const loner = await makeUser(t);
    const body = (await stats(loner)).json();
    expect(body.totals).toEqual({ findings: 0, open: 0, fixed: 0, false_positive: 0 });
    expect(body.by_severity_status.critical).toEqual(ZERO_STATUSES);
    expect(body.mean_time_to_fix_days).toBeNull();
    expect(body.top_applications).toEqual([]);
    expect(body).toMatchObject({ overdue: 0, scans_last_30_days: 0, applications: 0 });
  });

  it('an admin counts every application', async () => {
    await scenario();
    const body = (await stats(admin)).json();
    const findings = await t.db
      .selectFrom('findings')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .executeTakeFirstOrThrow();
    const applications = await t.db
      .selectFrom('applications')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .executeTakeFirstOrThrow();
    expect(body.totals.findings).toBe(Number(findings.count));
    expect(body.applications).toBe(Number(applications.count));
    expect(body.top_applications[0].open_risk).toBeGreaterThanOrEqual(99);
    expect(body.top_applications.length).toBeLessThanOrEqual(10);
  });

  it('top applications are the ten with the most open risk, highest first', async () => {
    const member = await makeUser(t);
    const apps = [];
    for (let index = 0; index < 12; index += 1) {
      const app = await makeApplication(t, member);
      await makeFinding(t, app.id, { risk_score: 10 + index });
      await makeFinding(t, app.id, { risk_score: 50, status: 'fixed', fixed_at: daysAgo(1) });
      apps.push(app);
    }
    const body = (await stats(member)).json();
    expect(body.top_applications.map((row: { id: number }) => row.id)).toEqual(
      apps
        .slice(2)
        .reverse()
        .map((app) => app.id),
    );
    expect(body.top_applications[0]).toMatchObject({ open_findings: 1, open_risk: 21 });
    expect(body.applications).toBe(12);
  });
});

describe('security versus quality (issue 45 item 7)', () => {
  it('leaves code-quality findings out of the figures unless asked; the findings list shows both by default', async () => {
    const app = await makeApplication(t, admin);
    await makeFinding(t, app.id, { severity: 'high', concern: 'security' });
    await makeFinding(t, app.id, { severity: 'high', concern: 'quality' });
    const figures = async (query: string) => {
      const response = await t.app.inject({
        method: 'GET',
        url: `/api/dashboard/stats?applicationId=${app.id}${query}`,
        headers: admin.headers,
      });
      expect(response.statusCode).toBe(200);
      return response.json() as {
        concern: string;
        totals: { open: number };
        open_by_severity: { high: number };
      };
    };
    expect(await figures('')).toMatchObject({
      concern: 'security',
      totals: { open: 1 },
      open_by_severity: { high: 1 },
    });
    expect(await figures('&concern=quality')).toMatchObject({ concern: 'quality', totals: { open: 1 } });
    expect(await figures('&concern=all')).toMatchObject({ concern: 'all', totals: { open: 2 } });
    expect(
      (
        await t.app.inject({
          method: 'GET',
          url: `/api/dashboard/stats?concern=lint`,
          headers: admin.headers,
        })
      ).statusCode,
    ).toBe(400);

    const list = async (query: string) => {
      const response = await t.app.inject({
        method: 'GET',
        url: `/api/findings?application_id=${app.id}${query}`,
        headers: admin.headers,
      });
      expect(response.statusCode).toBe(200);
      const body = response.json() as { findings: { concern: string }[]; pagination: { total: number } };
      return [body.pagination.total, body.findings.map((finding) => finding.concern).sort()];
    };
    expect(await list('')).toEqual([2, ['quality', 'security']]);
    expect(await list('&concern=all')).toEqual([2, ['quality', 'security']]);
    expect(await list('&concern=security')).toEqual([1, ['security']]);
    expect(await list('&concern=quality')).toEqual([1, ['quality']]);
  });
});
