import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { OidcConfig } from '../../src/config.ts';
import { SESSION_COOKIE } from '../../src/http/auth.ts';
import { makeUser, type TestUser } from '../support/factories.ts';
import { signInAt, startTestProvider, type TestProvider } from '../support/oidc-provider.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

const PUBLIC_URL = 'http://localhost:3999';
const REDIRECT_URI = `${PUBLIC_URL}/api/auth/oidc/callback`;
const STATE_COOKIE = 'scanhub_oidc_state';

let provider: TestProvider;
let t: TestApp;
let admin: TestUser;
const logLines: string[] = [];

function oidcSettings(issuer: string, overrides: Partial<OidcConfig> = {}): OidcConfig {
  return {
    issuer,
    clientId: provider.clientId,
    clientSecret: provider.clientSecret,
    scopes: 'openid email profile groups',
    providerName: 'Test IdP',
    redirectUri: REDIRECT_URI,
    claims: { email: 'email', name: 'name', groups: 'groups' },
    createUsers: true,
    allowedEmailDomains: [],
    allowPrivate: true,
    timeoutMs: 5000,
    ...overrides,
  };
}

beforeAll(async () => {
  provider = await startTestProvider(REDIRECT_URI, `${PUBLIC_URL}/login`);
  t = await createTestApp({
    publicUrl: PUBLIC_URL,
    oidc: oidcSettings(provider.issuer),
    logLevel: 'info',
  });
  admin = await makeUser(t, { role: 'admin' });
}, 30_000);
afterAll(async () => {
  await t.close();
  await provider.close();
});

interface Started {
  location: string;
  stateCookie: string;
}

async function startLogin(app: TestApp = t, next?: string): Promise<Started> {
  const response = await app.app.inject({
    method: 'GET',
    url: `/api/auth/oidc/login${next ? `?next=${encodeURIComponent(next)}` : ''}`,
  });
  expect(response.statusCode).toBe(303);
  const stateCookie = response.cookies.find((cookie) => cookie.name === STATE_COOKIE)?.value;
  if (!stateCookie) throw new Error('no state cookie');
  return { location: String(response.headers.location), stateCookie };
}

function callback(callbackUrl: URL, stateCookie: string | undefined, app: TestApp = t) {
  return app.app.inject({
    method: 'GET',
    url: `/api/auth/oidc/callback${callbackUrl.search}`,
    headers: stateCookie ? { cookie: `${STATE_COOKIE}=${stateCookie}` } : {},
  });
}

/** The whole flow as a browser would run it; returns the callback's answer. */
async function signIn(accountId: string, next?: string) {
  const started = await startLogin(t, next);
  const back = await signInAt(started.location, accountId, REDIRECT_URI);
  return { response: await callback(back, started.stateCookie), back, started };
}

const sessionCookieOf = (response: { cookies: { name: string; value: string }[] }) =>
  response.cookies.find((cookie) => cookie.name === SESSION_COOKIE)?.value;

async function makeTeam(name: string): Promise<number> {
  const row = await t.db.insertInto('teams').values({ name }).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

async function mapGroup(idpGroup: string, body: { team_id?: number; grants_admin?: boolean }) {
  const response = await t.app.inject({
    method: 'POST',
    url: '/api/sso/group-mappings',
    headers: admin.headers,
    payload: { idp_group: idpGroup, ...body },
  });
  expect(response.statusCode).toBe(201);
  return response.json() as { id: number };
}

const memberships = (userId: number) =>
  t.db
    .selectFrom('team_members')
    .select(['team_id', 'source'])
    .where('user_id', '=', userId)
    .orderBy('team_id')
    .execute();

describe('sign-in settings', () => {
  it('tells the sign-in page the provider name and where to start', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/auth/oidc/settings' });
    expect(response.json()).toEqual({
      enabled: true,
      provider_name: 'Test IdP',
      login_url: '/api/auth/oidc/login',
      password_login: 'enabled',
    });
  });

  it('the authorization request carries PKCE (S256), state and nonce', async () => {
    const { location, stateCookie } = await startLogin();
    const url = new URL(location);
    expect(url.origin).toBe(provider.issuer);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(url.searchParams.get('state')).toBe(stateCookie);
    expect(url.searchParams.get('nonce')).toBeTruthy();
    expect(url.searchParams.get('redirect_uri')).toBe(REDIRECT_URI);
  });
});

describe('code flow against oidc-provider', () => {
  it('creates the user at first sign-in, opens a session, maps groups to teams', async () => {
    const red = await makeTeam('red');
    const blue = await makeTeam('blue');
    await mapGroup('sec-red', { team_id: red });
    await mapGroup('sec-blue', { team_id: blue });
    provider.accounts.set('alice-sub', {
      email: 'Alice@Corp.example',
      email_verified: true,
      name: 'Alice Liddell',
      groups: ['sec-red', 'unmapped'],
    });

    const { response } = await signIn('alice-sub', '/findings?severity=high');
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe(`${PUBLIC_URL}/findings?severity=high`);
    const session = sessionCookieOf(response);
    expect(session).toBeTruthy();

    const me = await t.app.inject({
      method: 'GET',
      url: '/api/auth/me',
      headers: { cookie: `${SESSION_COOKIE}=${session}` },
    });
    expect(me.statusCode).toBe(200);
    expect(me.json().user).toMatchObject({
      email: 'alice@corp.example',
      name: 'Alice Liddell',
      role: 'member',
    });
    // Their password is the provider's business: the profile page says so instead of offering a form.
    expect(me.json().identity_provider).toBe('Test IdP');
    const userId = me.json().user.id as number;
    expect(await memberships(userId)).toEqual([{ team_id: red, source: 'idp' }]);

    // Later sign-in: moved from red to blue; a membership made by hand stays.
    const handMade = await makeTeam('hand-made');
    await t.db
      .insertInto('team_members')
      .values({ team_id: handMade, user_id: userId, role: 'member' })
      .execute();
    provider.accounts.set('alice-sub', { ...provider.accounts.get('alice-sub'), groups: ['sec-blue'] });
    expect((await signIn('alice-sub')).response.statusCode).toBe(303);
    expect(await memberships(userId)).toEqual(
      [
        { team_id: blue, source: 'idp' },
        { team_id: handMade, source: 'manual' },
      ].sort((a, b) => a.team_id - b.team_id),
    );

    // Removed from every group: the provider's memberships go, the hand-made one stays.
    provider.accounts.set('alice-sub', { ...provider.accounts.get('alice-sub'), groups: [] });
    expect((await signIn('alice-sub')).response.statusCode).toBe(303);
    expect(await memberships(userId)).toEqual([{ team_id: handMade, source: 'manual' }]);

    // The email changed at the provider: still the same user, found by (issuer, sub).
    provider.accounts.set('alice-sub', {
      ...provider.accounts.get('alice-sub'),
      email: 'alice.l@corp.example',
    });
    const again = await signIn('alice-sub');
    const meAgain = await t.app.inject({
      method: 'GET',
      url: '/api/auth/me',
      headers: { cookie: `${SESSION_COOKIE}=${sessionCookieOf(again.response)}` },
    });
    expect(meAgain.json().user.id).toBe(userId);
    expect(
      await t.db.selectFrom('users').select('id').where('email', 'like', 'alice%').execute(),
    ).toHaveLength(1);
  }, 30_000);

  it('a group mapped to the admin role gives it, and its removal takes it back', async () => {
    await mapGroup('scanhub-admins', { grants_admin: true });
    provider.accounts.set('bob-sub', {
      email: 'bob@corp.example',
      email_verified: true,
      groups: ['scanhub-admins'],
    });
    expect((await signIn('bob-sub')).response.statusCode).toBe(303);
    const roleOf = () =>
      t.db
        .selectFrom('users')
        .select('role')
        .where('email', '=', 'bob@corp.example')
        .executeTakeFirstOrThrow();
    expect((await roleOf()).role).toBe('admin');
    provider.accounts.set('bob-sub', { ...provider.accounts.get('bob-sub'), groups: [] });
    expect((await signIn('bob-sub')).response.statusCode).toBe(303);
    expect((await roleOf()).role).toBe('member');
  }, 30_000);

  it('the admin sees the last sign-in claims and the teams they map to; no tokens are kept', async () => {
    const ops = await makeTeam('ops');
    await mapGroup('ops-group', { team_id: ops });
    provider.accounts.set('carol-sub', {
      email: 'carol@corp.example',
      email_verified: true,
      groups: ['ops-group'],
    });
    await signIn('carol-sub');
    const user = await t.db
      .selectFrom('users')
      .select('id')
      .where('email', '=', 'carol@corp.example')
      .executeTakeFirstOrThrow();

    const member = await makeUser(t);
    const refused = await t.app.inject({
      method: 'GET',
      url: `/api/sso/users/${user.id}/identities`,
      headers: member.headers,
    });
    expect(refused.statusCode).toBe(403);

    const response = await t.app.inject({
      method: 'GET',
      url: `/api/sso/users/${user.id}/identities`,
      headers: admin.headers,
    });
    expect(response.statusCode).toBe(200);
    const [identity] = response.json().identities;
    expect(identity).toMatchObject({
      issuer: provider.issuer,
      subject: 'carol-sub',
      groups: ['ops-group'],
      mapped_teams: [{ id: ops, name: 'ops' }],
      idp_teams: [{ id: ops, name: 'ops' }],
    });
    expect(identity.claims.email).toBe('carol@corp.example');
    for (const unkept of ['nonce', 'at_hash', 'access_token', 'id_token'])
      expect(identity.claims).not.toHaveProperty(unkept);
  }, 30_000);

  it('links an existing user by verified email once; an unverified email is refused', async () => {
    const existing = await makeUser(t, { email: 'dave@corp.example' });
    provider.accounts.set('dave-sub', { email: 'dave@corp.example', email_verified: false });
    const refused = await signIn('dave-sub');
    expect(refused.response.headers.location).toBe(`${PUBLIC_URL}/login?sso_error=email_unverified`);
    expect(sessionCookieOf(refused.response)).toBeUndefined();

    provider.accounts.set('dave-sub', { email: 'dave@corp.example', email_verified: true });
    await signIn('dave-sub');
    const link = await t.db
      .selectFrom('user_identities')
      .select('user_id')
      .where('subject', '=', 'dave-sub')
      .executeTakeFirst();
    expect(link?.user_id).toBe(existing.id);

    // Another account at the provider claiming the same email cannot take the linked user over.
    provider.accounts.set('mallory-sub', { email: 'dave@corp.example', email_verified: true });
    const takeover = await signIn('mallory-sub');
    expect(takeover.response.headers.location).toBe(`${PUBLIC_URL}/login?sso_error=identity_conflict`);
  }, 30_000);
});

describe('refused callbacks', () => {
  it('a replayed callback is refused, and so is one without this browser’s state cookie', async () => {
    provider.accounts.set('erin-sub', { email: 'erin@corp.example', email_verified: true });
    const { response, back, started } = await signIn('erin-sub');
    expect(sessionCookieOf(response)).toBeTruthy();
    logLines.length = 0;
    const replay = await callback(back, started.stateCookie);
    expect(replay.statusCode).toBe(303);
    expect(replay.headers.location).toBe(`${PUBLIC_URL}/login?sso_error=state_mismatch`);
    expect(sessionCookieOf(replay)).toBeUndefined();

    const fresh = await startLogin();
    const freshBack = await signInAt(fresh.location, 'erin-sub', REDIRECT_URI);
    const noCookie = await callback(freshBack, undefined);
    expect(noCookie.headers.location).toBe(`${PUBLIC_URL}/login?sso_error=state_mismatch`);
    const otherState = await callback(freshBack, 'someone-elses-state');
    expect(otherState.headers.location).toBe(`${PUBLIC_URL}/login?sso_error=state_mismatch`);
  }, 30_000);

  it('a forged code is refused by the provider (invalid_grant) and no session opens', async () => {
    const started = await startLogin();
    const forged = new URL(REDIRECT_URI);
    forged.searchParams.set('code', 'forged-code-value');
    forged.searchParams.set('state', started.stateCookie);
    forged.searchParams.set('iss', provider.issuer);
    const response = await callback(forged, started.stateCookie);
    expect(response.headers.location).toBe(`${PUBLIC_URL}/login?sso_error=code_rejected`);
    expect(sessionCookieOf(response)).toBeUndefined();
  }, 30_000);

  it('a provider that is down gives a clear refusal, not a 500', async () => {
    const down = await createTestApp({
      publicUrl: PUBLIC_URL,
      oidc: oidcSettings('http://127.0.0.1:9', { timeoutMs: 2000 }),
    });
    try {
      const response = await down.app.inject({ method: 'GET', url: '/api/auth/oidc/login' });
      expect(response.statusCode).toBe(303);
      expect(response.headers.location).toBe(`${PUBLIC_URL}/login?sso_error=idp_unavailable`);
    } finally {
      await down.close();
    }
  }, 30_000);
});

describe('key rotation at the provider', () => {
  it('tokens signed with a new key verify once the key set is read again', async () => {
    provider.accounts.set('frank-sub', { email: 'frank@corp.example', email_verified: true });
    expect(sessionCookieOf((await signIn('frank-sub')).response)).toBeTruthy();
    const before = provider.keyId();
    await provider.rotateKeys();
    expect(provider.keyId()).not.toBe(before);
    // openid-client reads the key set again for an unknown key id once its copy is a minute old.
    const now = Date.now();
    const clock = vi.spyOn(Date, 'now').mockImplementation(() => now + 61_000 + (performance.now() % 1000));
    try {
      expect(sessionCookieOf((await signIn('frank-sub')).response)).toBeTruthy();
    } finally {
      clock.mockRestore();
    }
  }, 30_000);
});

describe('password sign-in limited to break-glass admins', () => {
  it('refuses everyone else with 403 password_login_disabled', async () => {
    const glass = await makeUser(t, { role: 'admin', email: 'glass@corp.example' });
    const someone = await makeUser(t, { email: 'someone@corp.example' });
    const limited = await createTestApp({
      publicUrl: PUBLIC_URL,
      oidc: oidcSettings(provider.issuer),
      passwordLogin: { mode: 'break_glass_only', breakGlassEmails: ['glass@corp.example'] },
    });
    try {
      await makeUser(limited, { role: 'admin', email: glass.email });
      await makeUser(limited, { email: someone.email });
      const login = (email: string) =>
        limited.app.inject({
          method: 'POST',
          url: '/api/auth/login',
          payload: { email, password: 'correct horse battery staple' },
        });
      const refused = await login(someone.email);
      expect(refused.statusCode).toBe(403);
      expect(refused.json().code).toBe('password_login_disabled');
      expect((await login('GLASS@corp.example')).statusCode).toBe(200);
    } finally {
      await limited.close();
    }
  }, 30_000);
});

describe('who may sign in', () => {
  it('an email outside the allowed domains, or an unknown person when creation is off, is refused', async () => {
    const strict = await createTestApp({
      publicUrl: PUBLIC_URL,
      oidc: oidcSettings(provider.issuer, { allowedEmailDomains: ['corp.example'], createUsers: false }),
    });
    try {
      const attempt = async (accountId: string) => {
        const started = await startLogin(strict);
        const back = await signInAt(started.location, accountId, REDIRECT_URI);
        return callback(back, started.stateCookie, strict);
      };
      provider.accounts.set('outsider-sub', { email: 'eve@elsewhere.example', email_verified: true });
      expect((await attempt('outsider-sub')).headers.location).toBe(
        `${PUBLIC_URL}/login?sso_error=email_domain_refused`,
      );
      provider.accounts.set('newcomer-sub', { email: 'new@corp.example', email_verified: true });
      expect((await attempt('newcomer-sub')).headers.location).toBe(
        `${PUBLIC_URL}/login?sso_error=unknown_user`,
      );
      expect(
        await strict.db
          .selectFrom('users')
          .select('id')
          .where('email', 'in', ['eve@elsewhere.example', 'new@corp.example'])
          .execute(),
      ).toEqual([]);
    } finally {
      await strict.close();
    }
  }, 30_000);
});

describe('sign-out', () => {
  it('sends the browser to the provider’s end-session endpoint (RP-initiated logout)', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/auth/oidc/logout' });
    expect(response.statusCode).toBe(303);
    const target = new URL(String(response.headers.location));
    expect(target.origin).toBe(provider.issuer);
    expect(target.searchParams.get('client_id')).toBe(provider.clientId);
    expect(target.searchParams.get('post_logout_redirect_uri')).toBe(`${PUBLIC_URL}/login`);
  });
});

describe('the audit trail of provider sign-ins (issue 49)', () => {
  it('records the account and memberships the provider made (actor idp), the sign-in (actor the user) and a refusal', async () => {
    const team = await makeTeam('audited-by-idp');
    await mapGroup('sec-audited', { team_id: team });
    provider.accounts.set('audit-sub', {
      email: 'audit@corp.example',
      email_verified: true,
      groups: ['sec-audited'],
    });
    const since = await t.db
      .selectFrom('audit_events')
      .select(sql<string>`coalesce(max(id), 0)::text`.as('id'))
      .executeTakeFirstOrThrow();
    expect((await signIn('audit-sub')).response.statusCode).toBe(303);
    const user = await t.db
      .selectFrom('users')
      .select('id')
      .where('email', '=', 'audit@corp.example')
      .executeTakeFirstOrThrow();
    const started = await startLogin();
    const forged = new URL(REDIRECT_URI);
    forged.searchParams.set('code', 'forged-code-value');
    forged.searchParams.set('state', started.stateCookie);
    forged.searchParams.set('iss', provider.issuer);
    await callback(forged, started.stateCookie);
    const rows = await t.db
      .selectFrom('audit_events')
      .select(['action', 'actor_type', 'actor_id', 'target_id', 'details'])
      .where('audit_events.id', '>', since.id as never)
      .orderBy('audit_events.id')
      .execute();
    expect(rows.map((row) => [row.action, row.actor_type])).toEqual([
      ['user.created', 'idp'],
      ['team.member_added', 'idp'],
      ['auth.signed_in', 'user'],
      ['auth.sign_in_failed', 'anonymous'],
    ]);
    expect(rows[0]).toMatchObject({ actor_id: provider.issuer, target_id: String(user.id) });
    expect(rows[2]).toMatchObject({ actor_id: String(user.id), details: { method: 'sso' } });
    expect(rows[3]!.details).toMatchObject({ method: 'sso', reason: 'code_rejected' });
  }, 60_000);
});
