import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csrfTokenFor, SESSION_COOKIE } from '../../src/http/auth.ts';
import { sha256Hex } from '../../src/lib/secrets.ts';
import { makeUser, type TestUser } from '../support/factories.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

const PASSWORD = 'correct horse battery staple';

let t: TestApp;
let admin: TestUser;
let member: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  admin = await makeUser(t, { role: 'admin' });
  member = await makeUser(t);
});
afterAll(() => t.close());

const userRow = (id: number) => t.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();

function createUser(headers: Record<string, string>, payload: object) {
  return t.app.inject({ method: 'POST', url: '/api/users', headers, payload });
}

async function sessionOf(email: string, password = PASSWORD) {
  const response = await t.app.inject({
    method: 'POST',
    url: '/api/auth/login',
    payload: { email, password },
  });
  const cookie = response.cookies.find((candidate) => candidate.name === SESSION_COOKIE)?.value;
  return { status: response.statusCode, cookie, headers: { cookie: `${SESSION_COOKIE}=${cookie}` } };
}

describe('POST /api/users', () => {
  it('401 without credentials', async () => {
    const response = await createUser({}, { email: 'a@example.test', password: PASSWORD });
    expect(response.statusCode).toBe(401);
  });

  it('403 admin_required for a member; no user is created', async () => {
    const response = await createUser(member.headers, {
      email: 'by-member@example.test',
      password: PASSWORD,
    });
    expect(response.statusCode).toBe(403);
    expect(response.json().code).toBe('admin_required');
    const row = await t.db
      .selectFrom('users')
      .select('id')
      .where('email', '=', 'by-member@example.test')
      .executeTakeFirst();
    expect(row).toBeUndefined();
  });

  it('400 per bad field: email, password, role', async () => {
    const cases: [object, string][] = [
      [{ email: 'not-an-email', password: PASSWORD }, 'body.email'],
      [{ password: PASSWORD }, 'body.email'],
      [{ email: 'short@example.test', password: 'elevenchars' }, 'body.password'],
      [{ email: 'nopw@example.test' }, 'body.password'],
      [{ email: 'role@example.test', password: PASSWORD, role: 'root' }, 'body.role'],
    ];
    for (const [payload, path] of cases) {
      const response = await createUser(admin.headers, payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect(response.json().code).toBe('validation_failed');
      expect(response.json().errors.map((error: { path: string }) => error.path)).toContain(path);
    }
    const rows = await t.db
      .selectFrom('users')
      .select('id')
      .where('email', 'in', ['short@example.test', 'nopw@example.test', 'role@example.test'])
      .execute();
    expect(rows).toEqual([]);
  });

  it('409 email_taken, whatever the case', async () => {
    const response = await createUser(admin.headers, {
      email: member.email.toUpperCase(),
      password: PASSWORD,
    });
    expect(response.statusCode).toBe(409);
    expect(response.json().code).toBe('email_taken');
    const rows = await t.db
      .selectFrom('users')
      .select('id')
      .where((eb) => eb(eb.fn('lower', ['email']), '=', member.email.toLowerCase()))
      .execute();
    expect(rows).toHaveLength(1);
  });

  it('201 creates a member with an argon2id hash who can sign in', async () => {
    const response = await createUser(admin.headers, { email: 'new@example.test', password: PASSWORD });
    expect(response.statusCode).toBe(201);
    const body = response.json();
    expect(body).toMatchObject({ email: 'new@example.test', name: 'new', role: 'member', disabled: false });
    expect(body).not.toHaveProperty('password_hash');
    expect(body).not.toHaveProperty('password');
    const row = await userRow(body.id);
    expect(row?.password_hash).toMatch(/^\$argon2id\$/);
    expect(row?.password_hash).not.toContain(PASSWORD);
    expect((await sessionOf('new@example.test')).status).toBe(200);
  });

  it('201 with a role and name', async () => {
    const response = await createUser(admin.headers, {
      email: 'boss@example.test',
      password: PASSWORD,
      role: 'admin',
      name: 'The Boss',
    });
    expect(response.statusCode).toBe(201);
    expect(await userRow(response.json().id)).toMatchObject({ role: 'admin', name: 'The Boss' });
  });
});

describe('GET /api/users', () => {
  it('401 without credentials, 403 for a member', async () => {
    expect((await t.app.inject({ url: '/api/users' })).statusCode).toBe(401);
    const response = await t.app.inject({ url: '/api/users', headers: member.headers });
    expect(response.statusCode).toBe(403);
    expect(response.json().code).toBe('admin_required');
  });

  it('200 lists every user to an admin, without password hashes', async () => {
    const response = await t.app.inject({ url: '/api/users', headers: admin.headers });
    expect(response.statusCode).toBe(200);
    const users = response.json();
    const count = await t.db.selectFrom('users').select('id').execute();
    expect(users).toHaveLength(count.length);
    expect(users.map((user: { id: number }) => user.id)).toEqual(
      expect.arrayContaining([admin.id, member.id]),
    );
    expect(response.body).not.toContain('argon2');
  });
});

describe('GET /api/users/{id}', () => {
  it('401 without credentials', async () => {
    expect((await t.app.inject({ url: `/api/users/${member.id}` })).statusCode).toBe(401);
  });

  it('a member reads themselves; anyone else is 404', async () => {
    const self = await t.app.inject({ url: `/api/users/${member.id}`, headers: member.headers });
    expect(self.statusCode).toBe(200);
    expect(self.json()).toMatchObject({ id: member.id, email: member.email });
    for (const id of [admin.id, 999999]) {
      const response = await t.app.inject({ url: `/api/users/${id}`, headers: member.headers });
      expect(response.statusCode).toBe(404);
      expect(response.json().code).toBe('not_found');
    }
  });

  it('an admin reads anyone; unknown and malformed ids are 404', async () => {
    const response = await t.app.inject({ url: `/api/users/${member.id}`, headers: admin.headers });
    expect(response.json()).toMatchObject({ id: member.id, role: 'member' });
    for (const id of ['999999', 'abc', '0', '1e3']) {
      expect((await t.app.inject({ url: `/api/users/${id}`, headers: admin.headers })).statusCode, id).toBe(
        404,
      );
    }
  });
});

describe('PATCH /api/users/{id}', () => {
  const patch = (id: number | string, headers: Record<string, string>, payload: object) =>
    t.app.inject({ method: 'PATCH', url: `/api/users/${id}`, headers, payload });

  it('401 without credentials, 403 for a member (even on themselves)', async () => {
    expect((await patch(member.id, {}, { role: 'admin' })).statusCode).toBe(401);
    const response = await patch(member.id, member.headers, { role: 'admin' });
    expect(response.statusCode).toBe(403);
    expect((await userRow(member.id))?.role).toBe('member');
  });

  it('400 per bad field and for an empty body', async () => {
    const cases: [object, string | null][] = [
      [{ role: 'root' }, 'body.role'],
      [{ disabled: 'maybe' }, 'body.disabled'],
      [{ name: '' }, 'body.name'],
      [{}, null],
    ];
    for (const [payload, path] of cases) {
      const response = await patch(member.id, admin.headers, payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      if (path) {
        expect(response.json().errors.map((error: { path: string }) => error.path)).toContain(path);
      }
    }
    expect(await userRow(member.id)).toMatchObject({ role: 'member', disabled: false });
  });

  it('404 for an unknown or malformed id', async () => {
    for (const id of ['999999', 'abc']) {
      expect((await patch(id, admin.headers, { name: 'x' })).statusCode, id).toBe(404);
    }
  });

  it('200 changes the role, and the new role applies at once', async () => {
    const user = await makeUser(t);
    expect((await t.app.inject({ url: '/api/users', headers: user.headers })).statusCode).toBe(403);
    const response = await patch(user.id, admin.headers, { role: 'admin', name: 'Promoted' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ id: user.id, role: 'admin', name: 'Promoted' });
    expect(await userRow(user.id)).toMatchObject({ role: 'admin', name: 'Promoted' });
    expect((await t.app.inject({ url: '/api/users', headers: user.headers })).statusCode).toBe(200);
  });

  it('disabling ends sessions and API-key access; enabling restores the key but not the sessions', async () => {
    const user = await makeUser(t);
    const session = await sessionOf(user.email);
    expect(session.status).toBe(200);
    const csrf = csrfTokenFor(t.secretKey, sha256Hex(session.cookie ?? ''));
    expect((await t.app.inject({ url: '/api/auth/me', headers: session.headers })).statusCode).toBe(200);

    const response = await patch(user.id, admin.headers, { disabled: true });
    expect(response.statusCode).toBe(200);
    expect(response.json().disabled).toBe(true);
    expect((await userRow(user.id))?.disabled).toBe(true);
    expect(await t.db.selectFrom('sessions').select('id').where('user_id', '=', user.id).execute()).toEqual(
      [],
    );

    expect((await t.app.inject({ url: '/api/auth/me', headers: session.headers })).statusCode).toBe(401);
    const write = await t.app.inject({
      method: 'POST',
      url: '/api/api-keys',
      headers: { ...session.headers, 'x-csrf-token': csrf },
      payload: { name: 'after disable' },
    });
    expect(write.statusCode).toBe(401);
    const byKey = await t.app.inject({ url: '/api/auth/me', headers: user.headers });
    expect(byKey.statusCode).toBe(401);
    expect(
      (await t.app.inject({ url: '/api/auth/me', headers: { authorization: `Bearer ${user.key}` } }))
        .statusCode,
    ).toBe(401);
    expect((await sessionOf(user.email)).status).toBe(401);

    expect((await patch(user.id, admin.headers, { disabled: false })).statusCode).toBe(200);
    expect((await t.app.inject({ url: '/api/auth/me', headers: user.headers })).statusCode).toBe(200);
    expect((await t.app.inject({ url: '/api/auth/me', headers: session.headers })).statusCode).toBe(401);
  });
});
