import pg from 'pg';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { UserPrincipal } from '../../src/access/principal.ts';
import {
  CREDENTIALS_CHANNEL,
  noticesApplicationName,
  type ChangeNotices,
} from '../../src/db/change-notices.ts';
import { ApiKeyCache, type CachedApiKey } from '../../src/http/api-key-cache.ts';
import { sha256Hex } from '../../src/lib/secrets.ts';
import { createApiKey } from '../../src/modules/api-keys/api-keys.service.ts';
import { makeUser, type TestUser, TEST_AUDIT } from '../support/factories.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

/**
 * The API key cache (src/http/api-key-cache.ts): a key that authenticated once is not looked up
 * again, yet every change that could make the cached answer wrong is honoured by the very next
 * request. Each test first uses the key, so that it is cached when the change comes.
 */

let t: TestApp;
let admin: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  admin = await makeUser(t, { role: 'admin' });
});
afterAll(() => t.close());

const me = (headers: Record<string, string>) => t.app.inject({ url: '/api/auth/me', headers });
const usersList = (headers: Record<string, string>) => t.app.inject({ url: '/api/users', headers });

async function cachedMember(): Promise<TestUser> {
  const user = await makeUser(t);
  expect((await me(user.headers)).statusCode).toBe(200);
  return user;
}

const keyIdOf = async (user: TestUser) =>
  (
    await t.db
      .selectFrom('api_keys')
      .select('id')
      .where('key_hash', '=', sha256Hex(user.key))
      .executeTakeFirstOrThrow()
  ).id;

const revokeKey = async (user: TestUser) => {
  await t.db
    .updateTable('api_keys')
    .set({ revoked_at: new Date() })
    .where('id', '=', await keyIdOf(user))
    .execute();
};

/** Runs `change` with the api_keys change notices switched off, so cached keys are not dropped. */
async function withoutNotices(change: () => Promise<void>): Promise<void> {
  await sql`alter table api_keys disable trigger api_keys_credentials_changed`.execute(t.db);
  try {
    await change();
  } finally {
    await sql`alter table api_keys enable trigger api_keys_credentials_changed`.execute(t.db);
  }
}

describe('a cached API key', () => {
  it('is not looked up again: with the change notices switched off, a revoked key still passes', async () => {
    // Proves the cache is in use, and that the notices are what keeps it right.
    const user = await cachedMember();
    await withoutNotices(async () => {
      await revokeKey(user);
      expect((await me(user.headers)).statusCode).toBe(200);
    });
    // The next notice of any change drops it.
    await t.db.updateTable('api_keys').set({ expires_at: null }).where('id', '=', -1).execute();
    expect((await me(user.headers)).statusCode).toBe(401);
  });

  it('is refused at once when revoked through the API', async () => {
    const user = await cachedMember();
    const revoked = await t.app.inject({
      method: 'DELETE',
      url: `/api/api-keys/${await keyIdOf(user)}`,
      headers: user.headers,
    });
    expect(revoked.statusCode).toBe(200);
    expect((await me(user.headers)).statusCode).toBe(401);
    expect((await me({ authorization: `Bearer ${user.key}` })).statusCode).toBe(401);
  });

  it('is refused at once when revoked, expired or deleted in the database directly', async () => {
    const changes = [
      (id: number) => t.db.updateTable('api_keys').set({ revoked_at: new Date() }).where('id', '=', id),
      (id: number) =>
        t.db
          .updateTable('api_keys')
          .set({ expires_at: new Date(Date.now() - 1000) })
          .where('id', '=', id),
      (id: number) => t.db.deleteFrom('api_keys').where('id', '=', id),
    ];
    for (const change of changes) {
      const user = await cachedMember();
      await change(await keyIdOf(user)).execute();
      expect((await me(user.headers)).statusCode).toBe(401);
    }
  });

  it('is refused once its expiry passes, with no change in the database', async () => {
    const user = await makeUser(t);
    const { key } = await createApiKey(
      t.db,
      { ...user.principal, via: 'session' },
      { name: 'brief', expires_at: new Date(Date.now() + 1500).toISOString() },
      TEST_AUDIT,
    );
    expect((await me({ 'x-api-key': key })).statusCode).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1600));
    expect((await me({ 'x-api-key': key })).statusCode).toBe(401);
  });

  it('of a user who is disabled (API or database) is refused at once', async () => {
    const byApi = await cachedMember();
    const disabled = await t.app.inject({
      method: 'PATCH',
      url: `/api/users/${byApi.id}`,
      headers: admin.headers,
      payload: { disabled: true },
    });
    expect(disabled.statusCode).toBe(200);
    expect((await me(byApi.headers)).statusCode).toBe(401);

    const direct = await cachedMember();
    await t.db.updateTable('users').set({ disabled: true }).where('id', '=', direct.id).execute();
    expect((await me(direct.headers)).statusCode).toBe(401);
    await t.db.deleteFrom('users').where('id', '=', direct.id).execute();
    expect((await me(direct.headers)).statusCode).toBe(401);
  });

  it('acts with the new role, email and name at once', async () => {
    const user = await makeUser(t, { role: 'admin' });
    expect((await usersList(user.headers)).statusCode).toBe(200);
    const demoted = await t.app.inject({
      method: 'PATCH',
      url: `/api/users/${user.id}`,
      headers: admin.headers,
      payload: { role: 'member' },
    });
    expect(demoted.statusCode).toBe(200);
    expect((await usersList(user.headers)).statusCode).toBe(403);

    await t.db.updateTable('users').set({ role: 'admin' }).where('id', '=', user.id).execute();
    expect((await usersList(user.headers)).statusCode).toBe(200);

    await t.db
      .updateTable('users')
      .set({ name: 'Renamed', email: `renamed-${user.id}@example.test` })
      .where('id', '=', user.id)
      .execute();
    expect((await me(user.headers)).json().user).toMatchObject({
      name: 'Renamed',
      email: `renamed-${user.id}@example.test`,
    });
  });

  it('still records when it was last used, at most once a minute', async () => {
    const user = await cachedMember();
    const id = await keyIdOf(user);
    const lastUsed = async () =>
      (
        await t.db
          .selectFrom('api_keys')
          .select('last_used_at')
          .where('id', '=', id)
          .executeTakeFirstOrThrow()
      ).last_used_at?.getTime();
    const first = await lastUsed();
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now() + 30_000);
      expect((await me(user.headers)).statusCode).toBe(200);
      expect(await lastUsed()).toBe(first);
      const later = Date.now() + 31_000;
      vi.setSystemTime(later);
      expect((await me(user.headers)).statusCode).toBe(200);
      expect(await lastUsed()).toBeGreaterThanOrEqual(later);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe.runIf(Boolean(process.env.TEST_DATABASE_URL))('a cached API key, on PostgreSQL', () => {
  const otherProcess = async <T>(work: (client: pg.Client) => Promise<T>): Promise<T> => {
    const client = new pg.Client({
      connectionString: process.env.TEST_DATABASE_URL,
      options: `-c search_path=${await currentSchema()}`,
    });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  };
  const currentSchema = async () =>
    (await sql<{ schema: string }>`select current_schema() as schema`.execute(t.db)).rows[0]?.schema;

  async function eventually(check: () => Promise<boolean>): Promise<boolean> {
    for (let attempt = 0; attempt < 100; attempt++) {
      if (await check()) return true;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return false;
  }

  it('is kept on a notice for another schema of the database, and dropped on one for its own', async () => {
    const user = await cachedMember();
    await withoutNotices(() => revokeKey(user));
    const schema = await currentSchema();
    await otherProcess((client) =>
      client.query(`select pg_notify('scanhub_credentials', $1)`, [`${schema}_other`]),
    );
    // A notice on the listening connection arrives in order: the own-schema one below comes after.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await me(user.headers)).statusCode).toBe(200);
    await otherProcess((client) => client.query(`select pg_notify('scanhub_credentials', $1)`, [schema]));
    expect(await eventually(async () => (await me(user.headers)).statusCode === 401)).toBe(true);
  });

  it('is refused once another process revokes it, as soon as its notice arrives', async () => {
    const user = await cachedMember();
    const id = await keyIdOf(user);
    await otherProcess((client) =>
      client.query('update api_keys set revoked_at = now() where id = $1', [id]),
    );
    expect(await eventually(async () => (await me(user.headers)).statusCode === 401)).toBe(true);
  });

  it('stops caching when the listening connection breaks, and listens again', async () => {
    const notices = t.database.changeNotices;
    // This server's connection only: another test file's server may be listening on the database.
    const listener = noticesApplicationName(await currentSchema());
    await otherProcess((client) =>
      client.query(`select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1`, [
        listener,
      ]),
    );
    expect(await eventually(async () => !notices.live)).toBe(true);
    expect(await eventually(async () => notices.live)).toBe(true);
    const user = await cachedMember();
    const id = await keyIdOf(user);
    await otherProcess((client) =>
      client.query('update api_keys set revoked_at = now() where id = $1', [id]),
    );
    expect(await eventually(async () => (await me(user.headers)).statusCode === 401)).toBe(true);
  });
});

describe('ApiKeyCache', () => {
  const principal: UserPrincipal = {
    kind: 'user',
    id: 1,
    email: 'a@example.test',
    name: 'A',
    role: 'member',
    via: 'api_key',
  };
  const entry = (expiresAt: Date | null = null): CachedApiKey => ({
    keyId: 1,
    principal,
    expiresAt,
    lastUsedAt: null,
  });
  function fakeNotices() {
    const listeners = new Set<() => void>();
    const notices: ChangeNotices & { live: boolean; notify(): void } = {
      live: true,
      onChange: (channel, listener) => {
        if (channel !== CREDENTIALS_CHANNEL) return () => false;
        const heard = () => listener(undefined);
        listeners.add(heard);
        return () => listeners.delete(heard);
      },
      notify: () => listeners.forEach((listener) => listener()),
      close: async () => {},
    };
    return notices;
  }
  const now = new Date();

  it('drops everything on a notice', () => {
    const notices = fakeNotices();
    const cache = new ApiKeyCache(notices);
    cache.remember('k', entry(), cache.version);
    expect(cache.find('k', now)).toBeDefined();
    notices.notify();
    expect(cache.find('k', now)).toBeUndefined();
  });

  it('does not keep a lookup that overlapped a notice', () => {
    const notices = fakeNotices();
    const cache = new ApiKeyCache(notices);
    const version = cache.version;
    notices.notify(); // the change commits while the lookup's row is on its way
    cache.remember('k', entry(), version);
    expect(cache.find('k', now)).toBeUndefined();
  });

  it('neither answers nor fills while notices are not live', () => {
    const notices = fakeNotices();
    const cache = new ApiKeyCache(notices);
    cache.remember('k', entry(), cache.version);
    notices.live = false;
    expect(cache.find('k', now)).toBeUndefined();
    cache.remember('other', entry(), cache.version);
    notices.live = true;
    expect(cache.find('other', now)).toBeUndefined();
  });

  it('never answers for a key past its expiry', () => {
    const cache = new ApiKeyCache(fakeNotices());
    cache.remember('k', entry(new Date(now.getTime() + 1000)), cache.version);
    expect(cache.find('k', now)).toBeDefined();
    expect(cache.find('k', new Date(now.getTime() + 1000))).toBeUndefined();
  });

  it('holds at most its capacity, dropping the oldest', () => {
    const cache = new ApiKeyCache(fakeNotices(), 2);
    for (const key of ['a', 'b', 'c']) cache.remember(key, entry(), cache.version);
    expect(cache.find('a', now)).toBeUndefined();
    expect(cache.find('b', now)).toBeDefined();
    expect(cache.find('c', now)).toBeDefined();
  });

  it('stops listening when told to', () => {
    const notices = fakeNotices();
    const cache = new ApiKeyCache(notices);
    cache.stopListening();
    cache.remember('k', entry(), cache.version);
    notices.notify();
    expect(cache.find('k', now)).toBeDefined();
  });
});
