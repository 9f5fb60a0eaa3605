import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { trackerAdapter } from '../../src/integrations/issue-trackers/adapters.ts';
import { grant, makeApplication, makeFinding, makeUser, type TestUser } from '../support/factories.ts';
import { startFakeTracker, type FakeTracker } from '../support/fake-trackers.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

/**
 * The issue-tracker configuration routes in the usual order (401, 403, 400 per bad field, 404,
 * success) with the database checked after each, the connection test, and the promise that the
 * token is never returned.
 */

const TOKEN = 'ghp_route-test-token-never-returned';
let t: TestApp;
let admin: TestUser;
let reader: TestUser;
let outsider: TestUser;
const fakes: FakeTracker[] = [];
/** Every answer of this file, to prove the token is in none of them. */
const answers: string[] = [];

beforeAll(async () => {
  t = await createTestApp({
    outbound: { allowPrivate: true },
    trackers: { timeoutMs: 1500, retryLimit: 1, retryDelaySeconds: 1 },
  });
  admin = await makeUser(t, { role: 'admin' });
  reader = await makeUser(t);
  outsider = await makeUser(t);
});
afterEach(async () => {
  await Promise.all(fakes.splice(0).map((fake) => fake.stop()));
});
afterAll(async () => {
  for (const answer of answers) expect(answer).not.toContain(TOKEN);
  await t.close();
});

async function call(
  method: string,
  url: string,
  headers: Record<string, string>,
  payload?: object,
): Promise<LightMyRequestResponse> {
  const response = await t.app.inject({
    method: method as 'GET',
    url,
    headers,
    ...(payload ? { payload } : {}),
  });
  answers.push(response.body);
  return response;
}

const valid = (baseUrl = 'https://github.example.test/api/v3') => ({
  provider: 'github',
  token: TOKEN,
  base_url: baseUrl,
  repository: 'acme/app',
});
const trackerRows = (applicationId: number) =>
  t.db.selectFrom('issue_trackers').selectAll().where('application_id', '=', applicationId).execute();

describe('POST /api/applications/{id}/issue-tracker', () => {
  it('401 without credentials, 404 for an outsider, 403 for a reader; nothing stored', async () => {
    const app = await makeApplication(t, admin);
    await grant(t, reader, app.id, 'read');
    const url = `/api/applications/${app.id}/issue-tracker`;
    expect((await call('POST', url, {}, valid())).statusCode).toBe(401);
    expect((await call('POST', url, outsider.headers, valid())).statusCode).toBe(404);
    const forbidden = await call('POST', url, reader.headers, valid());
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.headers['content-type']).toContain('application/problem+json');
    for (const path of ['', '/test'])
      expect((await call('POST', `${url}${path}`, reader.headers)).statusCode).toBe(path ? 403 : 400);
    expect((await call('DELETE', url, reader.headers)).statusCode).toBe(403);
    expect(await trackerRows(app.id)).toEqual([]);
  });

  it('400 naming each bad or missing field; nothing stored', async () => {
    const app = await makeApplication(t, admin);
    const url = `/api/applications/${app.id}/issue-tracker`;
    const cases: [object, string][] = [
      [{ ...valid(), provider: undefined }, 'body.provider'],
      [{ ...valid(), provider: 'bugzilla' }, 'body.provider'],
      [{ ...valid(), token: undefined }, 'body.token'],
      [{ ...valid(), token: '' }, 'body.token'],
      [{ ...valid(), repository: undefined }, 'body.repository'],
      [{ ...valid(), repository: 'no-slash' }, 'body.repository'],
      [{ ...valid(), auth_type: 'basic', email: 'a@b.test' }, 'body.auth_type'],
      [{ ...valid(), base_url: 'not a url' }, 'body.base_url'],
      [{ ...valid(), base_url: 'https://user:pw@github.example.test' }, 'body.base_url'],
      [{ ...valid(), base_url: 'file:///etc/passwd' }, 'body.base_url'],
      [{ ...valid(), severity_threshold: 'urgent' }, 'body.severity_threshold'],
      [{ ...valid(), closed_status: 'open' }, 'body.closed_status'],
      [{ ...valid(), labels: 'security' }, 'body.labels'],
      [{ ...valid(), labels: Array.from({ length: 21 }, (_, i) => `l${i}`) }, 'body.labels'],
      [{ ...valid(), auto_create: 'yes' }, 'body.auto_create'],
      [{ ...valid(), webhook_secret: 'short' }, 'body.webhook_secret'],
      [{ ...valid(), token: 'x'.repeat(1025) }, 'body.token'],
      [{ ...valid(), surprise: 1 }, 'body.surprise'],
      [{ provider: 'jira', token: TOKEN, base_url: 'https://acme.atlassian.net' }, 'body.project_key'],
      [
        { provider: 'jira', token: TOKEN, base_url: 'https://acme.atlassian.net', project_key: 'SEC-1' },
        'body.project_key',
      ],
      [{ provider: 'jira', token: TOKEN, project_key: 'SEC' }, 'body.base_url'],
      [
        {
          provider: 'jira',
          auth_type: 'basic',
          token: TOKEN,
          base_url: 'https://acme.atlassian.net',
          project_key: 'SEC',
        },
        'body.email',
      ],
      [{ provider: 'gitlab', token: TOKEN }, 'body.project_id'],
    ];
    for (const [payload, path] of cases) {
      const response = await call('POST', url, admin.headers, payload);
      expect(response.statusCode, JSON.stringify(payload).slice(0, 120)).toBe(400);
      const paths = response.json().errors.map((issue: { path: string }) => issue.path);
      expect(paths, JSON.stringify(payload).slice(0, 120)).toContain(path);
    }
    expect(await trackerRows(app.id)).toEqual([]);
  });

  it('404 for a missing application', async () => {
    expect(
      (await call('POST', '/api/applications/999999/issue-tracker', admin.headers, valid())).statusCode,
    ).toBe(404);
  });

  it('201 on create with defaults and a generated webhook secret shown once; 200 on update; the token sealed and never returned', async () => {
    const app = await makeApplication(t, admin);
    const url = `/api/applications/${app.id}/issue-tracker`;
    const created = await call('POST', url, admin.headers, {
      provider: 'github',
      token: TOKEN,
      repository: 'acme/app',
      closedStatus: 'false_positive',
    });
    expect(created.statusCode, created.body).toBe(201);
    const body = created.json();
    expect(body).toMatchObject({
      application_id: app.id,
      provider: 'github',
      auth_type: 'token',
      base_url: 'https://api.github.com',
      repository: 'acme/app',
      severity_threshold: 'high',
      auto_create: true,
      close_on_fix: true,
      labels: [],
      closed_status: 'false_positive',
      token_set: true,
      token_last4: TOKEN.slice(-4),
      webhook_url: `/api/integrations/github/webhook/${body.id}`,
      webhook_secret_set: true,
    });
    expect(body.webhook_secret).toMatch(/^shw_/);
    expect(body).not.toHaveProperty('token');
    const [row] = await trackerRows(app.id);
    expect(row?.token_sealed).toMatch(/^v1\./);
    expect(t.secrets.open(row?.token_sealed ?? '')).toBe(TOKEN);
    expect(t.secrets.open(row?.webhook_secret_sealed ?? '')).toBe(body.webhook_secret);

    const read = await call('GET', url, admin.headers);
    expect(read.statusCode).toBe(200);
    expect(read.json()).not.toHaveProperty('webhook_secret');
    const updated = await call('POST', url, admin.headers, {
      provider: 'github',
      severityThreshold: 'critical',
      labels: ['sec', 'sec'],
    });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(updated.json()).toMatchObject({
      severity_threshold: 'critical',
      labels: ['sec'],
      repository: 'acme/app',
      token_last4: TOKEN.slice(-4),
    });
    expect(updated.json()).not.toHaveProperty('webhook_secret');
    const [after] = await trackerRows(app.id);
    expect(after?.token_sealed).toBe(row?.token_sealed);
    expect(after?.webhook_secret_sealed).toBe(row?.webhook_secret_sealed);
    // Switching provider starts from that provider's needs.
    const switched = await call('POST', url, admin.headers, { provider: 'gitlab', token: TOKEN });
    expect(switched.statusCode).toBe(400);
    expect(switched.json().errors[0].path).toBe('body.project_id');
    expect((await trackerRows(app.id)).length).toBe(1);
  });
});

describe('GET, DELETE, issues', () => {
  it('a reader reads; 404 when no tracker; delete removes it and its links', async () => {
    const app = await makeApplication(t, admin);
    await grant(t, reader, app.id, 'read');
    const url = `/api/applications/${app.id}/issue-tracker`;
    expect((await call('GET', url, {})).statusCode).toBe(401);
    expect((await call('GET', url, outsider.headers)).statusCode).toBe(404);
    expect((await call('GET', url, reader.headers)).statusCode).toBe(404);
    expect((await call('GET', `${url}/issues`, reader.headers)).statusCode).toBe(404);
    expect((await call('DELETE', url, admin.headers)).statusCode).toBe(404);
    expect((await call('POST', `${url}/test`, admin.headers)).statusCode).toBe(404);
    const finding = await makeFinding(t, app.id);
    expect((await call('POST', `/api/findings/${finding.id}/issue`, admin.headers)).statusCode).toBe(404);

    expect((await call('POST', url, admin.headers, valid())).statusCode).toBe(201);
    const got = await call('GET', url, reader.headers);
    expect(got.statusCode).toBe(200);
    expect(got.json().repository).toBe('acme/app');
    expect((await call('GET', `${url}/issues`, reader.headers)).json()).toEqual([]);
    expect((await call('POST', `/api/findings/${finding.id}/issue`, reader.headers)).statusCode).toBe(403);
    expect((await call('POST', `/api/findings/${finding.id}/issue`, outsider.headers)).statusCode).toBe(404);
    const filed = await call('POST', `/api/findings/${finding.id}/issue`, admin.headers);
    expect(filed.statusCode).toBe(201);
    const issues = await call('GET', `${url}/issues`, reader.headers);
    expect(issues.json()).toHaveLength(1);
    expect(issues.json()[0]).toMatchObject({ finding_id: finding.id, provider: 'github' });

    expect((await call('DELETE', url, admin.headers)).statusCode).toBe(204);
    expect(await trackerRows(app.id)).toEqual([]);
    expect(
      await t.db.selectFrom('tracker_issues').selectAll().where('finding_id', '=', finding.id).execute(),
    ).toEqual([]);
  });
});

describe('changing where issues live', () => {
  it('another provider needs its own token; a new target drops the links (the issues stay there)', async () => {
    const app = await makeApplication(t, admin);
    const url = `/api/applications/${app.id}/issue-tracker`;
    await call('POST', url, admin.headers, { ...valid(), auto_create: false });
    const finding = await makeFinding(t, app.id);
    await t.db
      .insertInto('tracker_issues')
      .values({
        tracker_id: (await trackerRows(app.id))[0]?.id ?? 0,
        finding_id: finding.id,
        provider: 'github',
        external_key: '#7',
        state: 'open',
      })
      .execute();
    const noToken = await call('POST', url, admin.headers, { provider: 'gitlab', project_id: '42' });
    expect(noToken.statusCode).toBe(400);
    expect(noToken.json().errors[0].path).toBe('body.token');
    expect((await call('POST', url, admin.headers, { provider: 'github', labels: ['x'] })).statusCode).toBe(
      200,
    );
    expect((await call('GET', `${url}/issues`, admin.headers)).json()).toHaveLength(1);
    const moved = await call('POST', url, admin.headers, { provider: 'github', repository: 'acme/other' });
    expect(moved.statusCode).toBe(200);
    expect((await call('GET', `${url}/issues`, admin.headers)).json()).toEqual([]);
  });
});

describe('POST /api/applications/{id}/issue-tracker/test', () => {
  it('200 when the tracker answers; 400 with the reason on 401 and on a closed port', async () => {
    const fake = await startFakeTracker('github', `token ${TOKEN}`);
    fakes.push(fake);
    const app = await makeApplication(t, admin);
    const url = `/api/applications/${app.id}/issue-tracker`;
    expect((await call('POST', url, admin.headers, valid(fake.url))).statusCode).toBe(201);
    const ok = await call('POST', `${url}/test`, admin.headers);
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toEqual({ success: true, message: `Connected to github at ${fake.url}` });
    expect(fake.calls()).toEqual(['GET /repos/acme/app']);
    expect(fake.requests[0]?.headers.authorization).toBe(`token ${TOKEN}`);

    await call('POST', url, admin.headers, {
      provider: 'github',
      token: 'ghp_wrong-token-for-the-fake-0000',
    });
    const refused = await call('POST', `${url}/test`, admin.headers);
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ code: 'connection_failed' });
    expect(refused.json().detail).toMatch(/^github: answered 401: Bad credentials/);

    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await call('POST', url, admin.headers, {
      provider: 'github',
      base_url: `http://127.0.0.1:${port}`,
      token: TOKEN,
    });
    const unreachable = await call('POST', `${url}/test`, admin.headers);
    expect(unreachable.statusCode).toBe(400);
    expect(unreachable.json().detail).toMatch(/^github: unreachable: .*ECONNREFUSED/);
  });

  it('every provider client goes through the SSRF guard: loopback is refused when private addresses are not allowed', async () => {
    const fake = await startFakeTracker('github', `token ${TOKEN}`);
    fakes.push(fake);
    const base = {
      id: 1,
      application_id: 1,
      auth_type: 'token' as const,
      username: null,
      token_sealed: t.secrets.seal(TOKEN),
      token_last4: '',
      token_origin: fake.url,
      base_url: fake.url,
      project_key: 'SEC',
      issue_type: 'Bug',
      repository: 'acme/app',
      project_id: '42',
      severity_threshold: 'high' as const,
      auto_create: true,
      close_on_fix: true,
      labels: [],
      closed_status: 'fixed' as const,
      webhook_secret_sealed: '',
      created_by: null,
      created_at: new Date(),
      updated_at: new Date(),
    };
    for (const provider of ['github', 'gitlab', 'jira'] as const) {
      const adapter = await trackerAdapter({ ...base, provider }, t.secrets, {
        outbound: { allowPrivate: false },
        trackers: { timeoutMs: 1500, retryLimit: 1, retryDelaySeconds: 1 },
      });
      await expect(adapter.testConnection(), provider).rejects.toThrow(/the address is not allowed \(/);
    }
    expect(fake.requests).toEqual([]);
  });
});
