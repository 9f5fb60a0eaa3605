import { hash } from '@node-rs/argon2';
import type { Kysely } from 'kysely';
import { parseId } from '../../access/access.ts';
import { isAdmin, type UserPrincipal } from '../../access/principal.ts';
import type { DB } from '../../db/schema.ts';
import { conflict, notFound } from '../../http/errors.ts';
import { presentUser } from './users.presenter.ts';
import type { CreateUserInput, UpdateUserInput, UserRecord } from './users.schema.ts';

/** argon2id with the library's defaults (19 MiB, t=2), OWASP's recommended minimum. */
export const hashPassword = (password: string): Promise<string> => hash(password);

/** Creates a user; 409 `email_taken` when the address (case-insensitive) is in use. */
export async function createUser(db: Kysely<DB>, input: CreateUserInput): Promise<UserRecord> {
  const email = input.email.trim();
  const taken = await db
    .selectFrom('users')
    .select('id')
    .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
    .executeTakeFirst();
  if (taken) throw conflict('email_taken', `A user with email ${email} already exists`);
  const row = await db
    .insertInto('users')
    .values({
      email,
      name: input.name ?? email.split('@')[0] ?? email,
      password_hash: await hashPassword(input.password),
      role: input.role ?? 'member',
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return presentUser(row);
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

/** Changes name, role or disabled; disabling ends the user's sessions at once. */
export async function updateUser(
  db: Kysely<DB>,
  idParam: string,
  input: UpdateUserInput,
): Promise<UserRecord> {
  const id = parseId(idParam);
  if (id === null) throw notFound('User');
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .updateTable('users')
      .set({ ...input, updated_at: new Date() })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
    if (!row) throw notFound('User');
    if (input.disabled) await trx.deleteFrom('sessions').where('user_id', '=', id).execute();
    return presentUser(row);
  });
}
