import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  grantedApplication,
  makeApplication,
  makeGroup,
  makePeople,
  makeUser,
  type TestUser,
} from '../support/factories.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

let t: TestApp;
let admin: TestUser;
let writer: TestUser;
let reader: TestUser;
let outsider: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  ({ admin, writer, reader, outsider } = await makePeople(t));
});
afterAll(() => t.close());

async function setup() {
  return grantedApplication(t, { admin, writer, reader });
}

async function makeTeam(members: TestUser[] = []): Promise<number> {
  const team = await t.db
    .insertInto('teams')
    .values({ name: `team-${Math.random().toString(36).slice(2, 10)}` })
    .returning('id')
    .executeTakeFirstOrThrow();
  for (const user of members) {
    await t.db
      .insertInto('team_members')
      .values({ team_id: team.id, user_id: user.id, role: 'member' })
      .execute();
  }
  return team.id;
}

const grantsOn = (applicationId: number) =>
  t.db
    .selectFrom('permission_policies')
    .select(['user_id', 'team_id', 'action'])
    .where('application_id', '=', applicationId)
    .orderBy('id')
    .execute();

const readApp = (user: TestUser, id: number) =>
  t.app.inject({ url: `/api/applications/${id}`, headers: user.headers });
const writeApp = (user: TestUser, id: number) =>
  t.app.inject({
    method: 'PUT',
    url: `/api/applications/${id}`,
    headers: user.headers,
    payload: { name: 'renamed' },
  });

describe('GET /api/applications/{id}/permissions', () => {
  it('401 without credentials, 404 for an outsider and an unknown application', async () => {
    const app = await setup();
    expect((await t.app.inject({ url: `/api/applications/${app.id}/permissions` })).statusCode).toBe(401);
    const hidden = await t.app.inject({
      url: `/api/applications/${app.id}/permissions`,
      headers: outsider.headers,
    });
    expect(hidden.statusCode).toBe(404);
    const unknown = await t.app.inject({
      url: '/api/applications/999999/permissions',
      headers: admin.headers,
    });
    expect(unknown.statusCode).toBe(404);
  });

  it("200 lists the application's grants as subject, resource and action", async () => {
    const app = await setup();
    const team = await makeTeam();
    await t.db
      .insertInto('permission_policies')
      .values({ team_id: team, application_id: app.id, action: 'read' })
      .execute();
    const response = await t.app.inject({
      url: `/api/applications/${app.id}/permissions`,
      headers: reader.headers,
    });
    expect(response.statusCode).toBe(200);
    expect(
      response
        .json()
        .map((p: { subject: string; resource: string; action: string }) => [p.subject, p.resource, p.action]),
    ).toEqual([
      [`user:${writer.id}`, `application:${app.id}`, 'write'],
      [`user:${reader.id}`, `application:${app.id}`, 'read'],
      [`team:${team}`, `application:${app.id}`, 'read'],
    ]);
  });
});

describe('POST /api/applications/{id}/permissions', () => {
  const add = (appId: number | string, headers: Record<string, string>, payload: object) =>
    t.app.inject({ method: 'POST', url: `/api/applications/${appId}/permissions`, headers, payload });

  it('401 without credentials, 403 for a reader; nothing is granted', async () => {
    const app = await setup();
    const payload = { subject: `user:${outsider.id}`, action: 'read' };
    expect((await add(app.id, {}, payload)).statusCode).toBe(401);
    const response = await add(app.id, reader.headers, payload);
    expect(response.statusCode).toBe(403);
    expect(response.json().code).toBe('forbidden');
    expect(await grantsOn(app.id)).toHaveLength(2);
  });

  it('400 per bad field', async () => {
    const app = await setup();
    const cases: [object, string][] = [
      [{ action: 'read' }, 'body.subject'],
      [{ subject: 'alice', action: 'read' }, 'body.subject'],
      [{ subject: 'user:0', action: 'read' }, 'body.subject'],
      [{ subject: 'group:1', action: 'read' }, 'body.subject'],
      [{ subject: `user:${outsider.id}` }, 'body.action'],
      [{ subject: `user:${outsider.id}`, action: 'admin' }, 'body.action'],
    ];
    for (const [payload, path] of cases) {
      const response = await add(app.id, writer.headers, payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect(response.json().errors.map((error: { path: string }) => error.path)).toContain(path);
    }
    expect(await grantsOn(app.id)).toHaveLength(2);
  });

  it('404 for an unknown user, team or application', async () => {
    const app = await setup();
    for (const [appId, subject, what] of [
      [app.id, 'user:999999', /user/i],
      [app.id, 'team:999999', /team/i],
      [999999, `user:${outsider.id}`, /application/i],
    ] as const) {
      const response = await add(appId, writer.headers, { subject, action: 'read' });
      expect(response.statusCode, subject).toBe(404);
      expect(response.json().detail).toMatch(what);
    }
    expect(
      (await add(app.id, outsider.headers, { subject: `user:${outsider.id}`, action: 'write' })).statusCode,
    ).toBe(404);
    expect(await grantsOn(app.id)).toHaveLength(2);
  });

  it('409 permission_exists for the same grant twice', async () => {
    const app = await setup();
    const response = await add(app.id, writer.headers, { subject: `user:${reader.id}`, action: 'read' });
    expect(response.statusCode).toBe(409);
    expect(response.json().code).toBe('permission_exists');
    expect(await grantsOn(app.id)).toHaveLength(2);
  });

  it('201 grants read to a user, who can then read but not write', async () => {
    const app = await setup();
    expect((await readApp(outsider, app.id)).statusCode).toBe(404);
    const response = await add(app.id, writer.headers, { subject: `user:${outsider.id}`, action: 'read' });
    expect(response.statusCode).toBe(201);
    expect(response.json()).toMatchObject({
      subject: `user:${outsider.id}`,
      resource: `application:${app.id}`,
      action: 'read',
    });
    expect((await grantsOn(app.id)).at(-1)).toEqual({ user_id: outsider.id, team_id: null, action: 'read' });
    expect((await readApp(outsider, app.id)).statusCode).toBe(200);
    expect((await writeApp(outsider, app.id)).statusCode).toBe(403);
    const created = await t.db
      .selectFrom('permission_policies')
      .select('created_by')
      .where('id', '=', response.json().id)
      .executeTakeFirstOrThrow();
    expect(created.created_by).toBe(writer.id);
  });

  it('201 grants write to a team, whose members can then write', async () => {
    const app = await setup();
    const teammate = await makeUser(t);
    const team = await makeTeam([teammate]);
    const response = await add(app.id, admin.headers, { subject: `team:${team}`, action: 'write' });
    expect(response.statusCode).toBe(201);
    expect((await grantsOn(app.id)).at(-1)).toEqual({ user_id: null, team_id: team, action: 'write' });
    expect((await writeApp(teammate, app.id)).statusCode).toBe(200);
  });
});

describe('DELETE /api/applications/{id}/permissions', () => {
  const remove = (appId: number | string, headers: Record<string, string>, payload: object) =>
    t.app.inject({ method: 'DELETE', url: `/api/applications/${appId}/permissions`, headers, payload });

  it('401 without credentials, 403 for a reader', async () => {
    const app = await setup();
    const payload = { subject: `user:${reader.id}`, action: 'read' };
    expect((await remove(app.id, {}, payload)).statusCode).toBe(401);
    expect((await remove(app.id, reader.headers, payload)).statusCode).toBe(403);
    expect(await grantsOn(app.id)).toHaveLength(2);
  });

  it('400 for a bad subject or action', async () => {
    const app = await setup();
    for (const payload of [
      { subject: 'reader', action: 'read' },
      { subject: `user:${reader.id}`, action: 'all' },
      {},
    ]) {
      expect((await remove(app.id, writer.headers, payload)).statusCode, JSON.stringify(payload)).toBe(400);
    }
    expect(await grantsOn(app.id)).toHaveLength(2);
  });

  it('404 for a grant that does not exist and for an unknown application', async () => {
    const app = await setup();
    const absent = await remove(app.id, writer.headers, { subject: `user:${reader.id}`, action: 'write' });
    expect(absent.statusCode).toBe(404);
    expect(absent.json().code).toBe('not_found');
    const unknown = await remove(999999, admin.headers, { subject: `user:${reader.id}`, action: 'read' });
    expect(unknown.statusCode).toBe(404);
    expect(await grantsOn(app.id)).toHaveLength(2);
  });

  it('200 removes the grant, and the access with it', async () => {
    const app = await setup();
    expect((await readApp(reader, app.id)).statusCode).toBe(200);
    const response = await remove(app.id, writer.headers, { subject: `user:${reader.id}`, action: 'read' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ subject: `user:${reader.id}`, action: 'read', deleted: true });
    expect(await grantsOn(app.id)).toEqual([{ user_id: writer.id, team_id: null, action: 'write' }]);
    expect((await readApp(reader, app.id)).statusCode).toBe(404);
  });
});

describe('POST /api/permissions/applications', () => {
  const add = (headers: Record<string, string>, payload: object) =>
    t.app.inject({ method: 'POST', url: '/api/permissions/applications', headers, payload });

  it('401 without credentials, 403 for a reader', async () => {
    const app = await setup();
    const payload = { application_id: app.id, user_id: outsider.id, permission: 'read' };
    expect((await add({}, payload)).statusCode).toBe(401);
    expect((await add(reader.headers, payload)).statusCode).toBe(403);
    expect(await grantsOn(app.id)).toHaveLength(2);
  });

  it('400 per bad field', async () => {
    const app = await setup();
    const cases: [object, string][] = [
      [{ user_id: outsider.id, permission: 'read' }, 'body.application_id'],
      [{ application_id: 'abc', user_id: outsider.id, permission: 'read' }, 'body.application_id'],
      [{ application_id: app.id, user_id: outsider.id }, 'body.permission'],
      [{ application_id: app.id, user_id: outsider.id, permission: 'owner' }, 'body.permission'],
      [{ application_id: app.id, permission: 'read' }, 'body.user_id'],
    ];
    for (const [payload, path] of cases) {
      const response = await add(writer.headers, payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect(response.json().errors.map((error: { path: string }) => error.path)).toContain(path);
    }
    expect(await grantsOn(app.id)).toHaveLength(2);
  });

  it('404 for an unknown application and an unknown user; 409 for an existing grant', async () => {
    const app = await setup();
    expect(
      (await add(admin.headers, { application_id: 999999, user_id: outsider.id, permission: 'read' }))
        .statusCode,
    ).toBe(404);
    expect(
      (await add(writer.headers, { application_id: app.id, user_id: 999999, permission: 'read' })).statusCode,
    ).toBe(404);
    const again = await add(writer.headers, {
      application_id: app.id,
      user_id: reader.id,
      permission: 'read',
    });
    expect(again.statusCode).toBe(409);
    expect(again.json().code).toBe('permission_exists');
    expect(await grantsOn(app.id)).toHaveLength(2);
  });

  it('201 grants the permission, with ids as numbers or strings', async () => {
    const app = await setup();
    const first = await add(writer.headers, {
      application_id: app.id,
      user_id: outsider.id,
      permission: 'read',
    });
    expect(first.statusCode).toBe(201);
    expect(first.json()).toMatchObject({
      subject: `user:${outsider.id}`,
      resource: `application:${app.id}`,
      action: 'read',
    });
    const other = await makeUser(t);
    const second = await add(writer.headers, {
      application_id: String(app.id),
      user_id: String(other.id),
      permission: 'write',
    });
    expect(second.statusCode).toBe(201);
    expect((await grantsOn(app.id)).slice(2)).toEqual([
      { user_id: outsider.id, team_id: null, action: 'read' },
      { user_id: other.id, team_id: null, action: 'write' },
    ]);
    expect((await readApp(outsider, app.id)).statusCode).toBe(200);
    expect((await writeApp(other, app.id)).statusCode).toBe(200);
  });
});

describe('admin permission policies', () => {
  const adminAdd = (headers: Record<string, string>, payload: object) =>
    t.app.inject({ method: 'POST', url: '/api/admin/permissions', headers, payload });
  const adminRemove = (headers: Record<string, string>, payload: object) =>
    t.app.inject({ method: 'DELETE', url: '/api/admin/permissions', headers, payload });
  const listed = async (user: TestUser) =>
    (await t.app.inject({ url: '/api/applications', headers: user.headers }))
      .json()
      .map((app: { id: number }) => app.id);

  it('401 without credentials and 403 for a member, on all three', async () => {
    const payload = { subject: `user:${outsider.id}`, resource: '*', action: 'read' };
    for (const request of [
      { method: 'GET' as const, url: '/api/admin/permissions' },
      { method: 'POST' as const, url: '/api/admin/permissions', payload },
      { method: 'DELETE' as const, url: '/api/admin/permissions', payload },
    ]) {
      expect((await t.app.inject(request)).statusCode, request.method).toBe(401);
      const response = await t.app.inject({ ...request, headers: writer.headers });
      expect(response.statusCode, request.method).toBe(403);
      expect(response.json().code).toBe('admin_required');
    }
    const global = await t.db
      .selectFrom('permission_policies')
      .select('id')
      .where('application_id', 'is', null)
      .where('group_id', 'is', null)
      .execute();
    expect(global).toEqual([]);
  });

  it('GET lists every policy, filtered by a subject prefix', async () => {
    const app = await setup();
    const team = await makeTeam();
    await t.db
      .insertInto('permission_policies')
      .values({ team_id: team, application_id: app.id, action: 'write' })
      .execute();
    const all = await t.app.inject({ url: '/api/admin/permissions', headers: admin.headers });
    expect(all.statusCode).toBe(200);
    const total = await t.db.selectFrom('permission_policies').select('id').execute();
    expect(all.json()).toHaveLength(total.length);

    const teams = await t.app.inject({ url: '/api/admin/permissions?subject=team:', headers: admin.headers });
    expect(teams.json().length).toBeGreaterThan(0);
    expect(teams.json().every((p: { subject: string }) => p.subject.startsWith('team:'))).toBe(true);

    const one = await t.app.inject({
      url: `/api/admin/permissions?subject=user:${reader.id}`,
      headers: admin.headers,
    });
    const subjects = new Set(one.json().map((p: { subject: string }) => p.subject));
    expect(subjects.has(`user:${reader.id}`)).toBe(true);
    expect([...subjects].every((subject) => String(subject).startsWith(`user:${reader.id}`))).toBe(true);
    expect(one.json().map((p: { resource: string }) => p.resource)).toContain(`application:${app.id}`);
  });

  it('POST 400 per bad field', async () => {
    const nobody = await makeUser(t);
    const cases: [object, string][] = [
      [{ resource: '*', action: 'read' }, 'body.subject'],
      [{ subject: 'everyone', resource: '*', action: 'read' }, 'body.subject'],
      [{ subject: `user:${nobody.id}`, action: 'read' }, 'body.resource'],
      [{ subject: `user:${nobody.id}`, resource: 'applications', action: 'read' }, 'body.resource'],
      [{ subject: `user:${nobody.id}`, resource: 'team:1', action: 'read' }, 'body.resource'],
      [{ subject: `user:${nobody.id}`, resource: '*', action: 'delete' }, 'body.action'],
    ];
    for (const [payload, path] of cases) {
      const response = await adminAdd(admin.headers, payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect(response.json().errors.map((error: { path: string }) => error.path)).toContain(path);
    }
    const rows = await t.db
      .selectFrom('permission_policies')
      .select('id')
      .where('user_id', '=', nobody.id)
      .execute();
    expect(rows).toEqual([]);
  });

  it('POST 404 for an unknown user, team, application or group', async () => {
    const nobody = await makeUser(t);
    for (const payload of [
      { subject: 'user:999999', resource: '*', action: 'read' },
      { subject: 'team:999999', resource: '*', action: 'read' },
      { subject: `user:${nobody.id}`, resource: 'application:999999', action: 'read' },
      { subject: `user:${nobody.id}`, resource: 'group:999999', action: 'read' },
    ]) {
      const response = await adminAdd(admin.headers, payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(404);
    }
    const rows = await t.db
      .selectFrom('permission_policies')
      .select('id')
      .where('user_id', '=', nobody.id)
      .execute();
    expect(rows).toEqual([]);
  });

  it('resource * gives read on every application, including later ones; DELETE takes it away', async () => {
    const user = await makeUser(t);
    const before = await makeApplication(t, admin);
    expect(await listed(user)).toEqual([]);
    const response = await adminAdd(admin.headers, {
      subject: `user:${user.id}`,
      resource: '*',
      action: 'read',
    });
    expect(response.statusCode).toBe(201);
    expect(response.json()).toMatchObject({ subject: `user:${user.id}`, resource: '*', action: 'read' });
    const row = await t.db
      .selectFrom('permission_policies')
      .selectAll()
      .where('id', '=', response.json().id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ user_id: user.id, application_id: null, group_id: null, action: 'read' });

    const after = await makeApplication(t, admin);
    const all = await t.db.selectFrom('applications').select('id').orderBy('id').execute();
    expect(await listed(user)).toEqual(all.map((app) => app.id));
    expect((await readApp(user, before.id)).statusCode).toBe(200);
    expect((await readApp(user, after.id)).statusCode).toBe(200);
    expect((await writeApp(user, after.id)).statusCode).toBe(403);

    const again = await adminAdd(admin.headers, {
      subject: `user:${user.id}`,
      resource: '*',
      action: 'read',
    });
    expect(again.statusCode).toBe(409);
    expect(again.json().code).toBe('permission_exists');

    const removed = await adminRemove(admin.headers, {
      subject: `user:${user.id}`,
      resource: '*',
      action: 'read',
    });
    expect(removed.statusCode).toBe(200);
    expect(removed.json()).toMatchObject({ resource: '*', deleted: true });
    expect(
      await t.db.selectFrom('permission_policies').select('id').where('user_id', '=', user.id).execute(),
    ).toEqual([]);
    expect(await listed(user)).toEqual([]);
  });

  it("group:<id> gives access to that group's applications only", async () => {
    const user = await makeUser(t);
    const group = await makeGroup(t, admin);
    const inside = await makeApplication(t, admin, { groupId: group.id });
    const outside = await makeApplication(t, admin);
    const response = await adminAdd(admin.headers, {
      subject: `user:${user.id}`,
      resource: `group:${group.id}`,
      action: 'write',
    });
    expect(response.statusCode).toBe(201);
    expect(await listed(user)).toEqual([inside.id]);
    expect((await writeApp(user, inside.id)).statusCode).toBe(200);
    expect((await readApp(user, outside.id)).statusCode).toBe(404);
    // Write on the group lets the grantee create applications in it.
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/applications',
      headers: user.headers,
      payload: { name: 'New', slug: 'new-in-group', group_id: group.id },
    });
    expect(created.statusCode).toBe(201);
  });

  it('a team subject reaches the members of the team', async () => {
    const user = await makeUser(t);
    const team = await makeTeam([user]);
    const app = await makeApplication(t, admin);
    const response = await adminAdd(admin.headers, {
      subject: `team:${team}`,
      resource: `application:${app.id}`,
      action: 'read',
    });
    expect(response.statusCode).toBe(201);
    expect((await readApp(user, app.id)).statusCode).toBe(200);
  });

  it('DELETE 400 for a bad field and 404 for an absent policy', async () => {
    const bad = await adminRemove(admin.headers, {
      subject: `user:${outsider.id}`,
      resource: 'nowhere',
      action: 'read',
    });
    expect(bad.statusCode).toBe(400);
    const absent = await adminRemove(admin.headers, {
      subject: `user:${outsider.id}`,
      resource: '*',
      action: 'write',
    });
    expect(absent.statusCode).toBe(404);
    expect(absent.json().code).toBe('not_found');
  });
});
