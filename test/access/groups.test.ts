import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grant, makeApplication, makeGroup, makeUser, type TestUser } from '../support/factories.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

let t: TestApp;
let admin: TestUser;
let member: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  admin = await makeUser(t, { role: 'admin' });
  member = await makeUser(t);
});
afterAll(() => t.close());

const createGroup = (headers: Record<string, string>, payload: object) =>
  t.app.inject({ method: 'POST', url: '/api/groups', headers, payload });

const groupByPath = (path: string) =>
  t.db.selectFrom('groups').selectAll().where('path', '=', path).executeTakeFirst();

describe('POST /api/groups', () => {
  it('401 without credentials', async () => {
    expect((await createGroup({}, { name: 'x', path: 'anon' })).statusCode).toBe(401);
    expect(await groupByPath('anon')).toBeUndefined();
  });

  it('400 for a missing name and for each malformed path', async () => {
    const missingName = await createGroup(admin.headers, { path: 'no-name' });
    expect(missingName.statusCode).toBe(400);
    expect(missingName.json().errors.map((error: { path: string }) => error.path)).toContain('body.name');
    for (const path of [
      '',
      'Upper',
      '/leading',
      'trailing/',
      'with space',
      'a//b',
      '-dash',
      'x'.repeat(201),
    ]) {
      const response = await createGroup(admin.headers, { name: 'bad', path });
      expect(response.statusCode, path).toBe(400);
      expect(response.json().code).toBe('validation_failed');
      expect(response.json().errors.map((error: { path: string }) => error.path)).toContain('body.path');
    }
    expect(
      await t.db.selectFrom('groups').select('id').where('name', 'in', ['bad', 'no-name']).execute(),
    ).toEqual([]);
  });

  it('409 group_path_taken for a path in use', async () => {
    await makeGroup(t, admin, { path: 'taken' });
    const response = await createGroup(member.headers, { name: 'Again', path: 'taken' });
    expect(response.statusCode).toBe(409);
    expect(response.json().code).toBe('group_path_taken');
    expect((await groupByPath('taken'))?.name).toBe('taken');
  });

  it('201 for a member, who may then create applications in it (and others may not)', async () => {
    const response = await createGroup(member.headers, { name: 'Payments', path: 'org/payments' });
    expect(response.statusCode).toBe(201);
    const body = response.json();
    expect(body).toMatchObject({ name: 'Payments', path: 'org/payments' });
    const row = await groupByPath('org/payments');
    expect(row).toMatchObject({ id: body.id, created_by: member.id });
    const grants = await t.db
      .selectFrom('permission_policies')
      .select(['user_id', 'action', 'application_id'])
      .where('group_id', '=', body.id)
      .execute();
    expect(grants).toEqual([{ user_id: member.id, action: 'write', application_id: null }]);

    const app = await t.app.inject({
      method: 'POST',
      url: '/api/applications',
      headers: member.headers,
      payload: { name: 'Checkout', slug: 'checkout', group_id: body.id },
    });
    expect(app.statusCode).toBe(201);
    const stranger = await makeUser(t);
    const refused = await t.app.inject({
      method: 'POST',
      url: '/api/applications',
      headers: stranger.headers,
      payload: { name: 'Intruder', slug: 'intruder', group_id: body.id },
    });
    expect(refused.statusCode).toBe(404);
    const apps = await t.db
      .selectFrom('applications')
      .select('slug')
      .where('group_id', '=', body.id)
      .execute();
    expect(apps).toEqual([{ slug: 'checkout' }]);
  });

  it('201 for an admin without a grant row (admins reach everything anyway)', async () => {
    const response = await createGroup(admin.headers, { name: 'Platform', path: 'platform' });
    expect(response.statusCode).toBe(201);
    const grants = await t.db
      .selectFrom('permission_policies')
      .select('id')
      .where('group_id', '=', response.json().id)
      .execute();
    expect(grants).toEqual([]);
  });
});

describe('GET /api/groups', () => {
  it('401 without credentials', async () => {
    expect((await t.app.inject({ url: '/api/groups' })).statusCode).toBe(401);
  });

  it('a member sees only groups they hold a grant in; an admin sees all', async () => {
    const viewer = await makeUser(t);
    const own = await makeGroup(t, viewer);
    const viaApplication = await makeGroup(t, admin);
    const app = await makeApplication(t, admin, { groupId: viaApplication.id });
    await grant(t, viewer, app.id, 'read');
    const viaGroupGrant = await makeGroup(t, admin);
    await t.db
      .insertInto('permission_policies')
      .values({ user_id: viewer.id, group_id: viaGroupGrant.id, action: 'read' })
      .execute();
    const hidden = await makeGroup(t, admin);
    await makeApplication(t, admin, { groupId: hidden.id });

    const response = await t.app.inject({ url: '/api/groups', headers: viewer.headers });
    expect(response.statusCode).toBe(200);
    const ids = response.json().map((group: { id: number }) => group.id);
    expect(ids.sort()).toEqual([own.id, viaApplication.id, viaGroupGrant.id].sort());

    const all = await t.app.inject({ url: '/api/groups', headers: admin.headers });
    expect(all.json().map((group: { id: number }) => group.id)).toEqual(
      expect.arrayContaining([own.id, viaApplication.id, viaGroupGrant.id, hidden.id]),
    );
    expect(all.json()).toHaveLength((await t.db.selectFrom('groups').select('id').execute()).length);
  });
});

describe('GET /api/groups/{id}', () => {
  it('401 without credentials', async () => {
    const group = await makeGroup(t, admin);
    expect((await t.app.inject({ url: `/api/groups/${group.id}` })).statusCode).toBe(401);
  });

  it('finds a visible group by id and by (URL-encoded) path', async () => {
    const group = await makeGroup(t, member, { path: 'team/web', name: 'Web' });
    const byId = await t.app.inject({ url: `/api/groups/${group.id}`, headers: member.headers });
    expect(byId.statusCode).toBe(200);
    expect(byId.json()).toMatchObject({ id: group.id, name: 'Web', path: 'team/web' });
    const byPath = await t.app.inject({
      url: `/api/groups/${encodeURIComponent('team/web')}`,
      headers: member.headers,
    });
    expect(byPath.statusCode).toBe(200);
    expect(byPath.json().id).toBe(group.id);
  });

  it('prefers the id when a numeric path names another group', async () => {
    const first = await makeGroup(t, admin);
    const numeric = await makeGroup(t, admin, { path: String(first.id) });
    const byId = await t.app.inject({ url: `/api/groups/${first.id}`, headers: admin.headers });
    expect(byId.json().id).toBe(first.id);
    expect(numeric.id).not.toBe(first.id);
  });

  it('404 for an invisible group, an unknown id and an unknown path', async () => {
    const hidden = await makeGroup(t, admin, { path: 'hidden' });
    for (const ref of [String(hidden.id), 'hidden', '999999', 'no-such-path']) {
      const response = await t.app.inject({ url: `/api/groups/${ref}`, headers: member.headers });
      expect(response.statusCode, ref).toBe(404);
      expect(response.headers['content-type']).toContain('application/problem+json');
      expect(response.json().code).toBe('not_found');
    }
    expect((await t.app.inject({ url: '/api/groups/hidden', headers: admin.headers })).statusCode).toBe(200);
  });
});
