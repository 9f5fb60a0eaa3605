import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grant, makeApplication, makeFinding, makeUser, type TestUser } from '../support/factories.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

/** GET /api/dashboard/trend: new and fixed findings per UTC day, over what the caller may read. */

let t: TestApp;
let admin: TestUser;

const DAY = 86_400_000;
const utcDay = (date: Date) => date.toISOString().slice(0, 10);
/** Noon UTC `days` days ago, so the day a row falls on never depends on the clock's hour. */
const noonDaysAgo = (days: number) => new Date(Date.parse(utcDay(new Date())) - days * DAY + DAY / 2 - 1);

beforeAll(async () => {
  t = await createTestApp();
  admin = await makeUser(t, { role: 'admin' });
});
afterAll(() => t.close());

describe('GET /api/dashboard/trend', () => {
  it('401 without credentials', async () => {
    const response = await t.app.inject({ url: '/api/dashboard/trend' });
    expect(response.statusCode).toBe(401);
  });

  it('400 for a range outside 1..365 days', async () => {
    for (const days of ['0', '366', 'x']) {
      const response = await t.app.inject({
        url: `/api/dashboard/trend?days=${days}`,
        headers: admin.headers,
      });
      expect(response.statusCode, days).toBe(400);
      expect(response.json().errors[0].path).toMatch(/days/);
    }
  });

  it('404 for an application the caller cannot read', async () => {
    const member = await makeUser(t);
    const hidden = await makeApplication(t, admin);
    const response = await t.app.inject({
      url: `/api/dashboard/trend?applicationId=${hidden.id}`,
      headers: member.headers,
    });
    expect(response.statusCode).toBe(404);
  });

  it('counts new and fixed per day over readable applications only, every day present', async () => {
    const member = await makeUser(t);
    const own = await makeApplication(t, member);
    const read = await makeApplication(t, admin);
    await grant(t, member, read.id, 'read');
    const hidden = await makeApplication(t, admin);
    await makeFinding(t, own.id, { first_seen_at: noonDaysAgo(2) });
    await makeFinding(t, own.id, { first_seen_at: noonDaysAgo(2) });
    await makeFinding(t, read.id, {
      first_seen_at: noonDaysAgo(5),
      status: 'fixed',
      fixed_at: noonDaysAgo(1),
    });
    await makeFinding(t, hidden.id, { first_seen_at: noonDaysAgo(2) });
    await makeFinding(t, own.id, { first_seen_at: noonDaysAgo(40) });

    const response = await t.app.inject({ url: '/api/dashboard/trend?days=7', headers: member.headers });
    expect(response.statusCode, response.body).toBe(200);
    const { days } = response.json() as { days: { date: string; new: number; fixed: number }[] };
    expect(days).toHaveLength(7);
    expect(days.at(-1)?.date).toBe(utcDay(new Date()));
    const on = (ago: number) => days.find((day) => day.date === utcDay(noonDaysAgo(ago)));
    expect(on(2)).toMatchObject({ new: 2, fixed: 0 });
    expect(on(5)).toMatchObject({ new: 1, fixed: 0 });
    expect(on(1)).toMatchObject({ new: 0, fixed: 1 });
    expect(days.reduce((sum, day) => sum + day.new, 0)).toBe(3);

    const one = await t.app.inject({
      url: `/api/dashboard/trend?days=7&applicationId=${own.slug}`,
      headers: member.headers,
    });
    expect(one.json().days.reduce((sum: number, day: { new: number }) => sum + day.new, 0)).toBe(2);
  });

  it('counts security findings unless concern asks for quality or all, and echoes it', async () => {
    const app = await makeApplication(t, admin);
    await makeFinding(t, app.id, { first_seen_at: noonDaysAgo(1), concern: 'security' });
    await makeFinding(t, app.id, { first_seen_at: noonDaysAgo(1), concern: 'quality' });
    await makeFinding(t, app.id, { first_seen_at: noonDaysAgo(3), concern: 'quality' });
    await makeFinding(t, app.id, {
      first_seen_at: noonDaysAgo(4),
      concern: 'quality',
      status: 'fixed',
      fixed_at: noonDaysAgo(2),
    });
    const trend = async (concern: string) => {
      const response = await t.app.inject({
        url: `/api/dashboard/trend?days=7&applicationId=${app.id}${concern}`,
        headers: admin.headers,
      });
      expect(response.statusCode, response.body).toBe(200);
      const body = response.json() as { concern: string; days: { new: number; fixed: number }[] };
      return {
        concern: body.concern,
        new: body.days.reduce((sum, day) => sum + day.new, 0),
        fixed: body.days.reduce((sum, day) => sum + day.fixed, 0),
      };
    };
    expect(await trend('')).toEqual({ concern: 'security', new: 1, fixed: 0 });
    expect(await trend('&concern=security')).toEqual({ concern: 'security', new: 1, fixed: 0 });
    expect(await trend('&concern=quality')).toEqual({ concern: 'quality', new: 3, fixed: 1 });
    expect(await trend('&concern=all')).toEqual({ concern: 'all', new: 4, fixed: 1 });
    for (const bad of ['lint', '', 'ALL', 'security%00']) {
      const response = await t.app.inject({
        url: `/api/dashboard/trend?concern=${bad}`,
        headers: admin.headers,
      });
      expect(response.statusCode, bad).toBe(400);
      expect(response.headers['content-type']).toMatch(/application\/problem\+json/);
    }
  });
});

describe('GET /api/applications/{id}/posture', () => {
  it('counts open security findings per version unless concern asks for quality or all; strict query', async () => {
    const app = await makeApplication(t, admin);
    await makeFinding(t, app.id, { severity: 'high', concern: 'security' });
    await makeFinding(t, app.id, { severity: 'high', concern: 'quality' });
    await makeFinding(t, app.id, { severity: 'low', concern: 'quality' });
    await makeFinding(t, app.id, {
      severity: 'low',
      concern: 'quality',
      status: 'fixed',
      fixed_at: new Date(),
    });
    const posture = async (query: string) => {
      const response = await t.app.inject({
        url: `/api/applications/${app.id}/posture${query}`,
        headers: admin.headers,
      });
      expect(response.statusCode, response.body).toBe(200);
      const body = response.json() as {
        concern: string;
        versions: { high: number; low: number; total: number }[];
      };
      const [version] = body.versions;
      return { concern: body.concern, high: version?.high, low: version?.low, total: version?.total };
    };
    expect(await posture('')).toEqual({ concern: 'security', high: 1, low: 0, total: 1 });
    expect(await posture('?concern=quality')).toEqual({ concern: 'quality', high: 1, low: 1, total: 2 });
    expect(await posture('?concern=all')).toEqual({ concern: 'all', high: 2, low: 1, total: 3 });
    for (const bad of ['?concern=lint', '?concern=', '?scope=all']) {
      const response = await t.app.inject({
        url: `/api/applications/${app.id}/posture${bad}`,
        headers: admin.headers,
      });
      expect(response.statusCode, bad).toBe(400);
      expect(response.headers['content-type']).toMatch(/application\/problem\+json/);
    }
  });
});
