import type { Kysely } from 'kysely';
import type { Config } from '../../config.ts';
import type { DB } from '../../db/schema.ts';
import { recordAudit, type AuditContext } from '../../events/audit.ts';
import { OidcError, type OidcRelyingParty } from '../../integrations/oidc/oidc-client.ts';
import { sha256Hex } from '../../lib/secrets.ts';
import { openSession, type LoginResult } from '../auth/auth.service.ts';
import { normalizeEmail } from '../users/email.ts';
import { resolveSignIn, SignInRefused } from './identity.service.ts';

/** A started sign-in must come back within this time. */
const PENDING_TTL_MS = 10 * 60 * 1000;

/** Only a path on this site (`/findings?x=1`), never `//other.host` or a scheme: no open redirect. */
export function safeReturnPath(next: string | undefined): string {
  if (!next || !next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) return '/';
  if (next.includes('\\') || [...next].some((char) => char.charCodeAt(0) < 0x20)) return '/';
  return next;
}

/**
 * Starts a sign-in: one pending row (PKCE verifier, nonce) keyed by the hash of `state`. The caller
 * binds `state` to the browser with a cookie, so a callback from another browser is refused.
 */
export async function beginSignIn(
  db: Kysely<DB>,
  relyingParty: OidcRelyingParty,
  next: string | undefined,
): Promise<{ url: URL; state: string }> {
  const start = await relyingParty.startAuthorization();
  await db.deleteFrom('oidc_pending_logins').where('expires_at', '<', new Date()).execute();
  await db
    .insertInto('oidc_pending_logins')
    .values({
      state_hash: sha256Hex(start.state),
      code_verifier: start.codeVerifier,
      nonce: start.nonce,
      return_to: safeReturnPath(next),
      expires_at: new Date(Date.now() + PENDING_TTL_MS),
    })
    .execute();
  return { url: start.url, state: start.state };
}

export type CallbackOutcome =
  | { ok: true; session: Omit<LoginResult, 'user'>; returnTo: string; userId: number }
  | { ok: false; failure: string; logDetail: string };

/**
 * Finishes a sign-in: the `state` in the URL must equal the browser's cookie and name a pending row,
 * which is deleted on the spot (a replayed callback finds none); then the code exchange and ID token
 * checks, the user and group mapping, and a session. Every refusal is an outcome, never a throw.
 */
export async function finishSignIn(
  db: Kysely<DB>,
  config: Config,
  relyingParty: OidcRelyingParty,
  callbackUrl: URL,
  cookieState: string | undefined,
  audit: AuditContext,
): Promise<CallbackOutcome> {
  const outcome = await finishVerifiedSignIn(db, config, relyingParty, callbackUrl, cookieState, audit);
  if (!outcome.ok) {
    // A refused sign-in commits nothing else: its record is a transaction of its own.
    await db.transaction().execute((trx) =>
      recordAudit(trx, audit, {
        action: 'auth.sign_in_failed',
        target: null,
        details: { method: 'sso', issuer: relyingParty.settings.issuer, reason: outcome.failure },
      }),
    );
  }
  return outcome;
}

async function finishVerifiedSignIn(
  db: Kysely<DB>,
  config: Config,
  relyingParty: OidcRelyingParty,
  callbackUrl: URL,
  cookieState: string | undefined,
  audit: AuditContext,
): Promise<CallbackOutcome> {
  const state = callbackUrl.searchParams.get('state');
  if (!state || !cookieState || state !== cookieState) {
    return { ok: false, failure: 'state_mismatch', logDetail: 'state absent or not this browser’s' };
  }
  const pending = await db
    .deleteFrom('oidc_pending_logins')
    .where('state_hash', '=', sha256Hex(state))
    .returningAll()
    .executeTakeFirst();
  if (!pending || pending.expires_at.getTime() < Date.now()) {
    return { ok: false, failure: 'state_mismatch', logDetail: 'no pending sign-in (replayed or expired)' };
  }
  try {
    const verified = await relyingParty.finishAuthorization(callbackUrl, {
      state,
      nonce: pending.nonce,
      codeVerifier: pending.code_verifier,
    });
    const outcome = await resolveSignIn(db, relyingParty.settings, verified, audit);
    const user = await db
      .selectFrom('users')
      .select('email')
      .where('id', '=', outcome.userId)
      .executeTakeFirstOrThrow();
    const session = await openSession(db, outcome.userId, config.sessionTtlHours, {
      audit: { ...audit, actor: { type: 'user', id: String(outcome.userId), label: user.email } },
      label: user.email,
      details: { method: 'sso', issuer: verified.issuer },
    });
    return { ok: true, session, returnTo: pending.return_to, userId: outcome.userId };
  } catch (error) {
    if (error instanceof OidcError) return { ok: false, failure: error.failure, logDetail: error.logDetail };
    if (error instanceof SignInRefused)
      return { ok: false, failure: error.refusal, logDetail: error.refusal };
    throw error;
  }
}

/** Whether a password sign-in for `email` is allowed (PASSWORD_LOGIN=break_glass_only limits it). */
export function passwordLoginAllowed(config: Config, email: string): boolean {
  if (config.passwordLogin.mode === 'enabled') return true;
  return config.passwordLogin.breakGlassEmails.includes(normalizeEmail(email));
}
