import { generateKeyPairSync, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

/**
 * A real OpenID provider (oidc-provider, certified) on 127.0.0.1 for sign-in tests, with its
 * development interactions (a login form that takes any account id, then a consent form), which
 * `signInAt` drives with fetch and a cookie jar, no browser.
 */

export interface ProviderAccount {
  email?: string;
  email_verified?: boolean;
  name?: string;
  groups?: string[];
}

export interface TestProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Edit to change what the next sign-in carries. */
  accounts: Map<string, ProviderAccount>;
  /** The id of the key the provider signs with now (and the only one it publishes). */
  keyId(): string;
  /** Restarts the provider on the same address with a new signing key (the old one gone). */
  rotateKeys(): Promise<void>;
  close(): Promise<void>;
}

function signingKey() {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { ...privateKey.export({ format: 'jwk' }), kid: randomUUID(), use: 'sig', alg: 'RS256' };
}

export async function startTestProvider(redirectUri: string, postLogoutUri: string): Promise<TestProvider> {
  const accounts = new Map<string, ProviderAccount>();
  const clientId = 'scanhub-test';
  const clientSecret = `secret-${randomUUID()}`;
  let server: http.Server | undefined;
  let port = 0;
  let issuer = '';
  let keyId = '';

  async function listen(): Promise<void> {
    const key = signingKey();
    keyId = key.kid;
    const provider = new Provider(issuer || 'http://127.0.0.1', {
      clients: [
        {
          client_id: clientId,
          client_secret: clientSecret,
          redirect_uris: [redirectUri],
          post_logout_redirect_uris: [postLogoutUri],
          token_endpoint_auth_method: 'client_secret_post',
        },
      ],
      jwks: { keys: [key] },
      cookies: { keys: [randomUUID()] },
      claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'], groups: ['groups'] },
      features: { devInteractions: { enabled: true }, rpInitiatedLogout: { enabled: true } },
      findAccount: async (_ctx, id) => ({
        accountId: id,
        claims: async () => ({ sub: id, ...accounts.get(id) }),
      }),
    });
    server = http.createServer(provider.callback());
    await new Promise<void>((resolve) => server?.listen(port, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    if (!issuer) {
      // The issuer names the port, which is known only now: start again with it.
      issuer = `http://127.0.0.1:${port}`;
      await new Promise((resolve) => server?.close(resolve));
      await listen();
    }
  }
  await listen();
  const close = () =>
    new Promise<void>((resolve) => {
      server?.closeAllConnections();
      server?.close(() => resolve());
    });
  return {
    issuer,
    clientId,
    clientSecret,
    accounts,
    keyId: () => keyId,
    async rotateKeys() {
      await close();
      await listen();
    },
    close,
  };
}

/** A minimal cookie jar: every cookie goes to every path of the provider. */
class CookieJar {
  private cookies = new Map<string, string>();
  take(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const equals = pair.indexOf('=');
      const name = pair.slice(0, equals).trim();
      const value = pair.slice(equals + 1).trim();
      if (value === '' || /max-age=0|expires=thu, 01 jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

/**
 * fetch, tried again once when a kept-alive connection turns out closed (the provider restarted on
 * the same address for a key rotation), as a browser would.
 */
async function fetchAgain(url: string | URL, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause;
    if (cause?.code !== 'UND_ERR_SOCKET') throw error;
    return fetch(url, init);
  }
}

/**
 * Follows the provider from the authorization URL through login (as `accountId`) and consent to the
 * redirect back; returns that URL (the callback with `code` and `state`).
 */
export async function signInAt(
  authorizationUrl: string,
  accountId: string,
  redirectUri: string,
): Promise<URL> {
  const jar = new CookieJar();
  let url = authorizationUrl;
  for (let step = 0; step < 12; step += 1) {
    if (url.startsWith(redirectUri)) return new URL(url);
    const response = await fetchAgain(url, { redirect: 'manual', headers: { cookie: jar.header() } });
    jar.take(response);
    if (response.status >= 300 && response.status < 400) {
      url = new URL(response.headers.get('location') ?? '', url).href;
      continue;
    }
    const page = await response.text();
    const prompt = /name="prompt" value="(\w+)"/.exec(page)?.[1];
    const action = /<form[^>]*action="([^"]+)"/.exec(page)?.[1];
    if (response.status !== 200 || !prompt || !action) {
      throw new Error(`provider answered ${response.status} without a form at ${url}: ${page.slice(0, 300)}`);
    }
    const form = new URLSearchParams({
      prompt,
      ...(prompt === 'login' ? { login: accountId, password: 'x' } : {}),
    });
    const submitted = await fetchAgain(new URL(action, url), {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
      body: form,
    });
    jar.take(submitted);
    url = new URL(submitted.headers.get('location') ?? '', url).href;
  }
  throw new Error('the provider did not send the browser back');
}
