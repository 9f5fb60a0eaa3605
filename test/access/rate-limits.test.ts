import { randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { SESSION_COOKIE } from '../../src/http/auth.ts';
import { makeApplication, makeUser } from '../support/factories.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

const PASSWORD = 'correct horse battery staple';
const junk = (): string => randomBytes(16).toString('hex');

function login(t: TestApp, email: string, headers: Record<string, string> = {}, password = 'wrong guess') {
  return t.app.inject({ method: 'POST', url: '/api/auth/login', headers, payload: { email, password } });
}

function expectRateLimited(response: LightMyRequestResponse): void {
  expect(response.statusCode).toBe(429);
  expect(response.headers['content-type']).toContain('application/problem+json');
  expect(response.json().code).toBe('rate_limited');
  expect(Number(response.headers['retry-after'])).toBeGreaterThan(0);
}

/** Statuses of `count` requests, in order. */
async function statuses(count: number, send: (i: number) => Promise<LightMyRequestResponse>) {
  const result: number[] = [];
  for (let i = 0; i < count; i += 1) result.push((await send(i)).statusCode);
  return result;
}

describe('TRUST_PROXY as a hop count', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      // As an operator writes it, through the config reader.
      trustProxy: loadConfig({ TRUST_PROXY: '1' }).trustProxy,
      rateLimit: {
        perMinute: 100_000,
        loginPerMinute: 10,
        loginPerAddressPerMinute: 100_000,
        loginPerAccountPerHour: 100_000,
      },
    });
  });
  afterAll(() => t.close());

  it('one hop: an X-Forwarded-For entry the client wrote does not pick the login limit key', async () => {
    const user = await makeUser(t);
    const answers = await statuses(14, (i) =>
      // The proxy (the socket, 127.0.0.1) appended the address it saw: 127.0.0.1 again.
      login(t, user.email, { 'x-forwarded-for': `203.0.113.${i}, 127.0.0.1` }),
    );
    expect(answers.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(answers.slice(10)).toEqual(Array(4).fill(429));
  });

  it('one hop: the address the proxy appended is the client', async () => {
    const user = await makeUser(t);
    // Each attempt comes through the proxy from a different client: no shared budget.
    const answers = await statuses(14, (i) => login(t, user.email, { 'x-forwarded-for': `198.51.100.${i}` }));
    expect(answers).toEqual(Array(14).fill(401));
  });
});

describe('sign-in budgets across accounts and addresses', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      trustProxy: loadConfig({ TRUST_PROXY: '127.0.0.1' }).trustProxy,
      rateLimit: {
        perMinute: 100_000,
        loginPerMinute: 1000,
        loginPerAddressPerMinute: 20,
        loginPerAccountPerHour: 15,
      },
    });
  });
  afterAll(() => t.close());

  it('spraying 40 accounts from one address is refused past the address budget', async () => {
    const accounts = await Promise.all(Array.from({ length: 40 }, () => makeUser(t)));
    const from = { 'x-forwarded-for': '192.0.2.10' };
    const answers: LightMyRequestResponse[] = [];
    for (const account of accounts) answers.push(await login(t, account.email, from));
    expect(answers.slice(0, 20).map((answer) => answer.statusCode)).toEqual(Array(20).fill(401));
    for (const answer of answers.slice(20)) expectRateLimited(answer);
    expect(Number(answers[39]?.headers['retry-after'])).toBeLessThanOrEqual(60);
    // Another address is not held up by the first one's spraying.
    expect(
      (await login(t, accounts[0]!.email, { 'x-forwarded-for': '192.0.2.11' }, PASSWORD)).statusCode,
    ).toBe(200);
  });

  it('one account from many addresses is locked for longer, the right password included', async () => {
    const target = await makeUser(t);
    const answers: LightMyRequestResponse[] = [];
    for (let i = 0; i < 18; i += 1) {
      answers.push(await login(t, target.email, { 'x-forwarded-for': `198.51.100.${i}` }));
    }
    expect(answers.slice(0, 15).map((answer) => answer.statusCode)).toEqual(Array(15).fill(401));
    for (const answer of answers.slice(15)) expectRateLimited(answer);
    // The account's window is an hour, not a minute.
    expect(Number(answers[17]?.headers['retry-after'])).toBeGreaterThan(60);
    const right = await login(t, target.email, { 'x-forwarded-for': '198.51.100.200' }, PASSWORD);
    expectRateLimited(right);
    expect(await t.db.selectFrom('sessions').select('id').where('user_id', '=', target.id).execute()).toEqual(
      [],
    );
    // Spelled otherwise, the email is the same account.
    expectRateLimited(
      await login(t, ` ${target.email.toUpperCase()}`, { 'x-forwarded-for': '198.51.100.201' }),
    );
  });

  it('keeps the counters in the database, so every server shares them', async () => {
    const rows = await t.db.selectFrom('login_throttle').select(['bucket', 'attempts']).execute();
    expect(rows.some((row) => row.bucket === 'address:192.0.2.10' && row.attempts >= 40)).toBe(true);
    // Emails are not kept in the clear.
    expect(rows.every((row) => !row.bucket.includes('@'))).toBe(true);
  });
});

describe('the global limit counts verified principals, else addresses', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      rateLimit: {
        perMinute: 20,
        loginPerMinute: 1000,
        loginPerAddressPerMinute: 100_000,
        loginPerAccountPerHour: 100_000,
      },
    });
  });
  afterAll(() => t.close());

  it('a random session cookie on each anonymous request is no fresh bucket', async () => {
    const answers = await statuses(25, () =>
      t.app.inject({
        url: '/api/csrf-token',
        remoteAddress: '192.0.2.20',
        headers: { cookie: `${SESSION_COOKIE}=${junk()}` },
      }),
    );
    expect(answers.slice(0, 20)).toEqual(Array(20).fill(200));
    expect(answers.slice(20)).toEqual(Array(5).fill(429));
  });

  it('a random X-Api-Key on each request is counted against the address, though each is a 401', async () => {
    const answers = await statuses(25, () =>
      t.app.inject({
        url: '/api/auth/me',
        remoteAddress: '192.0.2.21',
        headers: { 'x-api-key': `shk_${junk()}` },
      }),
    );
    expect(answers.slice(0, 20)).toEqual(Array(20).fill(401));
    expect(answers.slice(20)).toEqual(Array(5).fill(429));
  });

  it('a signed-in user adding a random X-Api-Token is still that user', async () => {
    const user = await makeUser(t);
    const signIn = await login(t, user.email, {}, PASSWORD);
    expect(signIn.statusCode).toBe(200);
    const cookie = `${SESSION_COOKIE}=${signIn.cookies.find((c) => c.name === SESSION_COOKIE)?.value ?? ''}`;
    const answers = await statuses(25, () =>
      t.app.inject({
        url: '/api/auth/me',
        remoteAddress: '192.0.2.22',
        headers: { cookie, 'x-api-token': `sht_${junk()}` },
      }),
    );
    expect(answers.slice(0, 20)).toEqual(Array(20).fill(200));
    expect(answers.slice(20)).toEqual(Array(5).fill(429));
    // The budget is the user's: the same user by API key from another address is limited too.
    expect(
      (await t.app.inject({ url: '/api/auth/me', remoteAddress: '192.0.2.23', headers: user.headers }))
        .statusCode,
    ).toBe(429);
  });

  it('the public inbound-webhook route is limited per address, whatever credentials it carries', async () => {
    const owner = await makeUser(t, { role: 'admin' });
    const application = await makeApplication(t, owner);
    const answers = await statuses(25, () =>
      t.app.inject({
        method: 'POST',
        url: `/api/integrations/github/webhook/${application.id}`,
        remoteAddress: '192.0.2.24',
        headers: {
          'content-type': 'application/json',
          'x-hub-signature-256': `sha256=${junk()}`,
          cookie: `${SESSION_COOKIE}=${junk()}`,
        },
        payload: '{}',
      }),
    );
    expect(answers.slice(0, 20).every((status) => status !== 429)).toBe(true);
    expect(answers.slice(20)).toEqual(Array(5).fill(429));
  });
});
