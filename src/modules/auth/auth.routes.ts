import { Type } from 'typebox';
import type { App, AppContext } from '../../app-context.ts';
import { csrfTokenFor, currentUser, SESSION_COOKIE } from '../../http/auth.ts';
import { AppError } from '../../errors.ts';
import { randomToken, sha256Hex } from '../../lib/secrets.ts';
import { normalizeEmail } from '../users/email.ts';
import { changeOwnPassword } from '../users/passwords.service.ts';
import { ChangePasswordBody, PasswordChangedSchema, UserSchema } from '../users/users.schema.ts';
import { getUser } from '../users/users.service.ts';
import { LoginBody } from './auth.schema.ts';
import { login, logout, logoutEverywhere } from './auth.service.ts';
import { signedInThroughProvider } from '../sso/identity.service.ts';
import { passwordLoginAllowed } from '../sso/sign-in.service.ts';
import { countLoginAttempt } from './login-throttle.ts';

const ANONYMOUS_CSRF_COOKIE = 'scanhub_csrf';

export function authRoutes(app: App, { db, config, secretKey }: AppContext): void {
  // Behind a proxy scanhub is reached over TLS (README: TRUST_PROXY).
  const secureCookies = config.trustProxy !== false;

  app.post(
    '/api/auth/login',
    {
      config: {
        access: 'public',
        // Sign-in budgets are counted in the database (login-throttle.ts), so all servers share them;
        // the global per-address limit applies as well.
      },
      // After the body is parsed, so the email can be part of the key; before validation, so
      // malformed attempts count too.
      preValidation: async (request, reply) => {
        const body = request.body as { email?: unknown } | undefined;
        const email = typeof body?.email === 'string' ? normalizeEmail(body.email) : '';
        const refusal = await countLoginAttempt(db, request.ip, email, config.rateLimit);
        if (refusal) {
          reply.header('retry-after', String(refusal.retryAfterSeconds));
          throw new AppError(429, 'rate_limited', refusal.detail);
        }
      },
      schema: {
        operationId: 'login',
        description:
          'Checks email and password and sets an httpOnly, SameSite=Lax session cookie. State-changing requests made with the cookie must carry `X-CSRF-Token` (see `getCsrfToken`). Attempts are counted, before the password is checked, per address and email, per address across emails and per email across addresses (over an hour); past a budget the answer is 429 with Retry-After, and the password is not checked.',
        tags: ['auth'],
        summary: 'Sign in; sets an httpOnly session cookie',
        body: LoginBody,
        response: { 200: Type.Object({ user: UserSchema, csrfToken: Type.String() }) },
      },
    },
    async (request, reply) => {
      if (!passwordLoginAllowed(config, request.body.email)) {
        throw new AppError(403, 'password_login_disabled', 'Sign in through the identity provider');
      }
      const result = await login(
        db,
        request.body.email,
        request.body.password,
        config.sessionTtlHours,
        request.audit,
      );
      reply.setCookie(SESSION_COOKIE, result.sessionToken, {
        path: '/',
        httpOnly: true,
        sameSite: 'lax',
        secure: secureCookies,
        expires: result.expiresAt,
      });
      return { user: result.user, csrfToken: csrfTokenFor(secretKey, result.sessionId) };
    },
  );

  app.post(
    '/api/auth/password',
    {
      config: {
        access: 'account.write',
        // Guessing the current password through this route is as limited as through login.
        rateLimit: {
          max: config.rateLimit.loginPerMinute,
          timeWindow: 60_000,
          hook: 'preHandler',
          keyGenerator: (request) => {
            const principal = request.principal;
            return `password:${principal?.kind === 'user' ? principal.id : request.ip}`;
          },
        },
      },
      schema: {
        operationId: 'changeOwnPassword',
        description:
          "Changes the caller's password after checking the current one. Every other session of the caller ends; API keys keep working unless `revoke_api_keys` is true (then every key of the caller is revoked with the change).",
        tags: ['auth'],
        summary: 'Change your own password; your other sessions end (API keys too if asked)',
        body: ChangePasswordBody,
        response: { 200: PasswordChangedSchema },
      },
    },
    async (request) => changeOwnPassword(db, currentUser(request), request.body, request.audit),
  );

  app.post(
    '/api/auth/logout',
    {
      config: { access: 'account.write' },
      schema: {
        operationId: 'logout',
        description: 'Ends the session the cookie names and clears the cookie.',
        tags: ['auth'],
        summary: 'End the current session',
      },
    },
    async (request, reply) => {
      const user = currentUser(request);
      if (user.sessionId) await logout(db, user.sessionId, request.audit);
      reply.clearCookie(SESSION_COOKIE, { path: '/' });
      return reply.status(204).send();
    },
  );

  app.post(
    '/api/auth/logout-all',
    {
      config: { access: 'account.write' },
      schema: {
        operationId: 'logoutEverywhere',
        description:
          "Ends every session of the caller, this one included, and clears the cookie. The caller's API keys keep working (they are revoked one by one).",
        tags: ['auth'],
        summary: 'Sign out everywhere: end all your sessions',
        response: { 200: Type.Object({ sessions_revoked: Type.Integer() }) },
      },
    },
    async (request, reply) => {
      const sessionsRevoked = await logoutEverywhere(db, currentUser(request).id, request.audit);
      reply.clearCookie(SESSION_COOKIE, { path: '/' });
      return { sessions_revoked: sessionsRevoked };
    },
  );

  app.get(
    '/api/auth/me',
    {
      config: { access: 'account.read' },
      schema: {
        operationId: 'getCurrentUser',
        description: 'The user the request is authenticated as (session or API key).',
        tags: ['auth'],
        summary: 'The signed-in user',
        response: {
          200: Type.Object({
            user: UserSchema,
            authenticated_by: Type.Enum(['session', 'api_key']),
            /** The identity provider that signs this user in (its display name), or null: their password is managed there. */
            identity_provider: Type.Union([Type.String(), Type.Null()]),
          }),
        },
      },
    },
    async (request) => {
      const user = currentUser(request);
      return {
        user: await getUser(db, user, String(user.id)),
        authenticated_by: user.via,
        identity_provider: await signedInThroughProvider(db, config.oidc, user.id),
      };
    },
  );

  app.get(
    '/api/csrf-token',
    {
      config: { access: 'public' },
      schema: {
        operationId: 'getCsrfToken',
        description:
          'The token a cookie-authenticated client sends as `X-CSRF-Token` on POST, PUT, PATCH and DELETE. Requests authenticated by API key or application token need none.',
        tags: ['auth'],
        summary: 'CSRF token for cookie-authenticated state-changing requests (header X-CSRF-Token)',
        response: { 200: Type.Object({ csrfToken: Type.String() }) },
      },
    },
    async (request, reply) => {
      const principal = request.principal;
      if (principal?.kind === 'user' && principal.sessionId) {
        return { csrfToken: csrfTokenFor(secretKey, principal.sessionId) };
      }
      // Before sign-in there is no session to bind to: bind to a throwaway cookie instead.
      const anonymous = request.cookies[ANONYMOUS_CSRF_COOKIE] ?? randomToken('', 24);
      reply.setCookie(ANONYMOUS_CSRF_COOKIE, anonymous, {
        path: '/',
        httpOnly: true,
        sameSite: 'lax',
        secure: secureCookies,
      });
      return { csrfToken: csrfTokenFor(secretKey, `anonymous:${sha256Hex(anonymous)}`) };
    },
  );
}
