import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csrfTokenFor, SESSION_COOKIE } from '../../src/http/auth.ts';
import { sha256Hex } from '../../src/lib/secrets.ts';
import {
  grant,
  makeApplication,
  makeFinding,
  makeGroup,
  makeUser,
  type TestUser,
  makePeople,
} from '../support/factories.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { upload } from '../support/upload.ts';

/**
 * The routes that let the web UI manage access, assignment and one's own account without admin
 * rights: the directory search, who-has-access lists, group grants, an application's assignees,
 * signing out everywhere and a version's content counts. Each walks 401, 403, 400, 404, then success,
 * and checks the database afterwards.
 */

const PASSWORD = 'correct horse battery staple';

let t: TestApp;
let admin: TestUser;
let writer: TestUser;
let reader: TestUser;
let outsider: TestUser;
let teamMember: TestUser;
let groupReader: TestUser;
let disabled: TestUser;
let application: Awaited<ReturnType<typeof makeApplication>>;
let groupId: number;
let teamId: number;

async function rename(user: TestUser, name: string): Promise<void> {
  await t.db.updateTable('users').set({ name }).where('id', '=', user.id).execute();
}

beforeAll(async () => {
  t = await createTestApp();
  ({ admin, writer, reader, outsider } = await makePeople(t));
  teamMember = await makeUser(t);
  groupReader = await makeUser(t);
  disabled = await makeUser(t);
  await rename(writer, 'Wanda Writer');
  await rename(reader, 'Rita 100% Reader');
  await rename(outsider, 'Otto Outsider');
  await rename(teamMember, 'Tess Team');
  await rename(groupReader, 'Gus Group');
  await rename(disabled, 'Dora Disabled');
  const group = await makeGroup(t, admin);
  groupId = group.id;
  application = await makeApplication(t, admin, { groupId });
  await grant(t, writer, application.id, 'write');
  await grant(t, reader, application.id, 'read');
  await grant(t, disabled, application.id, 'read');
  await t.db.updateTable('users').set({ disabled: true }).where('id', '=', disabled.id).execute();
  const team = await t.db
    .insertInto('teams')
    .values({ name: 'Blue_Team' })
    .returning('id')
    .executeTakeFirstOrThrow();
  teamId = team.id;
  await t.db
    .insertInto('team_members')
    .values({ team_id: teamId, user_id: teamMember.id, role: 'member' })
    .execute();
  await t.db
    .insertInto('permission_policies')
    .values({ team_id: teamId, application_id: application.id, action: 'read' })
    .execute();
  await t.db
    .insertInto('permission_policies')
    .values({ user_id: groupReader.id, group_id: groupId, action: 'read' })
    .execute();
});
afterAll(() => t.close());

const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ url, headers });

describe('GET /api/directory/users and /api/directory/teams', () => {
  it('401 without credentials and with an application token', async () => {
    for (const url of ['/api/directory/users', '/api/directory/teams']) {
      expect((await get(url)).statusCode).toBe(401);
      expect((await get(url, { 'x-api-token': application.api_token })).statusCode).toBe(401);
    }
  });

  it('400 on an unbounded query string or page', async () => {
    for (const query of ['q=' + 'a'.repeat(101), 'per_page=51', 'per_page=0', 'page=0', 'page=x']) {
      const response = await get(`/api/directory/users?${query}`, outsider.headers);
      expect(response.statusCode, query).toBe(400);
      expect(response.headers['content-type']).toContain('application/problem+json');
      expect(response.json().code).toBe('validation_failed');
    }
  });

  it('finds active people by part of a name or email, case-insensitively; % and _ are literal', async () => {
    const byName = await get('/api/directory/users?q=wANDA', outsider.headers);
    expect(byName.statusCode).toBe(200);
    expect(byName.json().items).toEqual([{ id: writer.id, name: 'Wanda Writer', email: writer.email }]);
    const byEmail = await get(`/api/directory/users?q=${encodeURIComponent(reader.email)}`, outsider.headers);
    expect(byEmail.json().items.map((user: { id: number }) => user.id)).toEqual([reader.id]);
    const percent = await get('/api/directory/users?q=%25', outsider.headers);
    expect(percent.json().items.map((user: { id: number }) => user.id)).toEqual([reader.id]);
    const disabledOne = await get('/api/directory/users?q=Dora', outsider.headers);
    expect(disabledOne.json()).toEqual({ items: [], pagination: { page: 1, per_page: 20, total: 0 } });
    const team = await get('/api/directory/teams?q=e_t', outsider.headers);
    expect(team.json().items).toEqual([{ id: teamId, name: 'Blue_Team' }]);
    expect((await get('/api/directory/teams?q=e%25t', outsider.headers)).json().items).toEqual([]);
  });

  it('pages through everyone active exactly once', async () => {
    const seen: number[] = [];
    let total = 0;
    for (let page = 1; page <= 10; page += 1) {
      const body = (await get(`/api/directory/users?per_page=2&page=${page}`, outsider.headers)).json();
      total = body.pagination.total;
      seen.push(...body.items.map((user: { id: number }) => user.id));
      if (body.items.length < 2) break;
    }
    const active = await t.db.selectFrom('users').select('id').where('disabled', '=', false).execute();
    expect(total).toBe(active.length);
    expect(seen.sort((a, b) => a - b)).toEqual(active.map((row) => row.id).sort((a, b) => a - b));
  });

  it('never answers more than names and emails, whatever is searched', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ maxLength: 12 }).filter((text) => !text.includes('\u0000')),
        fc.integer({ min: 1, max: 50 }),
        async (text, perPage) => {
          const query = `q=${encodeURIComponent(text)}&per_page=${perPage}`;
          const users = await get(`/api/directory/users?${query}`, outsider.headers);
          expect(users.statusCode).toBe(200);
          for (const user of users.json().items)
            expect(Object.keys(user).sort()).toEqual(['email', 'id', 'name']);
          expect(users.body).not.toMatch(/role|disabled|last_login|password|created_at|admin/);
          const teams = await get(`/api/directory/teams?${query}`, outsider.headers);
          for (const team of teams.json().items) expect(Object.keys(team).sort()).toEqual(['id', 'name']);
        },
      ),
      { numRuns: 25 },
    );
  });
});

describe('GET /api/applications/{id}/assignees', () => {
  const url = () => `/api/applications/${application.id}/assignees`;

  it('401 without credentials; 404 to who cannot read; 403 to a reader; 400 on a bad page', async () => {
    expect((await get(url())).statusCode).toBe(401);
    expect((await get(url(), outsider.headers)).statusCode).toBe(404);
    expect((await get('/api/applications/999999/assignees', writer.headers)).statusCode).toBe(404);
    const forbidden = await get(url(), reader.headers);
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.json().code).toBe('forbidden');
    expect((await get(`${url()}?per_page=500`, writer.headers)).statusCode).toBe(400);
  });

  it('lists exactly the active users who can read the application, by any grant, with names and emails', async () => {
    const response = await get(`${url()}?per_page=50`, writer.headers);
    expect(response.statusCode).toBe(200);
    const ids = response.json().items.map((user: { id: number }) => user.id);
    expect(new Set(ids)).toEqual(new Set([admin.id, writer.id, reader.id, teamMember.id, groupReader.id]));
    for (const user of response.json().items)
      expect(Object.keys(user).sort()).toEqual(['email', 'id', 'name']);
    const searched = await get(`${url()}?q=tess`, writer.headers);
    expect(searched.json().items).toEqual([
      { id: teamMember.id, name: 'Tess Team', email: teamMember.email },
    ]);
  });

  it('offers only people an assignment accepts: each one listed can be assigned a finding', async () => {
    const finding = await makeFinding(t, application.id);
    const listed = (await get(`${url()}?per_page=50`, writer.headers)).json().items as { id: number }[];
    for (const user of listed) {
      const response = await t.app.inject({
        method: 'PATCH',
        url: `/api/findings/${finding.id}/assign`,
        headers: writer.headers,
        payload: { user_id: user.id },
      });
      expect(response.statusCode, `user ${user.id}`).toBe(200);
    }
    const refused = await t.app.inject({
      method: 'PATCH',
      url: `/api/findings/${finding.id}/assign`,
      headers: writer.headers,
      payload: { user_id: outsider.id },
    });
    expect(refused.statusCode).toBe(400);
  });
});

describe('GET /api/applications/{id}/access', () => {
  const url = () => `/api/applications/${application.id}/access`;

  it('401, then 404 to who cannot read the application', async () => {
    expect((await get(url())).statusCode).toBe(401);
    expect((await get(url(), outsider.headers)).statusCode).toBe(404);
  });

  it('lists each grant with its name and where it comes from; says who may change it', async () => {
    const everything = await t.db
      .insertInto('permission_policies')
      .values({ user_id: outsider.id, action: 'read' })
      .returning('id')
      .executeTakeFirstOrThrow();
    try {
      const asReader = await get(url(), reader.headers);
      expect(asReader.statusCode).toBe(200);
      expect(asReader.json().can_administer).toBe(false);
      const entries = asReader.json().entries as {
        subject: string;
        name: string;
        email: string | null;
        action: string;
        source: string;
        group: { id: number } | null;
      }[];
      const find = (subject: string) => entries.find((entry) => entry.subject === subject);
      expect(find(`user:${writer.id}`)).toMatchObject({
        name: 'Wanda Writer',
        action: 'write',
        source: 'direct',
      });
      expect(find(`team:${teamId}`)).toMatchObject({ name: 'Blue_Team', email: null, source: 'direct' });
      expect(find(`user:${groupReader.id}`)).toMatchObject({
        source: 'group',
        group: { id: groupId },
        email: groupReader.email,
      });
      expect(find(`user:${outsider.id}`)).toMatchObject({ source: 'everything', group: null });
      expect((await get(url(), writer.headers)).json().can_administer).toBe(true);
      expect((await get(url(), admin.headers)).json().can_administer).toBe(true);
    } finally {
      await t.db.deleteFrom('permission_policies').where('id', '=', everything.id).execute();
    }
  });
});

describe('group access: GET /api/groups/{id}/access, POST and DELETE /api/groups/{id}/permissions', () => {
  const grantUrl = () => `/api/groups/${groupId}/permissions`;
  const send = (method: 'POST' | 'DELETE', headers: Record<string, string>, payload: object) =>
    t.app.inject({ method, url: grantUrl(), headers, payload });
  const groupGrants = () =>
    t.db
      .selectFrom('permission_policies')
      .select(['user_id', 'team_id', 'action'])
      .where('group_id', '=', groupId)
      .orderBy('id')
      .execute();

  it('walks 401, 404, 403, 400 and 404 on the referent; nothing changes', async () => {
    const before = await groupGrants();
    const body = { subject: `user:${outsider.id}`, action: 'read' };
    expect((await send('POST', {}, body)).statusCode).toBe(401);
    expect((await send('POST', outsider.headers, body)).statusCode).toBe(404);
    expect((await get(`/api/groups/${groupId}/access`, outsider.headers)).statusCode).toBe(404);
    // Write on one application is read on its group, not write.
    const forbidden = await send('POST', writer.headers, body);
    expect(forbidden.statusCode).toBe(403);
    for (const bad of [
      { subject: 'user:abc', action: 'read' },
      { subject: `user:${outsider.id}`, action: 'admin' },
      { subject: `user:${outsider.id}`, action: 'read', resource: '*' },
      { subject: `user:${outsider.id}` },
    ]) {
      const response = await send('POST', admin.headers, bad);
      expect(response.statusCode, JSON.stringify(bad)).toBe(400);
    }
    expect((await send('POST', admin.headers, { subject: 'user:99999999', action: 'read' })).statusCode).toBe(
      404,
    );
    expect((await send('POST', admin.headers, { subject: 'team:99999999', action: 'read' })).statusCode).toBe(
      404,
    );
    expect(
      (
        await t.app.inject({
          method: 'POST',
          url: '/api/groups/999999/permissions',
          headers: admin.headers,
          payload: body,
        })
      ).statusCode,
    ).toBe(404);
    expect(await groupGrants()).toEqual(before);
  });

  it('a group writer grants and revokes; the grant reaches the group’s applications', async () => {
    const lead = await makeUser(t);
    await t.db
      .insertInto('permission_policies')
      .values({ user_id: lead.id, group_id: groupId, action: 'write' })
      .execute();
    const body = { subject: `team:${teamId}`, action: 'write' };
    const created = await send('POST', lead.headers, body);
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).toMatchObject({
      subject: `team:${teamId}`,
      resource: `group:${groupId}`,
      action: 'write',
    });
    expect(await groupGrants()).toContainEqual({ user_id: null, team_id: teamId, action: 'write' });
    expect((await send('POST', lead.headers, body)).statusCode).toBe(409);
    const access = await get(`/api/groups/${groupId}/access`, lead.headers);
    expect(access.json().can_administer).toBe(true);
    expect(access.json().entries).toContainEqual(
      expect.objectContaining({ subject: `team:${teamId}`, source: 'direct', action: 'write' }),
    );
    // The team member now writes the application through the group.
    expect((await get(`/api/applications/${application.id}/assignees`, teamMember.headers)).statusCode).toBe(
      200,
    );
    const removed = await send('DELETE', lead.headers, body);
    expect(removed.statusCode).toBe(200);
    expect(removed.json().deleted).toBe(true);
    expect(await groupGrants()).not.toContainEqual({ user_id: null, team_id: teamId, action: 'write' });
    expect((await send('DELETE', lead.headers, body)).statusCode).toBe(404);
    expect((await get(`/api/applications/${application.id}/assignees`, teamMember.headers)).statusCode).toBe(
      403,
    );
  });
});

describe('POST /api/auth/logout-all', () => {
  async function signIn(email: string) {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email, password: PASSWORD },
    });
    const cookie = response.cookies.find((candidate) => candidate.name === SESSION_COOKIE)?.value ?? '';
    return {
      cookie: `${SESSION_COOKIE}=${cookie}`,
      csrf: csrfTokenFor(t.secretKey, sha256Hex(cookie)),
    };
  }

  it('401 without credentials; 403 from a session without the CSRF token', async () => {
    expect((await t.app.inject({ method: 'POST', url: '/api/auth/logout-all' })).statusCode).toBe(401);
    const session = await signIn(reader.email);
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/auth/logout-all',
      headers: { cookie: session.cookie },
    });
    expect(response.statusCode).toBe(403);
    expect((await get('/api/auth/me', { cookie: session.cookie })).statusCode).toBe(200);
  });

  it("ends every session of the caller and no one else's; API keys keep working", async () => {
    const laptop = await signIn(reader.email);
    const phone = await signIn(reader.email);
    const someoneElse = await signIn(writer.email);
    const count = async (userId: number) =>
      Number(
        (
          await t.db
            .selectFrom('sessions')
            .select((eb) => eb.fn.countAll<string>().as('n'))
            .where('user_id', '=', userId)
            .executeTakeFirstOrThrow()
        ).n,
      );
    const sessionsBefore = await count(reader.id);
    expect(sessionsBefore).toBeGreaterThanOrEqual(2);
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/auth/logout-all',
      headers: { cookie: laptop.cookie, 'x-csrf-token': laptop.csrf },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ sessions_revoked: sessionsBefore });
    expect(response.cookies.find((cookie) => cookie.name === SESSION_COOKIE)?.value).toBe('');
    expect(await count(reader.id)).toBe(0);
    expect((await get('/api/auth/me', { cookie: phone.cookie })).statusCode).toBe(401);
    expect((await get('/api/auth/me', { cookie: someoneElse.cookie })).statusCode).toBe(200);
    expect((await get('/api/auth/me', reader.headers)).statusCode).toBe(200);
  });
});

describe('GET /api/applications/{id}/versions/{versionId}: what deleting it removes', () => {
  const SARIF = (results: number) =>
    JSON.stringify({
      version: '2.1.0',
      runs: [
        {
          tool: { driver: { name: 'counts', rules: [{ id: 'C1' }] } },
          results: Array.from({ length: results }, (_, index) => ({
            ruleId: 'C1',
            level: 'error',
            message: { text: `counted ${index}` },
            locations: [
              {
                physicalLocation: { artifactLocation: { uri: `src/f${index}.js` }, region: { startLine: 1 } },
              },
            ],
          })),
        },
      ],
    });

  it('counts the findings and scans of the version; both are gone after the delete', async () => {
    for (const results of [3, 4]) {
      const response = await upload(t, `/api/applications/${application.id}/ingest`, admin.headers, {
        file: Buffer.from(SARIF(results)),
        fileName: 'counts.sarif',
        fields: { version: 'to-delete' },
      });
      expect(response.statusCode, response.body).toBe(201);
    }
    const detail = await get(`/api/applications/${application.id}/versions/to-delete`, reader.headers);
    expect(detail.statusCode).toBe(200);
    const versionId = detail.json().id as number;
    expect(detail.json()).toMatchObject({ finding_count: 4, scan_count: 2 });
    expect(detail.json().scans).toHaveLength(2);
    const forbidden = await t.app.inject({
      method: 'DELETE',
      url: `/api/applications/${application.id}/versions/${versionId}`,
      headers: reader.headers,
    });
    expect(forbidden.statusCode).toBe(403);
    const deleted = await t.app.inject({
      method: 'DELETE',
      url: `/api/applications/${application.id}/versions/${versionId}`,
      headers: writer.headers,
    });
    expect(deleted.statusCode).toBe(204);
    const left = await t.db.selectFrom('findings').select('id').where('version_id', '=', versionId).execute();
    expect(left).toEqual([]);
    expect(
      (await get(`/api/applications/${application.id}/versions/${versionId}`, reader.headers)).statusCode,
    ).toBe(404);
  });
});
