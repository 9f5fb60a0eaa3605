import * as oidc from 'openid-client';
import type { OidcConfig } from '../../config.ts';
import { sendOutbound } from '../../lib/outbound-http.ts';

/**
 * The relying party (openid-client, a certified implementation): discovery, the authorization URL
 * with PKCE, state and nonce, the code exchange with ID token validation (issuer, audience, expiry,
 * nonce, and the signature against the provider's JWKS: `enableNonRepudiationChecks`), userinfo, and
 * the end-session URL. Every call to the provider goes through the one outbound guard
 * (src/lib/outbound-http.ts) by way of openid-client's `customFetch`.
 */

/** Discovery and JWKS answers are small; anything larger is not a provider's. */
const MAX_PROVIDER_RESPONSE_BYTES = 1024 * 1024;
/** A failed discovery is retried at the next sign-in; a good one is kept this long. */
const DISCOVERY_TTL_MS = 60 * 60 * 1000;

/** Why a sign-in through the provider failed, as a stable word the sign-in page explains. */
export type OidcFailure =
  | 'idp_unavailable'
  | 'state_mismatch'
  | 'code_rejected'
  | 'token_expired'
  | 'token_invalid'
  | 'provider_error';

export class OidcError extends Error {
  override name = 'OidcError';
  constructor(
    readonly failure: OidcFailure,
    /** Safe to log: the library's error code and class, never token contents. */
    readonly logDetail: string,
  ) {
    super(`OpenID sign-in failed: ${failure}`);
  }
}

function outboundFetch(settings: OidcConfig): oidc.CustomFetch {
  return async (url, options) => {
    const answer = await sendOutbound({
      url,
      method: options.method as 'GET' | 'POST',
      headers: options.headers,
      body: options.body === undefined || options.body === null ? undefined : String(options.body),
      timeoutMs: settings.timeoutMs,
      allowPrivate: settings.allowPrivate,
      maxResponseBytes: MAX_PROVIDER_RESPONSE_BYTES,
    });
    if (answer.status === undefined)
      throw new TypeError(`provider unreachable: ${answer.error ?? 'no answer'}`);
    const headers = new Headers();
    for (const [name, value] of Object.entries(answer.headers ?? {})) {
      if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
    }
    const body = answer.status === 204 || answer.status === 304 ? null : (answer.body ?? '');
    return new Response(body, { status: answer.status, headers });
  };
}

/** A library error as a failure word and a loggable line (code and class only). */
export function classifyOidcError(error: unknown): OidcError {
  if (error instanceof OidcError) return error;
  const name = error instanceof Error ? error.name : 'unknown';
  const code = (error as { code?: unknown } | null)?.code;
  const oauthError = (error as { error?: unknown } | null)?.error;
  const detail = `${name}${typeof code === 'string' ? ` ${code}` : ''}${typeof oauthError === 'string' ? ` ${oauthError}` : ''}`;
  if (error instanceof TypeError || name === 'AbortError' || name === 'TimeoutError') {
    return new OidcError('idp_unavailable', detail);
  }
  if (error instanceof oidc.ResponseBodyError) {
    return new OidcError(error.error === 'invalid_grant' ? 'code_rejected' : 'provider_error', detail);
  }
  if (error instanceof oidc.AuthorizationResponseError) return new OidcError('provider_error', detail);
  if (code === 'OAUTH_JWT_TIMESTAMP_CHECK_FAILED') return new OidcError('token_expired', detail);
  if (code === 'OAUTH_RESPONSE_IS_NOT_JSON' || code === 'OAUTH_RESPONSE_IS_NOT_CONFORM') {
    return new OidcError('idp_unavailable', detail);
  }
  return new OidcError('token_invalid', detail);
}

export interface AuthorizationStart {
  url: URL;
  state: string;
  nonce: string;
  codeVerifier: string;
}

export interface VerifiedSignIn {
  /** ID token claims, completed by userinfo (whose `sub` must match). */
  claims: Record<string, unknown>;
  issuer: string;
  subject: string;
}

export class OidcRelyingParty {
  private discovered: { config: oidc.Configuration; at: number } | undefined;

  constructor(readonly settings: OidcConfig) {}

  /** The provider's metadata, discovered once an hour; unreachable → OidcError idp_unavailable. */
  async configuration(): Promise<oidc.Configuration> {
    if (this.discovered && Date.now() - this.discovered.at < DISCOVERY_TTL_MS) return this.discovered.config;
    const { settings } = this;
    const execute = [oidc.enableNonRepudiationChecks];
    // http only for a loopback issuer; config.ts refuses it elsewhere.
    if (new URL(settings.issuer).protocol === 'http:') execute.push(oidc.allowInsecureRequests);
    try {
      const config = await oidc.discovery(
        new URL(settings.issuer),
        settings.clientId,
        settings.clientSecret,
        settings.clientSecret === undefined ? oidc.None() : oidc.ClientSecretPost(settings.clientSecret),
        { execute, [oidc.customFetch]: outboundFetch(settings), timeout: settings.timeoutMs / 1000 },
      );
      this.discovered = { config, at: Date.now() };
      return config;
    } catch (error) {
      const failure = classifyOidcError(error);
      throw new OidcError('idp_unavailable', failure.logDetail);
    }
  }

  async startAuthorization(): Promise<AuthorizationStart> {
    const config = await this.configuration();
    const codeVerifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: this.settings.redirectUri,
      scope: this.settings.scopes,
      code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    return { url, state, nonce, codeVerifier };
  }

  /**
   * Exchanges the code (PKCE), validates the ID token and reads userinfo when the provider has it.
   * Every refusal is an OidcError.
   */
  async finishAuthorization(
    callbackUrl: URL,
    expected: { state: string; nonce: string; codeVerifier: string },
  ): Promise<VerifiedSignIn> {
    const config = await this.configuration();
    try {
      const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
        pkceCodeVerifier: expected.codeVerifier,
        expectedState: expected.state,
        expectedNonce: expected.nonce,
        idTokenExpected: true,
      });
      const idClaims = tokens.claims();
      if (!idClaims) throw new OidcError('token_invalid', 'no ID token');
      let claims: Record<string, unknown> = { ...idClaims };
      if (config.serverMetadata().userinfo_endpoint) {
        const userinfo = await oidc.fetchUserInfo(config, tokens.access_token, idClaims.sub);
        // The ID token's own claims (iss, sub, aud, …) win over userinfo's.
        claims = { ...userinfo, ...idClaims };
      }
      return { claims, issuer: idClaims.iss, subject: idClaims.sub };
    } catch (error) {
      throw classifyOidcError(error);
    }
  }

  /** Where to send the browser after sign-out, when the provider supports RP-initiated logout. */
  async endSessionUrl(postLogoutRedirectUri: string): Promise<URL | undefined> {
    const config = await this.configuration();
    if (!config.serverMetadata().end_session_endpoint) return undefined;
    return oidc.buildEndSessionUrl(config, {
      client_id: this.settings.clientId,
      post_logout_redirect_uri: postLogoutRedirectUri,
    });
  }
}
