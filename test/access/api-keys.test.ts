import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SESSION_COOKIE } from '../../src/http/auth.ts';
import { sha256Hex } from '../../src/lib/secrets.ts';
import type { RouteOptions } from 'fastify';
import { makeUser, type TestUser } from '../support/factories.ts';
import { endpointsOf, fillUrl, label, pathParams, ruleOf } from '../support/route-walk.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

let t: TestApp;
let owner: TestUser;
let other: TestUser;

const routes: RouteOptions[] = [];

beforeAll(async () => {
  t = await createTestApp({}, { onRoute: (route) => routes.push(route) });
  owner = await makeUser(t);
  other = await makeUser(t);
});
afterAll(() => t.close());

const keyRow = (id: number) =>
  t.db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

const sessions = new Map<number, Record<string, string>>();

/** Headers of a signed-in session of `user` (with its CSRF token): keys are made by sessions only. */
async function sessionOf(user: TestUser): Promise<Record<string, string>> {
  const known = sessions.get(user.id);
  if (known) return known;
  const login = await t.app.inject({
    method: 'POST',
    url: '/api/auth/login',
    payload: { email: user.email, password: 'correct horse battery staple' },
  });
  expect(login.statusCode).toBe(200);
  const cookie = login.cookies.find((candidate) => candidate.name === SESSION_COOKIE)?.value ?? '';
  const headers = { cookie: `${SESSION_COOKIE}=${cookie}`, 'x-csrf-token': login.json().csrfToken as string };
  sessions.set(user.id, headers);
  return headers;
}

async function createKey(user: TestUser, payload: object = { name: 'ci' }) {
  const response = await t.app.inject({
    method: 'POST',
    url: '/api/api-keys',
    headers: await sessionOf(user),
    payload,
  });
  expect(response.statusCode).toBe(201);
  return response.json() as { id: number; key: string; prefix: string };
}

const me = (headers: Record<string, string>) => t.app.inject({ url: '/api/auth/me', headers });

describe('POST /api/api-keys', () => {
  it('401 without credentials', async () => {
    const response = await t.app.inject({ method: 'POST', url: '/api/api-keys', payload: { name: 'x' } });
    expect(response.statusCode).toBe(401);
    expect(response.headers['content-type']).toContain('application/problem+json');
  });

  it('400 for a missing, empty or overlong name', async () => {
    for (const payload of [{}, { name: '' }, { name: 'n'.repeat(201) }, { name: ['a', 'b'] }]) {
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/api-keys',
        headers: await sessionOf(owner),
        payload,
      });
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect(response.json().errors.map((error: { path: string }) => error.path)).toContain('body.name');
    }
  });

  it('400 for an expires_at that is not a date or is in the past (either spelling)', async () => {
    const past = new Date(Date.now() - 60_000).toISOString();
    for (const payload of [
      { name: 'x', expires_at: 'tomorrow' },
      { name: 'x', expires_at: past },
      { name: 'x', expiresAt: past },
    ]) {
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/api-keys',
        headers: await sessionOf(owner),
        payload,
      });
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect(response.json().code).toBe('validation_failed');
    }
    const keys = await t.db.selectFrom('api_keys').select('id').where('user_id', '=', owner.id).execute();
    expect(keys).toHaveLength(1);
  });

  it('201 returns the raw shk_ key in this body only; the database keeps its sha256', async () => {
    const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/api-keys',
      headers: await sessionOf(owner),
      payload: { name: 'deploy', expires_at: expiresAt },
    });
    expect(response.statusCode).toBe(201);
    const body = response.json();
    expect(body.key).toMatch(/^shk_[A-Za-z0-9_-]{40,}$/);
    expect(body).toMatchObject({ name: 'deploy', prefix: body.key.slice(0, 12), expires_at: expiresAt });
    expect(body.last_used_at).toBeNull();
    expect(body).not.toHaveProperty('key_hash');

    const row = await keyRow(body.id);
    expect(row.user_id).toBe(owner.id);
    expect(row.key_hash).toBe(sha256Hex(body.key));
    expect(row.expires_at?.toISOString()).toBe(expiresAt);
    expect(JSON.stringify(row)).not.toContain(body.key);
    // The new key works.
    expect((await me({ 'x-api-key': body.key })).json().user.id).toBe(owner.id);
  });
});

describe('GET /api/api-keys', () => {
  it('401 without credentials', async () => {
    expect((await t.app.inject({ url: '/api/api-keys' })).statusCode).toBe(401);
  });

  it("lists the caller's active keys without raw value or hash", async () => {
    const user = await makeUser(t);
    const created = await createKey(user, { name: 'listed' });
    const revoked = await createKey(user, { name: 'revoked' });
    await t.app.inject({ method: 'DELETE', url: `/api/api-keys/${revoked.id}`, headers: user.headers });
    await createKey(other, { name: 'not mine' });

    const response = await t.app.inject({ url: '/api/api-keys', headers: user.headers });
    expect(response.statusCode).toBe(200);
    const keys = response.json();
    expect(keys.map((key: { name: string }) => key.name)).toEqual(['test key', 'listed']);
    for (const key of keys) {
      expect(Object.keys(key).sort()).toEqual(
        [
          'created_at',
          'expires_at',
          'id',
          'last_used_at',
          'name',
          'prefix',
          'read_only',
          'updated_at',
        ].sort(),
      );
    }
    expect(response.body).not.toContain(created.key);
    expect(response.body).not.toContain(user.key);
    expect(response.body).not.toContain(sha256Hex(created.key));
  });
});

describe('authenticating with a key', () => {
  it('works by X-Api-Key and by Authorization: Bearer', async () => {
    const key = await createKey(owner);
    expect((await me({ 'x-api-key': key.key })).statusCode).toBe(200);
    const bearer = await me({ authorization: `Bearer ${key.key}` });
    expect(bearer.statusCode).toBe(200);
    expect(bearer.json()).toMatchObject({ user: { id: owner.id }, authenticated_by: 'api_key' });
  });

  it('401 for an unknown key and a malformed Authorization header', async () => {
    const headerSets: Record<string, string>[] = [
      { 'x-api-key': 'shk_unknown' },
      { authorization: 'Bearer shk_unknown' },
      { authorization: `Basic ${owner.key}` },
    ];
    for (const headers of headerSets) {
      expect((await me(headers)).statusCode, JSON.stringify(headers)).toBe(401);
    }
  });

  it('sets last_used_at on use', async () => {
    const key = await createKey(owner);
    expect((await keyRow(key.id)).last_used_at).toBeNull();
    const before = Date.now();
    await me({ 'x-api-key': key.key });
    const used = (await keyRow(key.id)).last_used_at;
    expect(used?.getTime()).toBeGreaterThanOrEqual(before - 1000);
    const listed = await t.app.inject({ url: '/api/api-keys', headers: owner.headers });
    const entry = listed.json().find((candidate: { id: number }) => candidate.id === key.id);
    expect(entry.last_used_at).toBe(used?.toISOString());
  });

  it('401 once the key has expired', async () => {
    const key = await createKey(owner, {
      name: 'short-lived',
      expiresAt: new Date(Date.now() + 60_000).toISOString(),
    });
    expect((await me({ 'x-api-key': key.key })).statusCode).toBe(200);
    await t.db
      .updateTable('api_keys')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('id', '=', key.id)
      .execute();
    const response = await me({ 'x-api-key': key.key });
    expect(response.statusCode).toBe(401);
    expect(response.json().code).toBe('unauthorized');
  });
});

describe('DELETE /api/api-keys/{id}', () => {
  it('401 without credentials', async () => {
    const key = await createKey(owner);
    expect((await t.app.inject({ method: 'DELETE', url: `/api/api-keys/${key.id}` })).statusCode).toBe(401);
    expect((await keyRow(key.id)).revoked_at).toBeNull();
  });

  it("404 for someone else's key, an unknown id and a malformed id; nothing is revoked", async () => {
    const theirs = await createKey(other);
    for (const id of [String(theirs.id), '999999', 'abc', '0']) {
      const response = await t.app.inject({
        method: 'DELETE',
        url: `/api/api-keys/${id}`,
        headers: owner.headers,
      });
      expect(response.statusCode, id).toBe(404);
      expect(response.json().code).toBe('not_found');
    }
    expect((await keyRow(theirs.id)).revoked_at).toBeNull();
    expect((await me({ 'x-api-key': theirs.key })).statusCode).toBe(200);
  });

  it('200 revokes the key: it stops authenticating, leaves the list, and a second revoke is 404', async () => {
    const key = await createKey(owner);
    const response = await t.app.inject({
      method: 'DELETE',
      url: `/api/api-keys/${key.id}`,
      headers: owner.headers,
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ id: key.id, revoked: true });
    const row = await keyRow(key.id);
    expect(row.revoked_at?.toISOString()).toBe(response.json().revoked_at);

    const refused = await me({ 'x-api-key': key.key });
    expect(refused.statusCode).toBe(401);
    expect((await me({ authorization: `Bearer ${key.key}` })).statusCode).toBe(401);
    const listed = await t.app.inject({ url: '/api/api-keys', headers: owner.headers });
    expect(listed.json().map((candidate: { id: number }) => candidate.id)).not.toContain(key.id);
    const again = await t.app.inject({
      method: 'DELETE',
      url: `/api/api-keys/${key.id}`,
      headers: owner.headers,
    });
    expect(again.statusCode).toBe(404);
    // The owner's other keys still work.
    expect((await me(owner.headers)).statusCode).toBe(200);
  });
});

describe('credentials that outlive their owner’s intent', () => {
  it('an API key cannot create another key (403 session_required); a session can', async () => {
    const user = await makeUser(t);
    for (const headers of [user.headers, { authorization: `Bearer ${user.key}` }]) {
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/api-keys',
        headers,
        payload: { name: 'x' },
      });
      expect(response.statusCode).toBe(403);
      expect(response.headers['content-type']).toContain('application/problem+json');
      expect(response.json().code).toBe('session_required');
    }
    const keys = await t.db.selectFrom('api_keys').select('id').where('user_id', '=', user.id).execute();
    expect(keys).toHaveLength(1);
    expect((await createKey(user)).key).toMatch(/^shk_/);
  });

  it('a read-only key reads, and every state-changing request made with it is a 403 that changes nothing', async () => {
    const user = await makeUser(t, { role: 'admin' });
    const created = await createKey(user, { name: 'dashboard', readOnly: true });
    expect(created).toMatchObject({ read_only: true });
    expect((await keyRow(created.id)).read_only).toBe(true);
    const headers = { 'x-api-key': created.key };
    expect((await me(headers)).statusCode).toBe(200);
    expect((await t.app.inject({ url: '/api/groups', headers })).statusCode).toBe(200);
    const writes = [
      { method: 'POST' as const, url: '/api/groups', payload: { name: 'ro', path: `ro-${user.id}` } },
      {
        method: 'PATCH' as const,
        url: `/api/users/${user.id}`,
        payload: { name: 'Renamed by a read-only key' },
      },
      { method: 'DELETE' as const, url: `/api/api-keys/${created.id}` },
      {
        method: 'POST' as const,
        url: '/api/users',
        payload: { email: 'ro@example.test', password: 'long enough pw' },
      },
      { method: 'PUT' as const, url: '/api/applications/999999', payload: { name: 'x' } },
    ];
    for (const write of writes) {
      const response = await t.app.inject({ ...write, headers });
      expect(response.statusCode, `${write.method} ${write.url}`).toBe(403);
      expect(response.json().code).toBe('read_only_key');
    }
    expect(
      await t.db.selectFrom('groups').select('id').where('path', '=', `ro-${user.id}`).execute(),
    ).toEqual([]);
    expect((await keyRow(created.id)).revoked_at).toBeNull();
    // The README promises every state-changing route: walk them all, not a sample.
    const stateChanging = endpointsOf(routes).filter(
      (endpoint) =>
        !['GET', 'HEAD', 'OPTIONS'].includes(endpoint.method) &&
        ruleOf(endpoint.route).authentication === 'user',
    );
    expect(stateChanging.length).toBeGreaterThan(40);
    for (const endpoint of stateChanging) {
      const url = fillUrl(
        endpoint.url,
        Object.fromEntries(pathParams(endpoint.url).map((name) => [name, '1'])),
      );
      const response = await t.app.inject({ method: endpoint.method as 'POST', url, headers, payload: {} });
      expect(response.statusCode, label(endpoint)).toBe(403);
      expect(response.json().code, label(endpoint)).toBe('read_only_key');
    }
    // A key made without the flag writes as before, and says so.
    const full = await createKey(user, { name: 'ci' });
    expect(full).toMatchObject({ read_only: false });
  });

  it('a password change revokes the user’s API keys when asked, and keeps them by default', async () => {
    const user = await makeUser(t);
    const session = await sessionOf(user);
    const change = (payload: object) =>
      t.app.inject({ method: 'POST', url: '/api/auth/password', headers: session, payload });
    const kept = await change({
      current_password: 'correct horse battery staple',
      new_password: 'another correct horse battery',
    });
    expect(kept.statusCode).toBe(200);
    expect(kept.json()).toMatchObject({ api_keys_revoked: 0 });
    expect((await me(user.headers)).statusCode).toBe(200);
    const second = await createKey(user);
    const revoked = await change({
      current_password: 'another correct horse battery',
      new_password: 'a third correct horse battery',
      revokeApiKeys: true,
    });
    expect(revoked.statusCode).toBe(200);
    expect(revoked.json()).toMatchObject({ api_keys_revoked: 2, sessions_revoked: 0 });
    for (const key of [user.key, second.key]) expect((await me({ 'x-api-key': key })).statusCode).toBe(401);
    // The session that made the change goes on, and can make a new key.
    expect((await me(session)).statusCode).toBe(200);
    expect((await createKey(user)).key).toMatch(/^shk_/);
  });

  it('an admin resetting a password may revoke that user’s keys too', async () => {
    const admin = await makeUser(t, { role: 'admin' });
    const user = await makeUser(t);
    const response = await t.app.inject({
      method: 'POST',
      url: `/api/users/${user.id}/password`,
      headers: admin.headers,
      payload: { new_password: 'reset by the admin at once', revoke_api_keys: true },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ api_keys_revoked: 1 });
    expect((await me(user.headers)).statusCode).toBe(401);
  });
});
