import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWTPayload } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SESSION_COOKIE } from '../../src/http/auth.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

/**
 * The ID token checks, against a provider stand-in on 127.0.0.1 whose token endpoint answers with
 * tokens made here (a real provider never signs a wrong one): a token signed by a key the provider
 * does not publish, for another audience, expired, or with another nonce is refused.
 */

const PUBLIC_URL = 'http://localhost:3998';
const CLIENT_ID = 'scanhub-forge';
const STATE_COOKIE = 'scanhub_oidc_state';

let issuer = '';
let server: http.Server;
let published: { privateKey: CryptoKey; kid: string };
let unpublished: { privateKey: CryptoKey; kid: string };
let publicJwk: Record<string, unknown>;
/** What the next token endpoint answer signs. */
let nextToken: () => Promise<string> = async () => '';
let t: TestApp;
const logLines: string[] = [];

function sign(payload: JWTPayload, key = published) {
  return new SignJWT(payload).setProtectedHeader({ alg: 'RS256', kid: key.kid }).sign(key.privateKey);
}

beforeAll(async () => {
  const one = await generateKeyPair('RS256', { extractable: true });
  const two = await generateKeyPair('RS256');
  published = { privateKey: one.privateKey, kid: 'key-1' };
  // Same key id, other key: only the signature can tell.
  unpublished = { privateKey: two.privateKey, kid: 'key-1' };
  publicJwk = { ...(await exportJWK(one.publicKey)), kid: 'key-1', alg: 'RS256', use: 'sig' };
  server = http.createServer((request, response) => {
    const json = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    if (request.url === '/.well-known/openid-configuration') {
      return json(200, {
        issuer,
        authorization_endpoint: `${issuer}/auth`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
      });
    }
    if (request.url === '/jwks') return json(200, { keys: [publicJwk] });
    if (request.url === '/token' && request.method === 'POST') {
      request.resume();
      void nextToken().then((idToken) =>
        json(200, { access_token: 'opaque', token_type: 'Bearer', expires_in: 60, id_token: idToken }),
      );
      return undefined;
    }
    return json(404, {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  t = await createTestApp(
    {
      publicUrl: PUBLIC_URL,
      logLevel: 'info',
      oidc: {
        issuer,
        clientId: CLIENT_ID,
        clientSecret: undefined,
        scopes: 'openid email',
        providerName: 'Forge',
        redirectUri: `${PUBLIC_URL}/api/auth/oidc/callback`,
        claims: { email: 'email', name: 'name', groups: 'groups' },
        createUsers: true,
        allowedEmailDomains: [],
        allowPrivate: true,
        timeoutMs: 5000,
      },
    },
    { logStream: { write: (line) => void logLines.push(line) } },
  );
}, 30_000);
afterAll(async () => {
  await t.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** Starts a sign-in, lets `makeToken` answer the code exchange, and returns the callback's answer. */
async function signInWith(makeToken: (nonce: string) => Promise<string>) {
  const start = await t.app.inject({ method: 'GET', url: '/api/auth/oidc/login' });
  const authorization = new URL(String(start.headers.location));
  const state = authorization.searchParams.get('state') ?? '';
  const nonce = authorization.searchParams.get('nonce') ?? '';
  let token = '';
  nextToken = async () => (token = await makeToken(nonce));
  const response = await t.app.inject({
    method: 'GET',
    url: `/api/auth/oidc/callback?code=one-time-code&state=${encodeURIComponent(state)}`,
    headers: { cookie: `${STATE_COOKIE}=${state}` },
  });
  return { response, token };
}

const now = () => Math.floor(Date.now() / 1000);
const good = (nonce: string): JWTPayload => ({
  iss: issuer,
  aud: CLIENT_ID,
  sub: 'subject-1',
  iat: now(),
  exp: now() + 300,
  nonce,
  email: 'forge@corp.example',
  email_verified: true,
});

describe('ID token checks', () => {
  it('a well-made token opens a session (the stand-in is sound)', async () => {
    const { response } = await signInWith((nonce) => sign(good(nonce)));
    expect(response.headers.location).toBe(`${PUBLIC_URL}/`);
    expect(response.cookies.some((cookie) => cookie.name === SESSION_COOKIE)).toBe(true);
  });

  const refusals: [string, (nonce: string) => Promise<string>, string][] = [
    [
      'signed by a key the provider does not publish',
      (nonce) => sign(good(nonce), unpublished),
      'token_invalid',
    ],
    ['for another audience', (nonce) => sign({ ...good(nonce), aud: 'another-client' }), 'token_invalid'],
    [
      'from another issuer',
      (nonce) => sign({ ...good(nonce), iss: 'https://evil.example' }),
      'token_invalid',
    ],
    ['expired', (nonce) => sign({ ...good(nonce), iat: now() - 7200, exp: now() - 3600 }), 'token_expired'],
    ['with another nonce', () => sign(good('a-nonce-from-elsewhere')), 'token_invalid'],
  ];
  it.each(refusals)(
    'a token %s is refused, logged without its contents',
    async (_name, makeToken, failure) => {
      logLines.length = 0;
      const { response, token } = await signInWith(makeToken);
      expect(response.statusCode).toBe(303);
      expect(response.headers.location).toBe(`${PUBLIC_URL}/login?sso_error=${failure}`);
      expect(response.cookies.some((cookie) => cookie.name === SESSION_COOKIE)).toBe(false);
      const refusal = logLines.find((line) => line.includes('OpenID sign-in refused'));
      expect(refusal).toContain(failure);
      const [, payload = '', signature = ''] = token.split('.');
      for (const line of logLines) {
        expect(line).not.toContain(payload);
        expect(line).not.toContain(signature);
        expect(line).not.toContain('one-time-code');
      }
    },
  );
});
