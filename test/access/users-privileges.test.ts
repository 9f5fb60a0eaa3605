import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { up as normalizeStoredEmails } from '../../src/db/migrations/2026-11-23T1020-normalized-emails.ts';
import { csrfTokenFor, SESSION_COOKIE } from '../../src/http/auth.ts';
import { sha256Hex } from '../../src/lib/secrets.ts';
import { hashPassword } from '../../src/modules/users/users.service.ts';
import { makeUser, type TestUser } from '../support/factories.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

/** Issue 10 items 8 and 10: normalized emails, per-role whitelist on PATCH, password changes. */

const PASSWORD = 'correct horse battery staple';
const NEW_PASSWORD = 'a different long passphrase';

let t: TestApp;
let admin: TestUser;
let member: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  admin = await makeUser(t, { role: 'admin' });
  member = await makeUser(t);
});
afterAll(() => t.close());

const userRow = (id: number) =>
  t.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const sessionsOf = (id: number) =>
  t.db.selectFrom('sessions').select('id').where('user_id', '=', id).execute();

function login(app: TestApp, email: string, password: string) {
  return app.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email, password } });
}

/** A signed-in browser: cookie and CSRF headers for state-changing requests. */
async function sessionOf(email: string, password = PASSWORD) {
  const response = await login(t, email, password);
  expect(response.statusCode, `login ${email}`).toBe(200);
  const cookie = response.cookies.find((candidate) => candidate.name === SESSION_COOKIE)?.value ?? '';
  return {
    id: sha256Hex(cookie),
    headers: {
      cookie: `${SESSION_COOKIE}=${cookie}`,
      'x-csrf-token': csrfTokenFor(t.secretKey, sha256Hex(cookie)),
    },
  };
}

const patch = (id: number | string, headers: Record<string, string>, payload: object) =>
  t.app.inject({ method: 'PATCH', url: `/api/users/${id}`, headers, payload });

describe('PATCH /api/users/{id}: no mass assignment', () => {
  it('400 for every column that is not on the whitelist, and nothing is written', async () => {
    const target = await makeUser(t);
    const before = await userRow(target.id);
    const forbidden: Record<string, unknown> = {
      password_hash: await hashPassword('attacker chosen password'),
      password: 'attacker chosen password',
      id: 1,
      created_at: '2000-01-01T00:00:00Z',
      updated_at: '2000-01-01T00:00:00Z',
      last_login_at: '2000-01-01T00:00:00Z',
      is_admin: true,
      isAdmin: true,
      unknown_field: 'x',
    };
    for (const [field, value] of Object.entries(forbidden)) {
      const response = await patch(target.id, admin.headers, { name: 'renamed', [field]: value });
      expect(response.statusCode, field).toBe(400);
      expect(response.headers['content-type']).toContain('application/problem+json');
      expect(response.json().code, field).toBe('validation_failed');
      expect(
        response.json().errors.map((error: { path: string }) => error.path),
        field,
      ).toContain(`body.${field}`);
    }
    expect(await userRow(target.id)).toEqual(before);
  });

  it('a member changes their own name, and nothing else', async () => {
    const self = await makeUser(t);
    const before = await userRow(self.id);
    for (const payload of [{ role: 'admin' }, { disabled: false }, { email: 'taken-over@example.test' }]) {
      const response = await patch(self.id, self.headers, { name: 'Me', ...payload });
      expect(response.statusCode, JSON.stringify(payload)).toBe(403);
      expect(response.json().code).toBe('forbidden');
    }
    expect(await userRow(self.id)).toEqual(before);
    const renamed = await patch(self.id, self.headers, { name: 'Myself' });
    expect(renamed.statusCode).toBe(200);
    expect(await userRow(self.id)).toMatchObject({ name: 'Myself', role: 'member', email: self.email });
  });

  it('a member cannot change anyone else, not even a name (404, as for reads)', async () => {
    const other = await makeUser(t);
    const before = await userRow(other.id);
    const response = await patch(other.id, member.headers, { name: 'Hijacked' });
    expect(response.statusCode).toBe(404);
    expect(await userRow(other.id)).toEqual(before);
  });

  it('an admin changes an email, stored normalized; another user’s email is 409 email_taken', async () => {
    const target = await makeUser(t);
    const response = await patch(target.id, admin.headers, { email: 'New.Address@Example.TEST' });
    expect(response.statusCode).toBe(200);
    expect((await userRow(target.id)).email).toBe('new.address@example.test');
    const clash = await patch(target.id, admin.headers, { email: member.email.toUpperCase() });
    expect(clash.statusCode).toBe(409);
    expect(clash.json().code).toBe('email_taken');
    expect((await userRow(target.id)).email).toBe('new.address@example.test');
  });
});

describe('POST /api/auth/password', () => {
  const change = (headers: Record<string, string>, payload: object) =>
    t.app.inject({ method: 'POST', url: '/api/auth/password', headers, payload });

  it('401 anonymous; 400 for a wrong current password, a short or missing new one; nothing changes', async () => {
    const user = await makeUser(t);
    const before = await userRow(user.id);
    expect((await change({}, { current_password: PASSWORD, new_password: NEW_PASSWORD })).statusCode).toBe(
      401,
    );
    const cases: [object, string, string][] = [
      [
        { current_password: 'not the password', new_password: NEW_PASSWORD },
        'wrong_password',
        'body.current_password',
      ],
      [{ current_password: PASSWORD, new_password: 'short' }, 'validation_failed', 'body.new_password'],
      [{ current_password: PASSWORD }, 'validation_failed', 'body.new_password'],
      [{ new_password: NEW_PASSWORD }, 'validation_failed', 'body.current_password'],
    ];
    for (const [payload, code, path] of cases) {
      const response = await change(user.headers, payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect(response.json().code).toBe(code);
      expect(response.json().errors.map((error: { path: string }) => error.path)).toContain(path);
    }
    expect(await userRow(user.id)).toEqual(before);
  });

  it('changes the password by session: other sessions end, this one and the API key stay', async () => {
    const user = await makeUser(t);
    const current = await sessionOf(user.email);
    const other = await sessionOf(user.email);
    const response = await change(current.headers, {
      currentPassword: PASSWORD,
      newPassword: NEW_PASSWORD,
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ id: user.id, sessions_revoked: 1, api_keys_revoked: 0 });
    expect((await sessionsOf(user.id)).map((row) => row.id)).toEqual([current.id]);
    expect((await t.app.inject({ url: '/api/auth/me', headers: other.headers })).statusCode).toBe(401);
    expect((await t.app.inject({ url: '/api/auth/me', headers: current.headers })).statusCode).toBe(200);
    expect((await t.app.inject({ url: '/api/auth/me', headers: user.headers })).statusCode).toBe(200);
    expect((await login(t, user.email, PASSWORD)).statusCode).toBe(401);
    expect((await login(t, user.email, NEW_PASSWORD)).statusCode).toBe(200);
  });
});

describe('POST /api/users/{id}/password (admin reset)', () => {
  const reset = (id: number | string, headers: Record<string, string>, payload: object) =>
    t.app.inject({ method: 'POST', url: `/api/users/${id}/password`, headers, payload });

  it('403 for a member, 404 for an unknown user; nothing changes', async () => {
    const target = await makeUser(t);
    const before = await userRow(target.id);
    const byMember = await reset(target.id, member.headers, { new_password: NEW_PASSWORD });
    expect(byMember.statusCode).toBe(403);
    expect(byMember.json().code).toBe('admin_required');
    expect((await reset(999_999, admin.headers, { new_password: NEW_PASSWORD })).statusCode).toBe(404);
    expect(await userRow(target.id)).toEqual(before);
  });

  it("sets the password and ends all of that user's sessions", async () => {
    const target = await makeUser(t);
    await sessionOf(target.email);
    await sessionOf(target.email);
    const response = await reset(target.id, admin.headers, { new_password: NEW_PASSWORD });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ id: target.id, sessions_revoked: 2, api_keys_revoked: 0 });
    expect(await sessionsOf(target.id)).toEqual([]);
    expect((await login(t, target.email, PASSWORD)).statusCode).toBe(401);
    expect((await login(t, target.email, NEW_PASSWORD)).statusCode).toBe(200);
  });
});

describe('emails are normalized once (trim, NFKC, lowercase)', () => {
  it('are stored normalized at creation and found by any spelling at login', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/users',
      headers: admin.headers,
      payload: { email: 'Mixed.Case@Example.TEST', password: PASSWORD },
    });
    expect(response.statusCode).toBe(201);
    expect(response.json().email).toBe('mixed.case@example.test');
    // Full-width letters (NFKC), surrounding spaces, other case: the same account.
    for (const spelling of ['  MIXED.case@example.test ', 'ｍｉｘｅｄ.case@example.test']) {
      expect((await login(t, spelling, PASSWORD)).statusCode, spelling).toBe(200);
    }
    const twin = await t.app.inject({
      method: 'POST',
      url: '/api/users',
      headers: admin.headers,
      payload: { email: 'MIXED.CASE@example.test', password: PASSWORD },
    });
    expect(twin.statusCode).toBe(409);
  });

  it('share one login budget: a spaced, upper-case or full-width spelling gets no fresh attempts', async () => {
    const limited = await createTestApp({
      rateLimit: {
        perMinute: 100_000,
        loginPerMinute: 3,
        loginPerAddressPerMinute: 100_000,
        loginPerAccountPerHour: 100_000,
      },
    });
    try {
      const user = await makeUser(limited, { email: 'budget@example.test' });
      for (const spelling of ['budget@example.test', ' budget@example.test', 'BUDGET@example.test']) {
        expect((await login(limited, spelling, 'wrong password entirely')).statusCode).toBe(401);
      }
      for (const spelling of ['  budget@example.test', 'ｂudget@example.test', user.email]) {
        expect((await login(limited, spelling, PASSWORD)).statusCode, spelling).toBe(429);
      }
    } finally {
      await limited.close();
    }
  });

  it('the migration normalizes stored rows, leaving a row whose normal form is taken', async () => {
    const rows = await t.db
      .insertInto('users')
      .values([
        { email: '  Legacy.User@Example.TEST', name: 'legacy', password_hash: 'x', role: 'member' },
        { email: 'ｓｈａｒｅｄ@example.test', name: 'shared', password_hash: 'x', role: 'member' },
        { email: 'shared@example.test ', name: 'shared twin', password_hash: 'x', role: 'member' },
      ])
      .returning(['id', 'email'])
      .execute();
    await normalizeStoredEmails(t.db as unknown as Parameters<typeof normalizeStoredEmails>[0]);
    const after = await t.db
      .selectFrom('users')
      .select(['id', 'email'])
      .where(
        'id',
        'in',
        rows.map((row) => row.id),
      )
      .orderBy('id')
      .execute();
    expect(after.map((row) => row.email)).toEqual([
      'legacy.user@example.test',
      'shared@example.test',
      'shared@example.test ',
    ]);
  });
});

describe('the last active admin', () => {
  it('cannot be demoted or disabled (409 last_admin); with another admin it can', async () => {
    const isolated = await createTestApp();
    try {
      const only = await makeUser(isolated, { role: 'admin' });
      for (const payload of [{ role: 'member' }, { disabled: true }]) {
        const response = await isolated.app.inject({
          method: 'PATCH',
          url: `/api/users/${only.id}`,
          headers: only.headers,
          payload,
        });
        expect(response.statusCode, JSON.stringify(payload)).toBe(409);
        expect(response.json().code).toBe('last_admin');
      }
      await makeUser(isolated, { role: 'admin' });
      const demoted = await isolated.app.inject({
        method: 'PATCH',
        url: `/api/users/${only.id}`,
        headers: only.headers,
        payload: { role: 'member' },
      });
      expect(demoted.statusCode).toBe(200);
      expect(demoted.json().role).toBe('member');
    } finally {
      await isolated.close();
    }
  });
});
