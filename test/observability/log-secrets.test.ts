import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SESSION_COOKIE } from '../../src/http/auth.ts';
import { makeUser, type TestUser } from '../support/factories.ts';
import { startFakeTracker } from '../support/fake-trackers.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

/**
 * Issue 10 item 13: the server's log (its pino stream, captured) through a hostile sequence — a
 * mass-assignment PATCH carrying a password, failed and successful logins, API keys, application
 * tokens, and database errors forced while secrets are bound as SQL parameters — holds none of the
 * passwords, keys, tokens, hashes or sealed values created, and no SQL text or parameters.
 */

const lines: string[] = [];
let t: TestApp;
let admin: TestUser;
const secrets: string[] = [];

beforeAll(async () => {
  t = await createTestApp(
    { logLevel: 'info', outbound: { allowPrivate: true } },
    { logStream: { write: (line) => void lines.push(line) } },
  );
  admin = await makeUser(t, { role: 'admin', password: 'admin password never logged' });
  secrets.push('admin password never logged', admin.key);
});
afterAll(() => t.close());

const inject = (
  method: string,
  url: string,
  payload?: object,
  headers: Record<string, string> = admin.headers,
) => t.app.inject({ method: method as 'POST', url, headers, ...(payload ? { payload } : {}) });

/** Makes every UPDATE of `table` fail inside PostgreSQL, as a broken database would. */
async function failUpdatesOf(table: 'users' | 'applications'): Promise<() => Promise<void>> {
  await sql`create or replace function scanhub_forced_failure() returns trigger language plpgsql as $$
    begin raise exception 'forced failure'; end $$`.execute(t.db);
  await sql`create trigger forced_failure before update on ${sql.table(table)}
    for each row execute function scanhub_forced_failure()`.execute(t.db);
  return async () => {
    await sql`drop trigger forced_failure on ${sql.table(table)}`.execute(t.db);
  };
}

describe('the server log through a hostile sequence', () => {
  it('holds no password, key, token, hash, sealed secret, SQL text or parameter', async () => {
    // A user, whose password is then the target of mass assignment and of failed logins.
    const userPassword = 'user password never logged';
    const created = await inject('POST', '/api/users', {
      email: 'logged@example.test',
      password: userPassword,
    });
    expect(created.statusCode).toBe(201);
    const userId: number = created.json().id;
    secrets.push(userPassword);
    const takeover = 'takeover password never logged';
    secrets.push(takeover);
    expect((await inject('PATCH', `/api/users/${userId}`, { password: takeover })).statusCode).toBe(400);
    expect((await inject('PATCH', `/api/users/${userId}`, { password_hash: takeover })).statusCode).toBe(400);
    for (const wrong of ['wrong guess never logged 1', 'wrong guess never logged 2']) {
      secrets.push(wrong);
      const response = await inject(
        'POST',
        '/api/auth/login',
        { email: 'logged@example.test', password: wrong },
        {},
      );
      expect(response.statusCode).toBe(401);
    }
    const login = await inject(
      'POST',
      '/api/auth/login',
      { email: 'logged@example.test', password: userPassword },
      {},
    );
    expect(login.statusCode).toBe(200);
    const cookie = login.cookies.find((candidate) => candidate.name === SESSION_COOKIE)?.value ?? '';
    secrets.push(cookie, login.json().csrfToken);

    // API keys: created, used by both headers, and a wrong one presented.
    const key = await inject(
      'POST',
      '/api/api-keys',
      { name: 'logged key' },
      { cookie: `${SESSION_COOKIE}=${cookie}`, 'x-csrf-token': login.json().csrfToken },
    );
    expect(key.statusCode).toBe(201);
    secrets.push(key.json().key);
    expect((await inject('GET', '/api/auth/me', undefined, { 'x-api-key': key.json().key })).statusCode).toBe(
      200,
    );
    const bearer = { authorization: `Bearer ${key.json().key}` };
    expect((await inject('GET', '/api/auth/me', undefined, bearer)).statusCode).toBe(200);
    const bogusKey = 'shk_bogus_key_never_logged';
    secrets.push(bogusKey);
    expect((await inject('GET', '/api/auth/me', undefined, { 'x-api-key': bogusKey })).statusCode).toBe(401);

    // Application tokens: created, regenerated, used, and sealed at rest.
    const group = await inject('POST', '/api/groups', { name: 'logged', path: 'logged' });
    const application = await inject('POST', '/api/applications', {
      name: 'logged',
      slug: 'logged',
      group_id: group.json().id,
    });
    secrets.push(application.json().api_token);
    const regenerated = await inject('POST', `/api/applications/${application.json().id}/regenerate-token`);
    expect(regenerated.statusCode).toBe(200);
    secrets.push(regenerated.json().api_token);
    const ingest = await inject('POST', '/api/ingest', undefined, {
      'x-api-token': regenerated.json().api_token,
    });
    expect(ingest.statusCode).toBeGreaterThanOrEqual(400);
    const stored = await t.db
      .selectFrom('applications')
      .select(['api_token_encrypted', 'api_token_hash'])
      .where('id', '=', application.json().id)
      .executeTakeFirstOrThrow();
    secrets.push(stored.api_token_encrypted, stored.api_token_hash);

    // Webhook secrets: created, changed, refused in a bad request, and sealed at rest.
    const hookSecret = 'webhook secret never logged';
    const hookSecret2 = 'second webhook secret never logged';
    secrets.push(hookSecret, hookSecret2);
    const hooks = `/api/applications/${application.json().id}/webhooks`;
    const hook = await inject('POST', hooks, {
      url: 'https://hooks.example.test/x',
      events: '*',
      secret: hookSecret,
    });
    expect(hook.statusCode).toBe(201);
    expect((await inject('PATCH', `${hooks}/${hook.json().id}`, { secret: hookSecret2 })).statusCode).toBe(
      200,
    );
    expect(
      (await inject('POST', hooks, { url: 'ftp://x', events: '*', secret: hookSecret })).statusCode,
    ).toBe(400);
    const sealedHook = await t.db
      .selectFrom('webhooks')
      .select('secret_sealed')
      .where('id', '=', hook.json().id)
      .executeTakeFirstOrThrow();
    secrets.push(sealedHook.secret_sealed ?? 'missing sealed webhook secret');

    // Issue trackers: a token and webhook secret configured, refused by the provider (a fake on
    // 127.0.0.1 answering 401), a bad request carrying a token, and inbound webhooks with the secret
    // in the URL (Jira) and wrong secrets in headers.
    const trackerToken = 'ghp_tracker-token-never-logged-01';
    const trackerSecret = 'tracker-webhook-secret-never-logged';
    const wrongSecret = 'wrong-tracker-secret-never-logged';
    secrets.push(trackerToken, trackerSecret, wrongSecret);
    const fake = await startFakeTracker('github', 'token something-else-entirely');
    const trackerUrl = `/api/applications/${application.json().id}/issue-tracker`;
    const tracker = await inject('POST', trackerUrl, {
      provider: 'github',
      token: trackerToken,
      base_url: fake.url,
      repository: 'acme/app',
      webhook_secret: trackerSecret,
    });
    expect(tracker.statusCode).toBe(201);
    expect(JSON.stringify(tracker.json())).not.toContain(trackerToken);
    expect((await inject('POST', `${trackerUrl}/test`)).statusCode).toBe(400);
    expect(fake.requests[0]?.headers.authorization).toBe(`token ${trackerToken}`);
    await fake.stop();
    expect(
      (await inject('POST', trackerUrl, { provider: 'github', token: trackerToken, nope: 1 })).statusCode,
    ).toBe(400);
    const generated = await inject('POST', '/api/applications/' + application.json().id + '/issue-tracker', {
      provider: 'jira',
      token: trackerToken,
      base_url: 'https://jira.example.test',
      project_key: 'SEC',
      // Moved to another origin, the tracker would get a new inbound secret unless one is given.
      webhook_secret: trackerSecret,
    });
    expect(generated.statusCode).toBe(200);
    const inbound = `/api/integrations/jira/webhook/${tracker.json().id}`;
    expect(
      (
        await inject(
          'POST',
          `${inbound}?secret=${encodeURIComponent(trackerSecret)}`,
          { webhookEvent: 'x' },
          {},
        )
      ).statusCode,
    ).toBe(200);
    expect(
      (
        await inject(
          'POST',
          `${inbound}?secret=${encodeURIComponent(wrongSecret)}`,
          { webhookEvent: 'x' },
          {},
        )
      ).statusCode,
    ).toBe(401);
    expect(
      (await inject('POST', inbound, { webhookEvent: 'x' }, { 'x-scanhub-secret': wrongSecret })).statusCode,
    ).toBe(401);
    const sealedTracker = await t.db
      .selectFrom('issue_trackers')
      .select(['token_sealed', 'webhook_secret_sealed'])
      .where('id', '=', tracker.json().id)
      .executeTakeFirstOrThrow();
    secrets.push(sealedTracker.token_sealed, sealedTracker.webhook_secret_sealed);

    // Database errors while secrets are bound as parameters: a password change, a token rotation.
    const marker = 'marker name never logged';
    secrets.push(marker);
    const restoreUsers = await failUpdatesOf('users');
    const newPassword = 'new password never logged';
    secrets.push(newPassword);
    const reset = await inject('POST', `/api/users/${userId}/password`, { new_password: newPassword });
    expect(reset.statusCode).toBe(500);
    expect(reset.body).not.toContain('forced failure');
    expect((await inject('PATCH', `/api/users/${userId}`, { name: marker })).statusCode).toBe(500);
    await restoreUsers();
    const restoreApplications = await failUpdatesOf('applications');
    const rotation = await inject('POST', `/api/applications/${application.json().id}/regenerate-token`);
    expect(rotation.statusCode).toBe(500);
    await restoreApplications();

    const log = lines.join('');
    // The sequence was logged (requests and the three 500s), so an empty log cannot pass.
    expect(log).toContain('incoming request');
    expect(log.match(/unhandled error/g)?.length).toBe(3);
    expect(log).toContain('P0001'); // the SQLSTATE of the forced failure: the error is diagnosable
    for (const secret of secrets) {
      expect(secret.length).toBeGreaterThan(8);
      expect(log.includes(secret), `log holds ${secret.slice(0, 12)}…`).toBe(false);
    }
    expect(log).not.toMatch(/\$argon2id\$/); // no password hash, stored or about to be
    expect(log).not.toMatch(/v1\.[\w-]+\.[\w-]+\.[\w-]+/); // no sealed secret, stored or about to be
    expect(log).not.toMatch(/"(params|query|parameters|detail)"\s*:/); // no SQL or bound values
    expect(log.toLowerCase()).not.toContain('update "users"');
  });
});

describe('query secrets in the log', () => {
  it('are redacted however the parameter name is spelled: percent-encoded, in array form, upper case', async () => {
    const spellings = [
      'secret',
      '%73ecret',
      '%73%65%63%72%65%74',
      'secret[]',
      'secret%5B%5D',
      'SECRET[0]',
      's%65cret%5Bx%5D',
      'token',
      '%74oken[]',
      'api_key',
    ];
    const planted: string[] = [];
    for (const [index, name] of spellings.entries()) {
      const value = `planted-query-secret-${index}-never-logged`;
      planted.push(value);
      await t.app.inject({
        method: 'POST',
        url: `/api/integrations/jira/webhook/999999?a=1&${name}=${value}&b=2`,
      });
    }
    const log = lines.join('');
    // The requests were logged, with their other parameters.
    expect(log).toContain('/api/integrations/jira/webhook/999999?a=1&%73ecret=[redacted]&b=2');
    for (const value of planted) expect(log.includes(value), `log holds ${value}`).toBe(false);
  });
});
