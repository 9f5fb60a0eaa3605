import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csrfTokenFor, SESSION_COOKIE } from '../../src/http/auth.ts';
import { sha256Hex } from '../../src/lib/secrets.ts';
import { grant, makeApplication, makeUser, type TestUser } from '../support/factories.ts';
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

function login(app: TestApp, email: string, password = PASSWORD) {
  return app.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email, password } });
}

interface Session {
  cookie: string;
  csrf: string;
  /** Headers that authenticate by this session cookie only. */
  headers: { cookie: string };
}

async function signIn(user: { email: string }, password = PASSWORD): Promise<Session> {
  const response = await login(t, user.email, password);
  expect(response.statusCode).toBe(200);
  const cookie = response.cookies.find((candidate) => candidate.name === SESSION_COOKIE)?.value;
  if (!cookie) throw new Error('login set no session cookie');
  return { cookie, csrf: response.json().csrfToken, headers: { cookie: `${SESSION_COOKIE}=${cookie}` } };
}

const sessionRows = (userId: number) =>
  t.db.selectFrom('sessions').selectAll().where('user_id', '=', userId).execute();

function expectProblem(response: LightMyRequestResponse, status: number, code: string): void {
  expect(response.statusCode).toBe(status);
  expect(response.headers['content-type']).toContain('application/problem+json');
  expect(response.json().code).toBe(code);
}

describe('POST /api/auth/login', () => {
  it('400 names each missing field', async () => {
    const response = await t.app.inject({ method: 'POST', url: '/api/auth/login', payload: {} });
    expectProblem(response, 400, 'validation_failed');
    const paths = response.json().errors.map((error: { path: string }) => error.path);
    expect(paths).toEqual(expect.arrayContaining(['body.email', 'body.password']));
  });

  it('401 for a wrong password, an unknown email and a disabled user; no session is opened', async () => {
    const disabled = await makeUser(t);
    await t.db.updateTable('users').set({ disabled: true }).where('id', '=', disabled.id).execute();
    const attempts = [
      await login(t, member.email, 'wrong password entirely'),
      await login(t, 'nobody@example.test'),
      await login(t, disabled.email),
    ];
    for (const response of attempts) {
      expectProblem(response, 401, 'unauthorized');
      expect(response.cookies.find((cookie) => cookie.name === SESSION_COOKIE)).toBeUndefined();
    }
    // The same message whichever part was wrong: it tells nobody which emails exist.
    expect(new Set(attempts.map((response) => response.json().detail)).size).toBe(1);
    expect(await sessionRows(member.id)).toEqual([]);
    expect(await sessionRows(disabled.id)).toEqual([]);
  });

  it('200 sets an httpOnly SameSite=Lax cookie whose hash alone is stored', async () => {
    const user = await makeUser(t);
    const before = Date.now();
    const response = await login(t, user.email.toUpperCase());
    expect(response.statusCode).toBe(200);
    const cookie = response.cookies.find((candidate) => candidate.name === SESSION_COOKIE);
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
    const body = response.json();
    expect(body.user).toMatchObject({ id: user.id, email: user.email, role: 'member' });
    expect(body.user).not.toHaveProperty('password_hash');
    expect(typeof body.csrfToken).toBe('string');

    const rows = await sessionRows(user.id);
    expect(rows).toHaveLength(1);
    const [row] = rows;
    expect(row?.id).toBe(sha256Hex(cookie?.value ?? ''));
    expect(JSON.stringify(rows)).not.toContain(cookie?.value);
    // Expiry follows SESSION_TTL_HOURS (a week by default), and the cookie expires with it.
    const ttl = t.config.sessionTtlHours * 3_600_000;
    expect(row?.expires_at.getTime()).toBeGreaterThanOrEqual(before + ttl - 1000);
    expect(row?.expires_at.getTime()).toBeLessThanOrEqual(Date.now() + ttl + 1000);
    expect(cookie?.expires?.getTime()).toBe(Math.floor((row?.expires_at.getTime() ?? 0) / 1000) * 1000);
    const stored = await t.db
      .selectFrom('users')
      .select('last_login_at')
      .where('id', '=', user.id)
      .executeTakeFirstOrThrow();
    expect(stored.last_login_at?.getTime()).toBeGreaterThanOrEqual(before - 1000);
  });
});

describe('POST /api/auth/logout', () => {
  it('401 without credentials', async () => {
    const response = await t.app.inject({ method: 'POST', url: '/api/auth/logout' });
    expectProblem(response, 401, 'unauthorized');
  });

  it('403 csrf_failed by cookie without the CSRF token; the session survives', async () => {
    const session = await signIn(member);
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/auth/logout',
      headers: session.headers,
    });
    expectProblem(response, 403, 'csrf_failed');
    const row = await t.db
      .selectFrom('sessions')
      .select('id')
      .where('id', '=', sha256Hex(session.cookie))
      .executeTakeFirst();
    expect(row).toBeDefined();
  });

  it('204 deletes the session row, clears the cookie, and the cookie no longer works', async () => {
    const user = await makeUser(t);
    const session = await signIn(user);
    const other = await signIn(user);
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/auth/logout',
      headers: { ...session.headers, 'x-csrf-token': session.csrf },
    });
    expect(response.statusCode).toBe(204);
    const cleared = response.cookies.find((cookie) => cookie.name === SESSION_COOKIE);
    expect(cleared?.value).toBe('');
    const remaining = await sessionRows(user.id);
    expect(remaining.map((row) => row.id)).toEqual([sha256Hex(other.cookie)]);
    const me = await t.app.inject({ url: '/api/auth/me', headers: session.headers });
    expectProblem(me, 401, 'unauthorized');
    // The user's other session is untouched.
    const stillIn = await t.app.inject({ url: '/api/auth/me', headers: other.headers });
    expect(stillIn.statusCode).toBe(200);
  });

  it('204 by API key leaves the sessions alone', async () => {
    const user = await makeUser(t);
    await signIn(user);
    const response = await t.app.inject({ method: 'POST', url: '/api/auth/logout', headers: user.headers });
    expect(response.statusCode).toBe(204);
    expect(await sessionRows(user.id)).toHaveLength(1);
  });
});

describe('GET /api/auth/me', () => {
  it('401 without credentials, with an unknown cookie, and with an unknown key', async () => {
    for (const headers of [{}, { cookie: `${SESSION_COOKIE}=not-a-session` }, { 'x-api-key': 'shk_nope' }]) {
      expectProblem(await t.app.inject({ url: '/api/auth/me', headers }), 401, 'unauthorized');
    }
  });

  it('401 once the session has expired', async () => {
    const session = await signIn(member);
    await t.db
      .updateTable('sessions')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('id', '=', sha256Hex(session.cookie))
      .execute();
    expectProblem(await t.app.inject({ url: '/api/auth/me', headers: session.headers }), 401, 'unauthorized');
  });

  it('200 by session and by API key, saying which', async () => {
    const session = await signIn(member);
    const bySession = await t.app.inject({ url: '/api/auth/me', headers: session.headers });
    expect(bySession.statusCode).toBe(200);
    expect(bySession.json()).toMatchObject({
      user: { id: member.id, email: member.email },
      authenticated_by: 'session',
      identity_provider: null, // a password account: scanhub manages its password
    });
    const byKey = await t.app.inject({ url: '/api/auth/me', headers: admin.headers });
    expect(byKey.json()).toMatchObject({
      user: { id: admin.id, role: 'admin' },
      authenticated_by: 'api_key',
    });
  });
});

describe('GET /api/csrf-token', () => {
  it('is public: anonymous callers get a token bound to a throwaway httpOnly cookie', async () => {
    const first = await t.app.inject({ url: '/api/csrf-token' });
    expect(first.statusCode).toBe(200);
    const token = first.json().csrfToken;
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    const anonymous = first.cookies.find((cookie) => cookie.name === 'scanhub_csrf');
    expect(anonymous).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
    // Same throwaway cookie, same token.
    const again = await t.app.inject({
      url: '/api/csrf-token',
      headers: { cookie: `scanhub_csrf=${anonymous?.value}` },
    });
    expect(again.json().csrfToken).toBe(token);
  });

  it("with a session returns that session's token, and it works", async () => {
    const user = await makeUser(t);
    const session = await signIn(user);
    const response = await t.app.inject({ url: '/api/csrf-token', headers: session.headers });
    expect(response.statusCode).toBe(200);
    const { csrfToken } = response.json();
    expect(csrfToken).toBe(session.csrf);
    expect(csrfToken).toBe(csrfTokenFor(t.secretKey, sha256Hex(session.cookie)));
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/api-keys',
      headers: { ...session.headers, 'x-csrf-token': csrfToken },
      payload: { name: 'from the browser' },
    });
    expect(created.statusCode).toBe(201);
  });

  it('401 with an unknown API key, though the route is public', async () => {
    const response = await t.app.inject({ url: '/api/csrf-token', headers: { 'x-api-key': 'shk_nope' } });
    expectProblem(response, 401, 'unauthorized');
  });
});

describe('CSRF protection of cookie sessions', () => {
  /** One state-changing request per method, each with a database check of its effect. */
  async function writes(user: TestUser) {
    const app = await makeApplication(t, admin);
    await grant(t, user, app.id, 'write');
    const extra = await t.db
      .insertInto('application_versions')
      .values({ application_id: app.id, name: 'csrf' })
      .returning('id')
      .executeTakeFirstOrThrow();
    const key = await t.db
      .selectFrom('api_keys')
      .select('id')
      .where('user_id', '=', user.id)
      .executeTakeFirstOrThrow();
    const countKeys = async () =>
      (await t.db.selectFrom('api_keys').select('id').where('user_id', '=', user.id).execute()).length;
    const appName = async () =>
      (
        await t.db
          .selectFrom('applications')
          .select('name')
          .where('id', '=', app.id)
          .executeTakeFirstOrThrow()
      ).name;
    const versionBranch = async () =>
      (
        await t.db
          .selectFrom('application_versions')
          .select('branch')
          .where('id', '=', extra.id)
          .executeTakeFirstOrThrow()
      ).branch;
    const keyRevoked = async () =>
      (
        await t.db
          .selectFrom('api_keys')
          .select('revoked_at')
          .where('id', '=', key.id)
          .executeTakeFirstOrThrow()
      ).revoked_at !== null;
    return [
      {
        request: { method: 'POST' as const, url: '/api/api-keys', payload: { name: 'csrf probe' } },
        status: 201,
        changed: async () => (await countKeys()) === 2,
      },
      {
        request: {
          method: 'PUT' as const,
          url: `/api/applications/${app.id}`,
          payload: { name: 'csrf-renamed' },
        },
        status: 200,
        changed: async () => (await appName()) === 'csrf-renamed',
      },
      {
        request: {
          method: 'PATCH' as const,
          url: `/api/applications/${app.id}/versions/${extra.id}`,
          payload: { branch: 'main' },
        },
        status: 200,
        changed: async () => (await versionBranch()) === 'main',
      },
      {
        request: { method: 'DELETE' as const, url: `/api/api-keys/${key.id}` },
        status: 200,
        changed: keyRevoked,
      },
    ];
  }

  it('403 csrf_failed without or with a wrong X-CSRF-Token on POST, PUT, PATCH and DELETE; nothing changes', async () => {
    const user = await makeUser(t);
    const session = await signIn(user);
    const elsewhere = await signIn(user);
    const wrongTokens = [undefined, '', 'x'.repeat(64), elsewhere.csrf];
    for (const write of await writes(user)) {
      for (const token of wrongTokens) {
        const response = await t.app.inject({
          ...write.request,
          headers: { ...session.headers, ...(token === undefined ? {} : { 'x-csrf-token': token }) },
        });
        expectProblem(response, 403, 'csrf_failed');
      }
      expect(await write.changed(), `${write.request.method} ${write.request.url}`).toBe(false);
    }
  });

  it('succeeds with the right token', async () => {
    const user = await makeUser(t);
    const session = await signIn(user);
    for (const write of await writes(user)) {
      const response = await t.app.inject({
        ...write.request,
        headers: { ...session.headers, 'x-csrf-token': session.csrf },
      });
      expect(response.statusCode, `${write.request.method} ${write.request.url}`).toBe(write.status);
      expect(await write.changed(), `${write.request.method} ${write.request.url}`).toBe(true);
    }
  });

  it('exempts API-key requests, by X-Api-Key and by Authorization: Bearer, even beside a cookie', async () => {
    const user = await makeUser(t);
    const session = await signIn(user);
    const headerSets = [
      user.headers,
      { authorization: `Bearer ${user.key}` },
      { ...user.headers, ...session.headers },
    ];
    const path = `csrf-exempt-${user.id}`;
    for (const [index, headers] of headerSets.entries()) {
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/groups',
        headers,
        payload: { name: 'CSRF exempt', path: `${path}-${index}` },
      });
      expect(response.statusCode).toBe(201);
    }
    const groups = await t.db.selectFrom('groups').select('id').where('path', 'like', `${path}-%`).execute();
    expect(groups).toHaveLength(headerSets.length);
  });

  it('does not apply to reads', async () => {
    const session = await signIn(member);
    const response = await t.app.inject({ url: '/api/api-keys', headers: session.headers });
    expect(response.statusCode).toBe(200);
  });
});

describe('login rate limit', () => {
  let limited: TestApp;
  beforeAll(async () => {
    limited = await createTestApp({
      rateLimit: {
        perMinute: 100000,
        loginPerMinute: 3,
        loginPerAddressPerMinute: 100_000,
        loginPerAccountPerHour: 100_000,
      },
    });
  });
  afterAll(() => limited.close());

  it('429 with Retry-After once the budget is spent, even for the right password', async () => {
    const user = await makeUser(limited);
    for (let attempt = 0; attempt < 3; attempt += 1) {
      expect((await login(limited, user.email, 'wrong password entirely')).statusCode).toBe(401);
    }
    for (const password of ['wrong password entirely', PASSWORD]) {
      const response = await login(limited, user.email, password);
      expectProblem(response, 429, 'rate_limited');
      expect(Number(response.headers['retry-after'])).toBeGreaterThan(0);
      expect(Number(response.headers['retry-after'])).toBeLessThanOrEqual(60);
    }
    expect(await limited.db.selectFrom('sessions').select('id').execute()).toEqual([]);
  });

  it('counts per address and email: guessing at one account does not lock out another', async () => {
    const target = await makeUser(limited);
    const bystander = await makeUser(limited);
    for (let attempt = 0; attempt < 4; attempt += 1)
      await login(limited, target.email, 'wrong password entirely');
    expect((await login(limited, target.email, PASSWORD)).statusCode).toBe(429);
    expect((await login(limited, bystander.email, PASSWORD)).statusCode).toBe(200);
  });
});

describe('secrets', () => {
  it('a password, raw API key, application token or session cookie never appears in a later response', async () => {
    const password = `pw-${sha256Hex(String(Math.random())).slice(0, 24)}`;
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/users',
      headers: admin.headers,
      payload: { email: 'secret-keeper@example.test', password },
    });
    expect(created.statusCode).toBe(201);
    expect(created.body).not.toContain(password);
    const user = { id: created.json().id as number, email: 'secret-keeper@example.test' };
    const session = await signIn(user, password);
    const keyResponse = await t.app.inject({
      method: 'POST',
      url: '/api/api-keys',
      headers: { ...session.headers, 'x-csrf-token': session.csrf },
      payload: { name: 'mine' },
    });
    const rawKey: string = keyResponse.json().key;
    expect(rawKey).toMatch(/^shk_/);
    const keyHeaders = { 'x-api-key': rawKey };
    const group = await t.app.inject({
      method: 'POST',
      url: '/api/groups',
      headers: keyHeaders,
      payload: { name: 'Secrets', path: 'secrets' },
    });
    const application = await t.app.inject({
      method: 'POST',
      url: '/api/applications',
      headers: keyHeaders,
      payload: { name: 'Vault', slug: 'vault', group_id: group.json().id },
    });
    const appToken: string = application.json().api_token;
    const appId: number = application.json().id;
    const regenerated = await t.app.inject({
      method: 'POST',
      url: `/api/applications/${appId}/regenerate-token`,
      headers: keyHeaders,
    });
    const newToken: string = regenerated.json().api_token;
    expect(newToken).toMatch(/^sht_/);
    const passwordHash = (
      await t.db
        .selectFrom('users')
        .select('password_hash')
        .where('id', '=', user.id)
        .executeTakeFirstOrThrow()
    ).password_hash;

    const later = [
      await t.app.inject({ url: '/api/auth/me', headers: session.headers }),
      await t.app.inject({ url: '/api/auth/me', headers: keyHeaders }),
      await t.app.inject({ url: '/api/csrf-token', headers: session.headers }),
      await t.app.inject({ url: '/api/api-keys', headers: keyHeaders }),
      await t.app.inject({ url: `/api/users/${user.id}`, headers: keyHeaders }),
      await t.app.inject({ url: '/api/users', headers: admin.headers }),
      await t.app.inject({ url: '/api/applications', headers: keyHeaders }),
      await t.app.inject({ url: `/api/applications/${appId}`, headers: keyHeaders }),
      await t.app.inject({ url: `/api/applications/${appId}/versions`, headers: keyHeaders }),
      await t.app.inject({ url: `/api/applications/${appId}/permissions`, headers: keyHeaders }),
      await t.app.inject({ url: '/api/openapi.json' }),
      await login(t, user.email, 'not the password at all'),
      await t.app.inject({ url: '/api/auth/me', headers: { 'x-api-key': `${rawKey}x` } }),
      await t.app.inject({ method: 'POST', url: '/api/ingest', headers: { 'x-api-token': newToken } }),
      await t.app.inject({
        method: 'PUT',
        url: `/api/applications/${appId}`,
        headers: keyHeaders,
        payload: { asset_criticality: password },
      }),
    ];
    const secrets = [password, passwordHash, rawKey, appToken, newToken, session.cookie];
    for (const response of later) {
      const seen = JSON.stringify(response.headers) + response.body;
      for (const secret of secrets) expect(seen).not.toContain(secret);
    }
  });
});
