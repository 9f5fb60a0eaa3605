import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { systemAuditContext } from '../../events/audit.ts';
import { createUser } from './users.service.ts';

export interface BootstrapResult {
  email: string;
  /** Set only when the password was generated here; shown once, never stored in clear. */
  generatedPassword: string | null;
}

/** On an empty database, creates the first admin from config or with a generated password. */
export async function bootstrapAdmin(
  db: Kysely<DB>,
  admin: { email: string; password: string | undefined },
): Promise<BootstrapResult | null> {
  const existing = await db.selectFrom('users').select('id').limit(1).executeTakeFirst();
  if (existing) return null;
  const generatedPassword = admin.password ? null : randomBytes(18).toString('base64url');
  await createUser(
    db,
    {
      email: admin.email,
      name: 'Administrator',
      password: admin.password ?? generatedPassword ?? '',
      role: 'admin',
    },
    systemAuditContext('first start'),
  );
  return { email: admin.email, generatedPassword };
}
