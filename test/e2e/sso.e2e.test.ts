import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestProvider, type TestProvider } from '../support/oidc-provider.ts';
import { startServerProcess, type ServerProcess } from '../support/server-process.ts';

/**
 * Signing in through the company's identity provider in a browser (issue 48): Debian's Chromium, a
 * real `scanhub serve` configured with OIDC_* settings, and a real OpenID provider (oidc-provider,
 * its development login and consent pages) on 127.0.0.1. The person clicks "Sign in with …", signs
 * in at the provider, consents, and lands in scanhub signed in, on the team their group maps to.
 */

const CHROMIUM = '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
const ADMIN = { email: 'sso-admin@scanhub.local', password: 'sso e2e admin password 0' };

let provider: TestProvider;
let server: ServerProcess;
let browser: Browser;
let dataDir: string;
let base: string;

/** A port nobody listens on now: the provider must know the redirect URI before scanhub starts. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const address = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

async function adminSession(): Promise<Record<string, string>> {
  const login = await fetch(`${base}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(ADMIN),
  });
  expect(login.status).toBe(200);
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const { csrfToken } = (await login.json()) as { csrfToken: string };
  return { cookie, 'x-csrf-token': csrfToken, 'content-type': 'application/json' };
}

describe.skipIf(!hasChromium)('signing in through the identity provider in Chromium', () => {
  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    provider = await startTestProvider(`${base}/api/auth/oidc/callback`, `${base}/login`);
    provider.accounts.set('ada', {
      email: 'ada@corp.test',
      email_verified: true,
      name: 'Ada Lovelace',
      groups: ['appsec-engineers'],
    });
    dataDir = mkdtempSync(join(tmpdir(), 'scanhub-e2e-sso-'));
    server = await startServerProcess({
      DATA_DIR: dataDir,
      PORT: String(port),
      PUBLIC_URL: base,
      SCANHUB_ADMIN_EMAIL: ADMIN.email,
      SCANHUB_ADMIN_PASSWORD: ADMIN.password,
      SCANHUB_SECRET_KEY: 'e2e-sso-secret-key-0123456789abcdef0123',
      OIDC_ISSUER: provider.issuer,
      OIDC_CLIENT_ID: provider.clientId,
      OIDC_CLIENT_SECRET: provider.clientSecret,
      OIDC_SCOPES: 'openid email profile groups',
      OIDC_PROVIDER_NAME: 'Corp IdP',
      OIDC_ALLOW_PRIVATE: 'true',
    });
    expect(server.url).toBe(base);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await provider?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  it('lands the person in scanhub, signed in, on the team their group maps to', async () => {
    const admin = await adminSession();
    const team = await fetch(`${base}/api/teams`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ name: 'AppSec' }),
    });
    const teamId = ((await team.json()) as { id: number }).id;
    const mapping = await fetch(`${base}/api/sso/group-mappings`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ idp_group: 'appsec-engineers', team_id: teamId }),
    });
    expect(mapping.status).toBe(201);

    const page = await browser.newPage();
    await page.goto(`${base}/login`);
    await page.getByRole('link', { name: 'Sign in with Corp IdP' }).click();
    // The provider's own pages: its development login form (any account id), then consent.
    await page.waitForURL((url) => url.href.startsWith(provider.issuer));
    await page.locator('input[name="login"]').fill('ada');
    await page.locator('input[name="password"]').fill('anything');
    await page.locator('button[type="submit"]').click();
    await page.locator('button[type="submit"]').click();
    await page.waitForURL((url) => url.href.startsWith(base) && !url.pathname.startsWith('/login'));

    const me = await page.evaluate(async () => (await fetch('/api/auth/me')).json());
    expect(me).toMatchObject({
      user: { email: 'ada@corp.test', name: 'Ada Lovelace' },
      authenticated_by: 'session',
      identity_provider: 'Corp IdP',
    });
    const teams = (await (await fetch(`${base}/api/teams/${teamId}`, { headers: admin })).json()) as {
      members: { email: string }[];
    };
    expect(teams.members.map((member) => member.email)).toEqual(['ada@corp.test']);
    await page.close();
  }, 120_000);
});
