import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/modules/api-keys/api-keys.service.ts';
import { sha256Hex } from '../../src/lib/secrets.ts';
import { makeUser, TEST_AUDIT, type TestUser } from '../support/factories.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

/**
 * SCIM 2.0 provisioning (RFC 7643/7644) as Okta and Entra ID drive it: look a user up by filter,
 * create, replace, deactivate with PATCH, push groups and change their members, delete.
 */

let t: TestApp;
let admin: TestUser;
let member: TestUser;
let token: string;

const SCIM_JSON = 'application/scim+json';
const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';

beforeAll(async () => {
  t = await createTestApp();
  admin = await makeUser(t, { role: 'admin' });
  member = await makeUser(t);
  const made = await t.app.inject({
    method: 'POST',
    url: '/api/admin/scim-tokens',
    headers: admin.headers,
    payload: { name: 'okta' },
  });
  expect(made.statusCode).toBe(201);
  token = made.json().token as string;
});
afterAll(() => t.close());

function scim(method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, payload?: object) {
  return t.app.inject({
    method,
    url: `/scim/v2${url}`,
    headers: { authorization: `Bearer ${token}`, ...(payload ? { 'content-type': SCIM_JSON } : {}) },
    ...(payload ? { payload: JSON.stringify(payload) } : {}),
  });
}

function expectScimError(
  response: { statusCode: number; headers: Record<string, unknown>; json(): unknown },
  status: number,
  scimType?: string,
) {
  expect(response.statusCode).toBe(status);
  expect(String(response.headers['content-type'])).toContain(SCIM_JSON);
  const body = response.json() as Record<string, unknown>;
  expect(body.schemas).toEqual([ERROR]);
  expect(body.status).toBe(String(status));
  if (scimType) expect(body.scimType).toBe(scimType);
}

const userRow = (id: string | number) =>
  t.db.selectFrom('users').selectAll().where('id', '=', Number(id)).executeTakeFirstOrThrow();

/** A session row and an API key for a provisioned user, as if they had signed in through the IdP. */
async function signedIn(userId: number, email: string) {
  await t.db
    .insertInto('sessions')
    .values({
      id: sha256Hex(`session-${userId}`),
      user_id: userId,
      expires_at: new Date(Date.now() + 3_600_000),
    })
    .execute();
  const principal = {
    kind: 'user' as const,
    id: userId,
    email,
    name: email,
    role: 'member' as const,
    via: 'session' as const,
  };
  return (await createApiKey(t.db, principal, { name: 'laptop' }, TEST_AUDIT)).key;
}

describe('SCIM tokens', () => {
  it('are made by admins, shown once, and listed without their value', async () => {
    const list = await t.app.inject({ url: '/api/admin/scim-tokens', headers: admin.headers });
    expect(list.statusCode).toBe(200);
    expect(list.body).not.toContain(token);
    expect(list.json()[0]).toMatchObject({ name: 'okta', prefix: token.slice(0, 13) });
    const stored = await t.db.selectFrom('scim_tokens').select('token_hash').execute();
    expect(stored.map((row) => row.token_hash)).toContain(sha256Hex(token));
    expect(JSON.stringify(stored)).not.toContain(token);
  });

  it('are refused to members', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/admin/scim-tokens',
      headers: member.headers,
      payload: { name: 'mine' },
    });
    expect(response.statusCode).toBe(403);
  });

  it('guard every SCIM route: none, an API key, or a revoked token is a 401 in SCIM’s shape', async () => {
    expectScimError(await t.app.inject({ url: '/scim/v2/Users' }), 401);
    expectScimError(
      await t.app.inject({ url: '/scim/v2/Users', headers: { authorization: `Bearer ${admin.key}` } }),
      401,
    );
    const spare = await t.app.inject({
      method: 'POST',
      url: '/api/admin/scim-tokens',
      headers: admin.headers,
      payload: { name: 'spare' },
    });
    const spareToken = spare.json().token as string;
    const before = await t.app.inject({
      url: '/scim/v2/Users',
      headers: { authorization: `Bearer ${spareToken}` },
    });
    expect(before.statusCode).toBe(200);
    const revoked = await t.app.inject({
      method: 'DELETE',
      url: `/api/admin/scim-tokens/${spare.json().id}`,
      headers: admin.headers,
    });
    expect(revoked.statusCode).toBe(200);
    expectScimError(
      await t.app.inject({ url: '/scim/v2/Users', headers: { authorization: `Bearer ${spareToken}` } }),
      401,
    );
  });
});

describe('discovery', () => {
  it('says what the server supports', async () => {
    const config = await scim('GET', '/ServiceProviderConfig');
    expect(config.statusCode).toBe(200);
    expect(String(config.headers['content-type'])).toContain(SCIM_JSON);
    expect(config.json()).toMatchObject({
      patch: { supported: true },
      filter: { supported: true },
      bulk: { supported: false },
    });
    const types = await scim('GET', '/ResourceTypes');
    expect(types.json().Resources.map((type: { id: string }) => type.id)).toEqual(['User', 'Group']);
    const schemas = await scim('GET', '/Schemas');
    expect(schemas.json().Resources.map((schema: { id: string }) => schema.id)).toEqual([USER, GROUP]);
    expect((await scim('GET', `/Schemas/${USER}`)).json().name).toBe('User');
    expectScimError(await scim('GET', '/ResourceTypes/Printer'), 404);
  });
});

describe('an Okta provisioning run', () => {
  let aliceId: string;

  it('looks the user up, finds nobody, and creates them', async () => {
    const lookup = await scim(
      'GET',
      '/Users?filter=userName%20eq%20%22alice%40corp.test%22&startIndex=1&count=100',
    );
    expect(lookup.statusCode).toBe(200);
    expect(lookup.json()).toMatchObject({ totalResults: 0, Resources: [] });
    const created = await scim('POST', '/Users', {
      schemas: [USER],
      userName: 'alice@corp.test',
      name: { givenName: 'Alice', familyName: 'Anders' },
      emails: [{ primary: true, value: 'alice@corp.test', type: 'work' }],
      displayName: 'Alice Anders',
      locale: 'en-US',
      externalId: '00u1okta',
      groups: [],
      active: true,
    });
    expect(created.statusCode, created.body).toBe(201);
    const body = created.json();
    expect(body).toMatchObject({
      schemas: [USER],
      userName: 'alice@corp.test',
      externalId: '00u1okta',
      displayName: 'Alice Anders',
      active: true,
      meta: { resourceType: 'User' },
    });
    aliceId = body.id as string;
    expect(body.meta.location).toMatch(new RegExp(`/scim/v2/Users/${aliceId}$`));
    const found = await scim('GET', '/Users?filter=userName%20eq%20%22ALICE%40corp.test%22');
    expect(found.json().totalResults).toBe(1);
    expect((await scim('GET', '/Users?filter=externalId%20eq%20%2200u1okta%22')).json().Resources[0].id).toBe(
      aliceId,
    );
  });

  it('refuses a second user with the same userName', async () => {
    const again = await scim('POST', '/Users', {
      schemas: [USER],
      userName: 'alice@corp.test',
      active: true,
    });
    expectScimError(again, 409, 'uniqueness');
  });

  it('replaces the profile with PUT', async () => {
    const replaced = await scim('PUT', `/Users/${aliceId}`, {
      schemas: [USER],
      userName: 'alice@corp.test',
      name: { givenName: 'Alice', familyName: 'Berg' },
      emails: [{ primary: true, value: 'alice@corp.test', type: 'work' }],
      active: true,
    });
    expect(replaced.statusCode, replaced.body).toBe(200);
    expect(replaced.json().displayName).toBe('Alice Berg');
    expect((await userRow(aliceId)).name).toBe('Alice Berg');
  });

  it('deactivates with PATCH: sessions end and API keys are revoked at once', async () => {
    const key = await signedIn(Number(aliceId), 'alice@corp.test');
    expect((await t.app.inject({ url: '/api/auth/me', headers: { 'x-api-key': key } })).statusCode).toBe(200);
    const patched = await scim('PATCH', `/Users/${aliceId}`, {
      schemas: [PATCH],
      Operations: [{ op: 'replace', value: { active: false } }],
    });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json().active).toBe(false);
    expect((await userRow(aliceId)).disabled).toBe(true);
    const sessions = await t.db
      .selectFrom('sessions')
      .select('id')
      .where('user_id', '=', Number(aliceId))
      .execute();
    expect(sessions).toEqual([]);
    const keys = await t.db
      .selectFrom('api_keys')
      .select('revoked_at')
      .where('user_id', '=', Number(aliceId))
      .execute();
    expect(keys.every((row) => row.revoked_at !== null)).toBe(true);
    expect((await t.app.inject({ url: '/api/auth/me', headers: { 'x-api-key': key } })).statusCode).toBe(401);
    const active = await scim('GET', '/Users?filter=active%20eq%20false');
    expect(active.json().Resources.map((user: { id: string }) => user.id)).toContain(aliceId);
  });

  it('reactivates with PATCH', async () => {
    const patched = await scim('PATCH', `/Users/${aliceId}`, {
      schemas: [PATCH],
      Operations: [{ op: 'replace', value: { active: true } }],
    });
    expect(patched.json().active).toBe(true);
    expect((await userRow(aliceId)).disabled).toBe(false);
  });

  it('deletes: the account is disabled and SCIM no longer finds it, its history stays', async () => {
    const deleted = await scim('DELETE', `/Users/${aliceId}`);
    expect(deleted.statusCode).toBe(204);
    expectScimError(await scim('GET', `/Users/${aliceId}`), 404);
    expect(
      (await scim('GET', '/Users?filter=userName%20eq%20%22alice%40corp.test%22')).json().totalResults,
    ).toBe(0);
    expect((await userRow(aliceId)).disabled).toBe(true);
    // Provisioned again later: the same account comes back.
    const back = await scim('POST', '/Users', { schemas: [USER], userName: 'alice@corp.test', active: true });
    expect(back.statusCode, back.body).toBe(201);
    expect(back.json().id).toBe(aliceId);
    expect((await userRow(aliceId)).disabled).toBe(false);
  });
});

describe('an Entra ID provisioning run', () => {
  let bobId: string;

  it('creates a user whose userName is not the email, with Entra’s string booleans', async () => {
    const created = await scim('POST', '/Users', {
      schemas: [USER, 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User'],
      externalId: 'bob',
      userName: 'bob@corp.onmicrosoft.test',
      active: 'True',
      displayName: 'Bob Baker',
      emails: [{ primary: true, type: 'work', value: 'bob.baker@corp.test' }],
      name: { formatted: 'Bob Baker', familyName: 'Baker', givenName: 'Bob' },
      title: 'Engineer',
      'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User': { department: 'Platform' },
    });
    expect(created.statusCode, created.body).toBe(201);
    bobId = created.json().id as string;
    expect(created.json()).toMatchObject({ userName: 'bob@corp.onmicrosoft.test', active: true });
    expect((await userRow(bobId)).email).toBe('bob.baker@corp.test');
    const byName = await scim('GET', '/Users?filter=userName%20eq%20%22bob%40corp.onmicrosoft.test%22');
    expect(byName.json().totalResults).toBe(1);
  });

  it('patches attributes by path and deactivates with "False"', async () => {
    const renamed = await scim('PATCH', `/Users/${bobId}`, {
      schemas: [PATCH],
      Operations: [
        { op: 'Replace', path: 'displayName', value: 'Robert Baker' },
        { op: 'Add', path: 'emails[type eq "work"].value', value: 'robert.baker@corp.test' },
      ],
    });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect((await userRow(bobId)).email).toBe('robert.baker@corp.test');
    expect((await userRow(bobId)).name).toBe('Robert Baker');
    const off = await scim('PATCH', `/Users/${bobId}`, {
      schemas: [PATCH],
      Operations: [{ op: 'Replace', path: 'active', value: 'False' }],
    });
    expect(off.statusCode, off.body).toBe(200);
    expect((await userRow(bobId)).disabled).toBe(true);
  });
});

describe('groups', () => {
  let carolId: string;
  let daveId: string;
  let groupId: string;

  beforeAll(async () => {
    const carol = await scim('POST', '/Users', {
      schemas: [USER],
      userName: 'carol@corp.test',
      active: true,
    });
    const dave = await scim('POST', '/Users', { schemas: [USER], userName: 'dave@corp.test', active: true });
    carolId = carol.json().id as string;
    daveId = dave.json().id as string;
  });

  const membersOf = async (id: string) =>
    (
      await t.db
        .selectFrom('team_members')
        .select(['user_id', 'source'])
        .where('team_id', '=', Number(id))
        .orderBy('user_id')
        .execute()
    ).map((row) => `${row.user_id}:${row.source}`);

  it('pushes a group with members as a team', async () => {
    const created = await scim('POST', '/Groups', {
      schemas: [GROUP],
      displayName: 'AppSec',
      members: [{ value: carolId, display: 'carol@corp.test' }],
    });
    expect(created.statusCode, created.body).toBe(201);
    groupId = created.json().id as string;
    expect(created.json().members.map((m: { value: string }) => m.value)).toEqual([carolId]);
    expect(await membersOf(groupId)).toEqual([`${carolId}:scim`]);
    const team = await t.app.inject({ url: `/api/teams/${groupId}`, headers: admin.headers });
    expect(team.json().name).toBe('AppSec');
    const user = await scim('GET', `/Users/${carolId}`);
    expect(user.json().groups.map((g: { value: string }) => g.value)).toEqual([groupId]);
  });

  it('adds and removes members the Okta way and the Entra way', async () => {
    const added = await scim('PATCH', `/Groups/${groupId}`, {
      schemas: [PATCH],
      Operations: [{ op: 'add', path: 'members', value: [{ value: daveId, display: 'dave@corp.test' }] }],
    });
    expect(added.statusCode, added.body).toBe(200);
    expect(await membersOf(groupId)).toEqual([`${carolId}:scim`, `${daveId}:scim`].sort());
    const oktaRemove = await scim('PATCH', `/Groups/${groupId}`, {
      schemas: [PATCH],
      Operations: [{ op: 'remove', path: `members[value eq "${carolId}"]` }],
    });
    expect(oktaRemove.statusCode, oktaRemove.body).toBe(200);
    expect(await membersOf(groupId)).toEqual([`${daveId}:scim`]);
    // Entra ID checks a membership with a filter before it changes it.
    const check = await scim(
      'GET',
      `/Groups?filter=${encodeURIComponent(`id eq "${groupId}" and members eq "${daveId}"`)}&excludedAttributes=members`,
    );
    expect(check.json().totalResults).toBe(1);
    expect(check.json().Resources[0].members).toBeUndefined();
    const entraRemove = await scim('PATCH', `/Groups/${groupId}`, {
      schemas: [PATCH],
      Operations: [{ op: 'Remove', path: 'members', value: [{ value: daveId }] }],
    });
    expect(entraRemove.statusCode, entraRemove.body).toBe(200);
    expect(await membersOf(groupId)).toEqual([]);
    const renamed = await scim('PATCH', `/Groups/${groupId}`, {
      schemas: [PATCH],
      Operations: [{ op: 'replace', path: 'displayName', value: 'Application Security' }],
    });
    expect(renamed.json().displayName).toBe('Application Security');
  });

  it('refuses members that are not users', async () => {
    const bad = await scim('PATCH', `/Groups/${groupId}`, {
      schemas: [PATCH],
      Operations: [{ op: 'add', path: 'members', value: [{ value: '999999' }] }],
    });
    expectScimError(bad, 400, 'invalidValue');
  });

  it('changes only the teams it created', async () => {
    const manual = await t.app.inject({
      method: 'POST',
      url: '/api/teams',
      headers: admin.headers,
      payload: { name: 'Platform' },
    });
    const manualId = manual.json().id as number;
    const listed = await scim('GET', '/Groups');
    expect(listed.json().Resources.map((g: { id: string }) => g.id)).not.toContain(String(manualId));
    expectScimError(
      await scim('POST', '/Groups', { schemas: [GROUP], displayName: 'platform' }),
      409,
      'uniqueness',
    );
    expectScimError(await scim('GET', `/Groups/${manualId}`), 404);
    expectScimError(
      await scim('PATCH', `/Groups/${manualId}`, {
        schemas: [PATCH],
        Operations: [{ op: 'replace', path: 'displayName', value: 'x' }],
      }),
      404,
    );
    expectScimError(await scim('DELETE', `/Groups/${manualId}`), 404);
    expect(
      (await t.db.selectFrom('teams').select('name').where('id', '=', manualId).executeTakeFirst())?.name,
    ).toBe('Platform');
  });

  it('deletes a group it created', async () => {
    expect((await scim('DELETE', `/Groups/${groupId}`)).statusCode).toBe(204);
    expect(
      await t.db.selectFrom('teams').select('id').where('id', '=', Number(groupId)).executeTakeFirst(),
    ).toBeUndefined();
  });
});

describe('the last active admin', () => {
  it('cannot be deactivated or deleted through SCIM', async () => {
    await t.db
      .updateTable('users')
      .set({ disabled: true })
      .where('role', '=', 'admin')
      .where('id', '<>', admin.id)
      .execute();
    const off = await scim('PATCH', `/Users/${admin.id}`, {
      schemas: [PATCH],
      Operations: [{ op: 'replace', path: 'active', value: false }],
    });
    expectScimError(off, 409);
    expectScimError(await scim('DELETE', `/Users/${admin.id}`), 409);
    expect((await userRow(admin.id)).disabled).toBe(false);
  });
});

describe('bad input', () => {
  it('is a 400 in SCIM’s shape, and changes nothing', async () => {
    expectScimError(await scim('GET', '/Users?filter=userName%20co%20%22a%22'), 400, 'invalidFilter');
    expectScimError(await scim('GET', '/Users?filter=password%20eq%20%22a%22'), 400, 'invalidFilter');
    expectScimError(await scim('GET', '/Users?filter=userName%20eq'), 400, 'invalidFilter');
    expectScimError(await scim('GET', '/Users?nonsense=1'), 400);
    expectScimError(
      await scim('POST', '/Users', { schemas: [USER], userName: 'eve@corp.test', shoeSize: 44 }),
      400,
    );
    expectScimError(
      await scim('POST', '/Users', { schemas: [USER], userName: 'eve@corp.test', password: 'hunter2' }),
      400,
      'mutability',
    );
    expectScimError(
      await scim('POST', '/Users', { schemas: [USER], userName: 'no-email-here' }),
      400,
      'invalidValue',
    );
    expectScimError(
      await scim('POST', '/Users', { schemas: [GROUP], userName: 'eve@corp.test' }),
      400,
      'invalidSyntax',
    );
    expectScimError(await scim('POST', '/Users', { schemas: [USER], userName: 'e\u0000ve@corp.test' }), 400);
    expectScimError(
      await scim('PATCH', `/Users/${member.id}`, {
        schemas: [PATCH],
        Operations: [{ op: 'frobnicate', path: 'active', value: false }],
      }),
      400,
    );
    expectScimError(
      await scim('PATCH', `/Users/${member.id}`, {
        schemas: [PATCH],
        Operations: [{ op: 'add', path: 'shoeSize', value: 44 }],
      }),
      400,
      'invalidValue',
    );
    const malformed = await t.app.inject({
      method: 'POST',
      url: '/scim/v2/Users',
      headers: { authorization: `Bearer ${token}`, 'content-type': SCIM_JSON },
      payload: '{"schemas": [',
    });
    expectScimError(malformed, 400);
    expectScimError(await scim('GET', '/Users/not-a-number'), 404);
    const eve = await t.db.selectFrom('users').select('id').where('email', 'like', 'eve%').execute();
    expect(eve).toEqual([]);
    expect((await userRow(member.id)).disabled).toBe(false);
  });

  it('pages with startIndex and count', async () => {
    const all = (await scim('GET', '/Users')).json();
    expect(all.totalResults).toBeGreaterThanOrEqual(4);
    const second = (await scim('GET', '/Users?startIndex=2&count=1')).json();
    expect(second).toMatchObject({ startIndex: 2, itemsPerPage: 1, totalResults: all.totalResults });
    expect(second.Resources[0].id).toBe(all.Resources[1].id);
    expect((await scim('GET', '/Users?count=0')).json().Resources).toEqual([]);
    const onlyNames = (await scim('GET', '/Users?attributes=userName&count=1')).json().Resources[0];
    expect(Object.keys(onlyNames).sort()).toEqual(['id', 'meta', 'schemas', 'userName']);
  });
});
