import { hash } from '@node-rs/argon2';
import type { Kysely } from 'kysely';
import { parseId } from '../../access/access.ts';
import { isAdmin, type UserPrincipal } from '../../access/principal.ts';
import type { DB } from '../../db/schema.ts';
import { recordAudit, type AuditContext } from '../../events/audit.ts';
import { conflict, forbidden, notFound } from '../../errors.ts';
import { normalizeEmail } from './email.ts';
import { presentUser } from './users.presenter.ts';
import type { CreateUserInput, UpdateUserInput, UserRecord } from './users.schema.ts';

/** argon2id with the library's defaults (19 MiB, t=2), OWASP's recommended minimum. */
export const hashPassword = (password: string): Promise<string> => hash(password);

/** 409 `email_taken` when another user (not `exceptId`) has this normalized address. */
async function assertEmailFree(db: Kysely<DB>, email: string, exceptId?: number): Promise<void> {
  let query = db
    .selectFrom('users')
    .select('id')
    .where((eb) => eb(eb.fn('lower', ['email']), '=', email));
  if (exceptId !== undefined) query = query.where('id', '<>', exceptId);
  if (await query.executeTakeFirst())
    throw conflict('email_taken', `A user with email ${email} already exists`);
}

/** Creates a user; 409 `email_taken` when the address (normalized) is in use. */
export async function createUser(
  db: Kysely<DB>,
  input: CreateUserInput,
  audit: AuditContext,
): Promise<UserRecord> {
  const email = normalizeEmail(input.email);
  await assertEmailFree(db, email);
  const passwordHash = await hashPassword(input.password);
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .insertInto('users')
      .values({
        email,
        name: input.name ?? email.split('@')[0] ?? email,
        password_hash: passwordHash,
        role: input.role ?? 'member',
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await recordAudit(trx, audit, {
      action: 'user.created',
      target: { type: 'user', id: row.id, label: row.email },
      after: { email: row.email, name: row.name, role: row.role, disabled: row.disabled },
    });
    return presentUser(row);
  });
}

export async function listUsers(db: Kysely<DB>): Promise<UserRecord[]> {
  const rows = await db.selectFrom('users').selectAll().orderBy('id').execute();
  return rows.map(presentUser);
}

/** Admins see anyone; a member sees only themselves (others → 404). */
export async function getUser(db: Kysely<DB>, viewer: UserPrincipal, idParam: string): Promise<UserRecord> {
  const id = parseId(idParam);
  if (id === null || (!isAdmin(viewer) && id !== viewer.id)) throw notFound('User');
  const row = await db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) throw notFound('User');
  return presentUser(row);
}

/**
 * Changes a user, field by field from a whitelist: a member only their own `name` (another user is
 * a 404, as for reads; `role`, `disabled` or `email` a 403); an admin also `role`, `disabled` and
 * `email`. Disabling ends the user's sessions at once. The last active admin cannot be demoted or
 * disabled (409 `last_admin`), so an installation always keeps someone who can administer it.
 */
export async function updateUser(
  db: Kysely<DB>,
  viewer: UserPrincipal,
  idParam: string,
  input: UpdateUserInput,
  audit: AuditContext,
): Promise<UserRecord> {
  const id = parseId(idParam);
  if (id === null || (!isAdmin(viewer) && id !== viewer.id)) throw notFound('User');
  if (
    !isAdmin(viewer) &&
    (input.role !== undefined || input.disabled !== undefined || input.email !== undefined)
  )
    throw forbidden('Members may change only their own name');
  const email = input.email === undefined ? undefined : normalizeEmail(input.email);
  if (email !== undefined) await assertEmailFree(db, email, id);
  const changes = {
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(input.role !== undefined ? { role: input.role } : {}),
    ...(input.disabled !== undefined ? { disabled: input.disabled } : {}),
    ...(email !== undefined ? { email } : {}),
  };
  const demotes = input.role === 'member' || input.disabled === true;
  return db.transaction().execute(async (trx) => {
    const current = await trx
      .selectFrom('users')
      .selectAll()
      .where('id', '=', id)
      .forUpdate()
      .executeTakeFirst();
    if (!current) throw notFound('User');
    if (demotes && current.role === 'admin' && !current.disabled) {
      const others = await trx
        .selectFrom('users')
        .select('id')
        .where('role', '=', 'admin')
        .where('disabled', '=', false)
        .where('id', '<>', id)
        .limit(1)
        .executeTakeFirst();
      if (!others) throw conflict('last_admin', 'The last active admin cannot be demoted or disabled');
    }
    const row = await trx
      .updateTable('users')
      .set({ ...changes, updated_at: new Date() })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
    if (input.disabled) await trx.deleteFrom('sessions').where('user_id', '=', id).execute();
    const pick = (user: typeof row) => ({
      email: user.email,
      name: user.name,
      role: user.role,
      disabled: user.disabled,
    });
    if (JSON.stringify(pick(current)) !== JSON.stringify(pick(row))) {
      await recordAudit(trx, audit, {
        action: 'user.updated',
        target: { type: 'user', id: row.id, label: row.email },
        before: pick(current),
        after: pick(row),
      });
    }
    return presentUser(row);
  });
}
