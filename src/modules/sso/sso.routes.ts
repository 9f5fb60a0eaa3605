import { Type } from 'typebox';
import type { FastifyReply } from 'fastify';
import type { App, AppContext } from '../../app-context.ts';
import { SESSION_COOKIE } from '../../http/auth.ts';
import { AppError } from '../../errors.ts';
import { DeletedSchema, IdParams } from '../../http/schemas.ts';
import { OidcError, OidcRelyingParty } from '../../integrations/oidc/oidc-client.ts';
import {
  createGroupMapping,
  deleteGroupMapping,
  listGroupMappings,
  userIdentities,
} from './group-mappings.service.ts';
import { beginSignIn, finishSignIn } from './sign-in.service.ts';
import {
  CallbackQuery,
  CreateGroupMappingBody,
  GroupMappingSchema,
  LoginQuery,
  SsoSettingsSchema,
  UserIdentitiesSchema,
} from './sso.schema.ts';

/** Binds a started sign-in to the browser that started it (login CSRF); holds the `state`. */
const STATE_COOKIE = 'scanhub_oidc_state';
const STATE_COOKIE_PATH = '/api/auth/oidc';

export function ssoRoutes(app: App, { db, config }: AppContext): void {
  const secureCookies = config.trustProxy !== false;
  const relyingParty = config.oidc ? new OidcRelyingParty(config.oidc) : undefined;
  const publicUrl = config.publicUrl ?? '';

  /** Failures are shown by the sign-in page, which explains each word. */
  const toLoginPage = (reply: FastifyReply, failure: string) =>
    reply.redirect(`${publicUrl}/login?sso_error=${encodeURIComponent(failure)}`, 303);

  const requireRelyingParty = (): OidcRelyingParty => {
    if (!relyingParty)
      throw new AppError(404, 'sso_not_configured', 'Sign-in through an identity provider is not configured');
    return relyingParty;
  };

  app.get(
    '/api/auth/oidc/settings',
    {
      config: { access: 'public' },
      schema: {
        operationId: 'getSsoSettings',
        description:
          'Whether sign-in through an OpenID provider is on, its display name, and whether password sign-in is limited.',
        tags: ['auth'],
        summary: 'Single sign-on settings for the sign-in page',
        response: { 200: SsoSettingsSchema },
      },
    },
    async () => ({
      enabled: config.oidc !== undefined,
      provider_name: config.oidc?.providerName ?? null,
      login_url: config.oidc ? '/api/auth/oidc/login' : null,
      password_login: config.passwordLogin.mode,
    }),
  );

  app.get(
    '/api/auth/oidc/login',
    {
      config: { access: 'public' },
      schema: {
        operationId: 'startSsoLogin',
        description:
          'Redirects the browser to the provider (authorization code flow with PKCE, state and nonce). When the provider cannot be reached the browser goes back to `/login?sso_error=idp_unavailable`.',
        tags: ['auth'],
        summary: 'Start signing in through the OpenID provider (browser redirect)',
        querystring: LoginQuery,
      },
    },
    async (request, reply) => {
      const rp = requireRelyingParty();
      try {
        const { url, state } = await beginSignIn(db, rp, request.query.next);
        reply.setCookie(STATE_COOKIE, state, {
          path: STATE_COOKIE_PATH,
          httpOnly: true,
          // Lax: the provider's redirect back is a top-level GET navigation, which carries it.
          sameSite: 'lax',
          secure: secureCookies,
          maxAge: 600,
        });
        return reply.redirect(url.href, 303);
      } catch (error) {
        if (!(error instanceof OidcError)) throw error;
        request.log.warn(
          { sso: { failure: error.failure, detail: error.logDetail } },
          'OpenID sign-in could not start',
        );
        return toLoginPage(reply, error.failure);
      }
    },
  );

  app.get(
    '/api/auth/oidc/callback',
    {
      config: { access: 'public' },
      schema: {
        operationId: 'finishSsoLogin',
        description:
          'Where the provider sends the browser back. The state must match this browser’s and a pending sign-in (each is used once); the ID token is checked (signature against the provider’s keys, issuer, audience, expiry, nonce). On success a session cookie is set and the browser returns to where it started; on refusal it goes to `/login?sso_error=<reason>`.',
        tags: ['auth'],
        summary: 'OpenID provider redirect target (sets the session cookie)',
        querystring: CallbackQuery,
      },
    },
    async (request, reply) => {
      const rp = requireRelyingParty();
      const callbackUrl = new URL(rp.settings.redirectUri);
      callbackUrl.search = new URL(request.url, 'http://callback.invalid').search;
      const outcome = await finishSignIn(
        db,
        config,
        rp,
        callbackUrl,
        request.cookies[STATE_COOKIE],
        request.audit,
      );
      reply.clearCookie(STATE_COOKIE, { path: STATE_COOKIE_PATH });
      if (!outcome.ok) {
        // The failure word and the library's error code only: never the code, tokens or claims.
        request.log.warn(
          { sso: { failure: outcome.failure, detail: outcome.logDetail } },
          'OpenID sign-in refused',
        );
        return toLoginPage(reply, outcome.failure);
      }
      request.log.info({ sso: { userId: outcome.userId } }, 'OpenID sign-in');
      reply.setCookie(SESSION_COOKIE, outcome.session.sessionToken, {
        path: '/',
        httpOnly: true,
        sameSite: 'lax',
        secure: secureCookies,
        expires: outcome.session.expiresAt,
      });
      return reply.redirect(`${publicUrl}${outcome.returnTo}`, 303);
    },
  );

  app.get(
    '/api/auth/oidc/logout',
    {
      config: { access: 'public' },
      schema: {
        operationId: 'ssoLogout',
        description:
          'After `POST /api/auth/logout` has ended the scanhub session, sends the browser to the provider’s end-session endpoint (RP-initiated logout) when it has one, else to the sign-in page.',
        tags: ['auth'],
        summary: 'Sign out at the provider too (browser redirect)',
      },
    },
    async (request, reply) => {
      const signInPage = `${publicUrl}/login`;
      if (!relyingParty) return reply.redirect(signInPage, 303);
      try {
        const url = await relyingParty.endSessionUrl(signInPage);
        return reply.redirect(url?.href ?? signInPage, 303);
      } catch (error) {
        if (!(error instanceof OidcError)) throw error;
        request.log.warn(
          { sso: { failure: error.failure, detail: error.logDetail } },
          'OpenID logout skipped',
        );
        return reply.redirect(signInPage, 303);
      }
    },
  );

  app.get(
    '/api/sso/group-mappings',
    {
      config: { access: 'sso.manage' },
      schema: {
        operationId: 'listIdpGroupMappings',
        description: 'Every mapping of a provider group to a team and/or the admin role.',
        tags: ['sso'],
        summary: 'List identity provider group mappings',
        response: { 200: Type.Array(GroupMappingSchema) },
      },
    },
    async () => listGroupMappings(db),
  );

  app.post(
    '/api/sso/group-mappings',
    {
      config: { access: 'sso.manage' },
      schema: {
        operationId: 'createIdpGroupMapping',
        description:
          'Maps a provider group (a value of the groups claim, `OIDC_GROUPS_CLAIM`) to a team, to the admin role, or both. Takes effect at each member’s next sign-in.',
        tags: ['sso'],
        summary: 'Map a provider group to a team or the admin role',
        body: CreateGroupMappingBody,
        response: { 201: GroupMappingSchema },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await createGroupMapping(db, request.body, request.audit)),
  );

  app.delete(
    '/api/sso/group-mappings/:id',
    {
      config: { access: 'sso.manage' },
      schema: {
        operationId: 'deleteIdpGroupMapping',
        description: 'Removes a mapping; memberships it made go at each member’s next sign-in.',
        tags: ['sso'],
        summary: 'Delete an identity provider group mapping',
        params: IdParams,
        response: { 200: DeletedSchema },
      },
    },
    async (request) => ({
      id: await deleteGroupMapping(db, request.params.id, request.audit),
      deleted: true,
    }),
  );

  app.get(
    '/api/sso/users/:id/identities',
    {
      config: { access: 'sso.manage' },
      schema: {
        operationId: 'getUserIdentities',
        description:
          'A user’s links to the provider: the last sign-in’s claims (no tokens are stored), the groups they carried, the teams those map to now, and the teams the user is on by the provider.',
        tags: ['sso'],
        summary: 'Why a user is (not) on a team: last sign-in claims and mapped teams',
        params: IdParams,
        response: { 200: UserIdentitiesSchema },
      },
    },
    async (request) => userIdentities(db, config.oidc, request.params.id),
  );
}
