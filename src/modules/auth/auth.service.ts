import { verify } from '@node-rs/argon2';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { recordAudit, type AuditContext } from '../../events/audit.ts';
import { unauthorized } from '../../errors.ts';
import { randomToken, sha256Hex } from '../../lib/secrets.ts';
import { normalizeEmail } from '../users/email.ts';
import { presentUser } from '../users/users.presenter.ts';
import type { UserRecord } from '../users/users.schema.ts';

/** A real hash of a random password, verified against when the email is unknown, so timing says nothing. */
const DECOY_HASH =
  '$argon2id$v=19$m=19456,t=2,p=1$Qk/TC3zVyfimm2kl9ES1Zg$6IqlzAGv8qkC6BI82ylZwGoxGJ5yPjkUtFoiin41vWQ';

export interface LoginResult {
  user: UserRecord;
  /** Raw cookie value; only its hash is stored. */
  sessionToken: string;
  sessionId: string;
  expiresAt: Date;
}

/** Checks the password and opens a database-backed session. Wrong email or password → 401. */
export async function login(
  db: Kysely<DB>,
  email: string,
  password: string,
  ttlHours: number,
  audit: AuditContext,
): Promise<LoginResult> {
  const row = await db
    .selectFrom('users')
    .selectAll()
    .where((eb) => eb(eb.fn('lower', ['email']), '=', normalizeEmail(email)))
    .executeTakeFirst();
  const valid = await verify(row?.password_hash ?? DECOY_HASH, password).catch(() => false);
  if (!row || !valid || row.disabled) {
    // The failure is the record: its own transaction, since nothing else commits. The address
    // tried, never the password; which of the three failed stays out of the answer but not here.
    await db.transaction().execute((trx) =>
      recordAudit(trx, audit, {
        action: 'auth.sign_in_failed',
        target: { type: 'user', id: row?.id ?? null, label: normalizeEmail(email) },
        details: {
          method: 'password',
          reason: !row ? 'unknown_email' : !valid ? 'wrong_password' : 'disabled',
        },
      }),
    );
    throw unauthorized('Invalid email or password');
  }

  const session = await openSession(db, row.id, ttlHours, {
    audit: { ...audit, actor: { type: 'user', id: String(row.id), label: row.email } },
    label: row.email,
    details: { method: 'password' },
  });
  return { user: presentUser({ ...row, last_login_at: new Date() }), ...session };
}

/**
 * Opens a database-backed session for a user whose identity is already proven (password here, an
 * OpenID provider in modules/sso), clears their expired ones and stamps `last_login_at`.
 */
export async function openSession(
  db: Kysely<DB>,
  userId: number,
  ttlHours: number,
  signIn: { audit: AuditContext; label: string; details: Record<string, unknown> },
): Promise<Omit<LoginResult, 'user'>> {
  const sessionToken = randomToken('', 32);
  const sessionId = sha256Hex(sessionToken);
  const expiresAt = new Date(Date.now() + ttlHours * 3_600_000);
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('sessions')
      .values({ id: sessionId, user_id: userId, expires_at: expiresAt })
      .execute();
    await trx
      .deleteFrom('sessions')
      .where('user_id', '=', userId)
      .where('expires_at', '<', new Date())
      .execute();
    await trx.updateTable('users').set({ last_login_at: new Date() }).where('id', '=', userId).execute();
    await recordAudit(trx, signIn.audit, {
      action: 'auth.signed_in',
      target: { type: 'user', id: userId, label: signIn.label },
      details: signIn.details,
    });
  });
  return { sessionToken, sessionId, expiresAt };
}

export async function logout(db: Kysely<DB>, sessionId: string, audit: AuditContext): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const ended = await trx
      .deleteFrom('sessions')
      .where('id', '=', sessionId)
      .returning('user_id')
      .executeTakeFirst();
    if (!ended) return;
    await recordAudit(trx, audit, {
      action: 'auth.signed_out',
      target: { type: 'user', id: ended.user_id, label: audit.actor.label },
      details: { sessions_ended: 1 },
    });
  });
}

/** Ends every session of `userId` (every browser they are signed in on); API keys are kept. */
export async function logoutEverywhere(db: Kysely<DB>, userId: number, audit: AuditContext): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const result = await trx.deleteFrom('sessions').where('user_id', '=', userId).executeTakeFirst();
    const ended = Number(result.numDeletedRows);
    await recordAudit(trx, audit, {
      action: 'auth.signed_out',
      target: { type: 'user', id: userId, label: audit.actor.label },
      details: { sessions_ended: ended, everywhere: true },
    });
    return ended;
  });
}
