import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeApplication, makeUser, type TestUser } from '../support/factories.ts';
import { liveReport } from '../support/live-fixtures.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { upload } from '../support/upload.ts';

/**
 * The policy condition `concern` (issue 45 item 7): a policy on `concern eq quality` acts on the
 * quality findings of an upload only, on a real ESLint SARIF report (eqeqeq and no-unused-vars are
 * quality, no-eval security).
 */

let t: TestApp;
let admin: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  admin = await makeUser(t, { role: 'admin' });
});
afterAll(() => t.close());

const createPolicy = (body: object) =>
  t.app.inject({ method: 'POST', url: '/api/policies', headers: admin.headers, payload: body });

const onApp = (applicationId: number, conditions: object[]) => ({
  name: 'quality is not a vulnerability',
  scope_type: 'application',
  scope_id: applicationId,
  event_types: ['finding.created'],
  conditions,
  actions: [{ type: 'change_status', target: 'false_positive' }],
});

describe('policy condition concern', () => {
  it('concern eq quality acts on the quality findings of an upload, never on its security ones', async () => {
    const app = await makeApplication(t, admin);
    const created = await createPolicy(onApp(app.id, [{ field: 'concern', op: 'eq', value: 'quality' }]));
    expect(created.statusCode, created.body).toBe(201);
    const policy = created.json() as { id: number };
    const response = await upload(t, `/api/applications/${app.id}/ingest`, admin.headers, {
      file: liveReport('v1', 'eslint.sarif'),
      fileName: 'eslint.sarif',
    });
    expect(response.statusCode, response.body).toBe(201);
    const rows = await t.db
      .selectFrom('findings')
      .select(['id', 'rule_id', 'concern', 'status'])
      .where('application_id', '=', app.id)
      .orderBy('id')
      .execute();
    const quality = rows.filter((row) => row.concern === 'quality');
    const security = rows.filter((row) => row.concern === 'security');
    expect(quality.length).toBeGreaterThan(0);
    expect(security.length).toBeGreaterThan(0);
    expect(new Set(security.map((row) => row.rule_id))).toEqual(new Set(['no-eval']));
    expect(quality.map((row) => row.status)).toEqual(quality.map(() => 'false_positive'));
    expect(security.map((row) => row.status)).toEqual(security.map(() => 'open'));

    const runs = await t.app.inject({ url: `/api/policies/${policy.id}/runs`, headers: admin.headers });
    expect(runs.json()).toEqual([
      expect.objectContaining({
        event: 'finding.created',
        evaluated: rows.length,
        matched: quality.length,
        finding_ids: quality.map((row) => row.id),
        error: null,
      }),
    ]);
  });

  it('concern neq quality and in [security] act on the security findings only', async () => {
    for (const condition of [
      { field: 'concern', op: 'neq', value: 'quality' },
      { field: 'concern', op: 'in', value: ['security'] },
    ]) {
      const app = await makeApplication(t, admin);
      expect((await createPolicy(onApp(app.id, [condition]))).statusCode).toBe(201);
      const response = await upload(t, `/api/applications/${app.id}/ingest`, admin.headers, {
        file: liveReport('v1', 'eslint.sarif'),
        fileName: 'eslint.sarif',
      });
      expect(response.statusCode, response.body).toBe(201);
      const rows = await t.db
        .selectFrom('findings')
        .select(['concern', 'status'])
        .where('application_id', '=', app.id)
        .execute();
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) {
        expect(row.status, JSON.stringify(condition)).toBe(
          row.concern === 'security' ? 'false_positive' : 'open',
        );
      }
    }
  });

  it('400 for a concern that is not one, or an ordering op; nothing stored', async () => {
    const app = await makeApplication(t, admin);
    for (const condition of [
      { field: 'concern', op: 'eq', value: 'style' },
      { field: 'concern', op: 'gte', value: 'quality' },
      { field: 'concern', op: 'in', value: ['security', 'performance'] },
    ]) {
      const response = await createPolicy(onApp(app.id, [condition]));
      expect(response.statusCode, JSON.stringify(condition)).toBe(400);
      expect(response.headers['content-type']).toMatch(/application\/problem\+json/);
    }
    const stored = await t.db
      .selectFrom('policies')
      .select('id')
      .where('application_id', '=', app.id)
      .execute();
    expect(stored).toEqual([]);
  });
});
