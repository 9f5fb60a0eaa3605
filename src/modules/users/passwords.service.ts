import { verify } from '@node-rs/argon2';
import type { Kysely } from 'kysely';
import { parseId } from '../../access/access.ts';
import type { UserPrincipal } from '../../access/principal.ts';
import type { DB } from '../../db/schema.ts';
import { recordAudit, type AuditContext } from '../../events/audit.ts';
import { badRequest, notFound } from '../../errors.ts';
import { normalizeEmail } from './email.ts';
import type { ChangePasswordInput, PasswordChanged, ResetPasswordInput } from './users.schema.ts';
import { hashPassword } from './users.service.ts';

/**
 * Stores a new password hash and ends the user's sessions, except `keepSessionId` (the session that
 * made the change). API keys stay valid unless `revokeApiKeys`: they are separate credentials with
 * their own revocation, but one made by whoever knew the old password would outlive the change.
 */
async function storePassword(
  db: Kysely<DB>,
  userId: number,
  password: string,
  audit: AuditContext,
  action: 'user.password_changed' | 'user.password_reset',
  keepSessionId?: string,
  revokeApiKeys = false,
): Promise<PasswordChanged> {
  const passwordHash = await hashPassword(password);
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .updateTable('users')
      .set({ password_hash: passwordHash, updated_at: new Date() })
      .where('id', '=', userId)
      .returning(['id', 'email'])
      .executeTakeFirst();
    if (!row) throw notFound('User');
    let revoke = trx.deleteFrom('sessions').where('user_id', '=', userId);
    if (keepSessionId) revoke = revoke.where('id', '<>', keepSessionId);
    const revoked = await revoke.executeTakeFirst();
    const now = new Date();
    const keys = revokeApiKeys
      ? await trx
          .updateTable('api_keys')
          .set({ revoked_at: now, updated_at: now })
          .where('user_id', '=', userId)
          .where('revoked_at', 'is', null)
          .executeTakeFirst()
      : undefined;
    const result = {
      id: row.id,
      sessions_revoked: Number(revoked.numDeletedRows),
      api_keys_revoked: Number(keys?.numUpdatedRows ?? 0),
    };
    // Never the password or its hash: that it changed, and what ended with it.
    await recordAudit(trx, audit, {
      action,
      target: { type: 'user', id: row.id, label: row.email },
      details: { sessions_ended: result.sessions_revoked, api_keys_revoked: result.api_keys_revoked },
    });
    return result;
  });
}

/**
 * The signed-in user changes their own password: the current one must be right (400
 * `wrong_password` otherwise, nothing changes); every other session of theirs ends.
 */
export async function changeOwnPassword(
  db: Kysely<DB>,
  user: UserPrincipal,
  input: ChangePasswordInput,
  audit: AuditContext,
): Promise<PasswordChanged> {
  const current = input.current_password;
  const next = input.new_password;
  const row = await db
    .selectFrom('users')
    .select('password_hash')
    .where('id', '=', user.id)
    .executeTakeFirst();
  if (!row) throw notFound('User');
  const valid = await verify(row.password_hash, current).catch(() => false);
  if (!valid) {
    throw badRequest('wrong_password', 'The current password is not correct', [
      { path: 'body.current_password', message: 'is not correct' },
    ]);
  }
  return storePassword(
    db,
    user.id,
    next,
    audit,
    'user.password_changed',
    user.sessionId,
    input.revoke_api_keys,
  );
}

/** An admin sets a user's password; all of that user's sessions end (but the admin's own). */
export async function resetPassword(
  db: Kysely<DB>,
  admin: UserPrincipal,
  idParam: string,
  input: ResetPasswordInput,
  audit: AuditContext,
): Promise<PasswordChanged> {
  const id = parseId(idParam);
  if (id === null) throw notFound('User');
  return storePassword(
    db,
    id,
    input.new_password,
    audit,
    'user.password_reset',
    admin.sessionId,
    input.revoke_api_keys,
  );
}

/** `scanhub users set-password`: sets the password of the user with this email. */
export async function setPasswordByEmail(
  db: Kysely<DB>,
  email: string,
  password: string,
  audit: AuditContext,
): Promise<PasswordChanged & { email: string }> {
  const normalized = normalizeEmail(email);
  const row = await db
    .selectFrom('users')
    .select('id')
    .where((eb) => eb(eb.fn('lower', ['email']), '=', normalized))
    .executeTakeFirst();
  if (!row) throw notFound(`User ${normalized}`);
  return { ...(await storePassword(db, row.id, password, audit, 'user.password_reset')), email: normalized };
}
