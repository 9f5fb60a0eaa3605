import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeUser, type TestUser } from '../support/factories.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

let t: TestApp;
let admin: TestUser;
let member: TestUser;
let teamId: number;

beforeAll(async () => {
  t = await createTestApp();
  admin = await makeUser(t, { role: 'admin' });
  member = await makeUser(t);
  teamId = (
    await t.db.insertInto('teams').values({ name: 'mapped' }).returning('id').executeTakeFirstOrThrow()
  ).id;
});
afterAll(() => t.close());

const create = (payload: unknown, headers: Record<string, string> = admin.headers) =>
  t.app.inject({ method: 'POST', url: '/api/sso/group-mappings', headers, payload: payload as object });

const mappingCount = async () =>
  Number(
    (
      await t.db
        .selectFrom('idp_group_mappings')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('/api/sso/group-mappings', () => {
  it('401 without credentials, 403 for a member; nothing is written', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/api/sso/group-mappings' })).statusCode).toBe(401);
    expect((await create({ idp_group: 'g', team_id: teamId }, member.headers)).statusCode).toBe(403);
    expect(await mappingCount()).toBe(0);
  });

  it.each([
    [{ team_id: 1 }, 'body.idp_group'],
    [{ idp_group: '', team_id: 1 }, 'body.idp_group'],
    [{ idp_group: 'x'.repeat(501), team_id: 1 }, 'body.idp_group'],
    [{ idp_group: 'g', team_id: 0 }, 'body.team_id'],
    [{ idp_group: 'g', grants_admin: 'yes' }, 'body.grants_admin'],
    [{ idp_group: 'g', team_id: 1, role: 'owner' }, 'body'],
  ])('400 for %o', async (payload, path) => {
    const response = await create(payload);
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toContain('application/problem+json');
    expect(JSON.stringify(response.json().errors)).toContain(path);
  });

  it('400 when it maps to nothing, 404 for an unknown team, 409 for a duplicate', async () => {
    expect((await create({ idp_group: 'g' })).json().code).toBe('mapping_target_missing');
    expect((await create({ idp_group: 'g', team_id: 999_999 })).statusCode).toBe(404);
    const first = await create({ idp_group: 'engineers', team_id: teamId });
    expect(first.statusCode).toBe(201);
    expect(first.json()).toMatchObject({
      idp_group: 'engineers',
      team_id: teamId,
      team_name: 'mapped',
      grants_admin: false,
    });
    const again = await create({ idp_group: 'engineers', team_id: teamId });
    expect(again.statusCode).toBe(409);
    expect(again.json().code).toBe('mapping_exists');
    expect(await mappingCount()).toBe(1);
  });

  it('lists and deletes; an unknown id is 404', async () => {
    const made = (await create({ idp_group: 'admins', grants_admin: true })).json();
    const list = await t.app.inject({
      method: 'GET',
      url: '/api/sso/group-mappings',
      headers: admin.headers,
    });
    expect(list.json().map((row: { idp_group: string }) => row.idp_group)).toContain('admins');
    const removed = await t.app.inject({
      method: 'DELETE',
      url: `/api/sso/group-mappings/${made.id}`,
      headers: admin.headers,
    });
    expect(removed.json()).toEqual({ id: made.id, deleted: true });
    const missing = await t.app.inject({
      method: 'DELETE',
      url: `/api/sso/group-mappings/${made.id}`,
      headers: admin.headers,
    });
    expect(missing.statusCode).toBe(404);
  });

  it('SSO off: the settings say so and the sign-in routes are 404', async () => {
    const settings = await t.app.inject({ method: 'GET', url: '/api/auth/oidc/settings' });
    expect(settings.json()).toMatchObject({ enabled: false, login_url: null });
    expect((await t.app.inject({ method: 'GET', url: '/api/auth/oidc/login' })).statusCode).toBe(404);
  });
});
