import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grant, makeApplication, makeFinding, makeUser, type TestUser } from '../support/factories.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

let t: TestApp;
let admin: TestUser;
let reader: TestUser;
let outsider: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  admin = await makeUser(t, { role: 'admin' });
  reader = await makeUser(t);
  outsider = await makeUser(t);
});
afterAll(() => t.close());

async function makeVersion(applicationId: number, name: string): Promise<{ id: number; name: string }> {
  return t.db
    .insertInto('application_versions')
    .values({ application_id: applicationId, name })
    .returning(['id', 'name'])
    .executeTakeFirstOrThrow();
}

const compareUrl = (appId: number | string, query: string) =>
  `/api/applications/${appId}/versions/compare${query}`;

interface Listed {
  id: number;
  fingerprint: string;
  status: string;
  risk_score: number;
}

/** An application with versions `v1` and `v2` and findings covering every bucket. */
async function scenario() {
  const app = await makeApplication(t, admin);
  await grant(t, reader, app.id, 'read');
  const v1 = await makeVersion(app.id, 'v1');
  const v2 = await makeVersion(app.id, 'v2');
  const at = (versionId: number, fingerprint: string, extra: Parameters<typeof makeFinding>[2] = {}) =>
    makeFinding(t, app.id, { version_id: versionId, fingerprint, ...extra });
  // still present: in both; the `to` side is listed, with its own status and score.
  const keptFrom = await at(v1.id, 'kept', { risk_score: 40 });
  const keptTo = await at(v2.id, 'kept', { risk_score: 45, status: 'confirmed' });
  // a false positive is still reported by the scanner: present.
  const dismissedTo = await at(v2.id, 'dismissed', { risk_score: 10, status: 'false_positive' });
  const dismissedFrom = await at(v1.id, 'dismissed', { risk_score: 10, status: 'false_positive' });
  // fixed: gone from `to`, or there but marked fixed; listed as in `from`.
  const goneFrom = await at(v1.id, 'gone', { risk_score: 70 });
  const fixedFrom = await at(v1.id, 'fixed-in-to', { risk_score: 30 });
  await at(v2.id, 'fixed-in-to', { risk_score: 30, status: 'fixed' });
  // new: only in `to`, or fixed in `from` and back (present again) in `to`.
  const brandNew = await at(v2.id, 'brand-new', { risk_score: 20 });
  await at(v1.id, 'regressed', { risk_score: 60, status: 'fixed' });
  const regressedTo = await at(v2.id, 'regressed', { risk_score: 80 });
  // fixed on both sides: present in neither, listed nowhere.
  await at(v1.id, 'long-fixed', { status: 'fixed' });
  await at(v2.id, 'long-fixed', { status: 'fixed' });
  // another application's finding with a shared fingerprint must not leak in.
  const other = await makeApplication(t, admin);
  await makeFinding(t, other.id, { fingerprint: 'brand-new' });
  return {
    app,
    v1,
    v2,
    keptFrom,
    keptTo,
    dismissedTo,
    dismissedFrom,
    goneFrom,
    fixedFrom,
    brandNew,
    regressedTo,
  };
}

describe('GET /api/applications/{id}/versions/compare', () => {
  it('401 without credentials', async () => {
    const response = await t.app.inject({ url: compareUrl(1, '?from=a&to=b') });
    expect(response.statusCode).toBe(401);
  });

  it('400 validation_failed naming the missing parameter', async () => {
    const app = await makeApplication(t, admin);
    const cases: [string, string[]][] = [
      ['?to=default', ['querystring.from']],
      ['?from=default', ['querystring.to']],
      ['', ['querystring.from', 'querystring.to']],
      ['?from=&to=default', ['querystring.from']],
    ];
    for (const [query, paths] of cases) {
      const response = await t.app.inject({ url: compareUrl(app.id, query), headers: admin.headers });
      expect(response.statusCode, query).toBe(400);
      expect(response.headers['content-type']).toContain('application/problem+json');
      const body = response.json();
      expect(body.code).toBe('validation_failed');
      expect(body.errors.map((error: { path: string }) => error.path).sort()).toEqual(paths);
    }
  });

  it('404 for an unknown application, an unknown from or to version, and an unreadable application', async () => {
    const { app } = await scenario();
    const cases: [TestUser, string, string][] = [
      [admin, compareUrl(999999, '?from=v1&to=v2'), 'Application not found'],
      [admin, compareUrl('not-an-app', '?from=v1&to=v2'), 'Application not found'],
      [admin, compareUrl(app.id, '?from=nope&to=v2'), 'Version "nope" (from) not found'],
      [admin, compareUrl(app.id, '?from=v1&to=999999'), 'Version "999999" (to) not found'],
      [outsider, compareUrl(app.id, '?from=v1&to=v2'), 'Application not found'],
    ];
    for (const [user, url, detail] of cases) {
      const response = await t.app.inject({ url, headers: user.headers });
      expect(response.statusCode, url).toBe(404);
      expect(response.json()).toMatchObject({ code: 'not_found', detail });
    }
  });

  it('404 for a version of another application', async () => {
    const { app } = await scenario();
    const other = await makeApplication(t, admin);
    const foreign = await makeVersion(other.id, 'foreign');
    const response = await t.app.inject({
      url: compareUrl(app.id, `?from=${foreign.id}&to=v2`),
      headers: admin.headers,
    });
    expect(response.statusCode).toBe(404);
  });

  it('200 buckets by fingerprint, `to` side for still present, sorted by risk, with a summary', async () => {
    const s = await scenario();
    const response = await t.app.inject({
      url: compareUrl(s.app.id, '?from=v1&to=v2'),
      headers: reader.headers,
    });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.from).toMatchObject({ id: s.v1.id, name: 'v1', application_id: s.app.id });
    expect(body.to).toMatchObject({ id: s.v2.id, name: 'v2', application_id: s.app.id });
    const ids = (items: Listed[]) => items.map((item) => item.id);
    expect(ids(body.new)).toEqual([s.regressedTo.id, s.brandNew.id]);
    expect(ids(body.fixed)).toEqual([s.goneFrom.id, s.fixedFrom.id]);
    expect(ids(body.still_present)).toEqual([s.keptTo.id, s.dismissedTo.id]);
    expect(body.summary).toEqual({ new: 2, fixed: 2, still_present: 2 });
    expect(body.still_present[0]).toEqual({
      id: s.keptTo.id,
      fingerprint: 'kept',
      title: s.keptTo.title,
      severity: 'high',
      concern: 'security',
      status: 'confirmed',
      rule_id: null,
      file_path: 'src/app.ts',
      line: 10,
      risk_score: 45,
    });
    expect(body.fixed.map((item: Listed) => item.status)).toEqual(['open', 'open']);
  });

  it('accepts ids as well as names, and reversing the versions swaps new and fixed', async () => {
    const s = await scenario();
    const byName = await t.app.inject({
      url: compareUrl(s.app.id, '?from=v2&to=v1'),
      headers: admin.headers,
    });
    const byId = await t.app.inject({
      url: compareUrl(s.app.slug, `?from=${s.v2.id}&to=${s.v1.id}`),
      headers: admin.headers,
    });
    expect(byId.statusCode).toBe(200);
    expect(byId.json()).toEqual(byName.json());
    const body = byId.json();
    expect(body.new.map((item: Listed) => item.id)).toEqual([s.goneFrom.id, s.fixedFrom.id]);
    expect(body.fixed.map((item: Listed) => item.id)).toEqual([s.regressedTo.id, s.brandNew.id]);
    expect(body.still_present.map((item: Listed) => item.id)).toEqual([s.keptFrom.id, s.dismissedFrom.id]);
    expect(body.summary).toEqual({ new: 2, fixed: 2, still_present: 2 });
  });

  it('a version compared with itself has only still-present findings', async () => {
    const s = await scenario();
    const response = await t.app.inject({
      url: compareUrl(s.app.id, '?from=v2&to=v2'),
      headers: admin.headers,
    });
    expect(response.json().summary).toEqual({ new: 0, fixed: 0, still_present: 4 });
  });

  it('is not shadowed by /versions/{versionId}, even by a version named "compare"', async () => {
    const s = await scenario();
    const named = await makeVersion(s.app.id, 'compare');
    // The static segment wins over the parameter: a comparison (or its 400), never the version.
    const missing = await t.app.inject({ url: compareUrl(s.app.id, ''), headers: admin.headers });
    expect(missing.statusCode).toBe(400);
    const compared = await t.app.inject({
      url: compareUrl(s.app.id, '?from=v1&to=v2'),
      headers: admin.headers,
    });
    expect(compared.statusCode).toBe(200);
    expect(compared.json().summary).toEqual({ new: 2, fixed: 2, still_present: 2 });
    // The version named "compare" stays reachable by id, and the parameter route still works.
    const version = await t.app.inject({
      url: `/api/applications/${s.app.id}/versions/${named.id}`,
      headers: admin.headers,
    });
    expect(version.statusCode).toBe(200);
    expect(version.json()).toMatchObject({ id: named.id, name: 'compare' });
    const other = await t.app.inject({
      url: `/api/applications/${s.app.id}/versions/v1`,
      headers: admin.headers,
    });
    expect(other.json()).toMatchObject({ id: s.v1.id, name: 'v1' });
  });
});
