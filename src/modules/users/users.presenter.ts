import type { Selectable } from 'kysely';
import type { UsersTable } from '../../db/schema.ts';
import { iso } from '../../http/schemas.ts';
import type { UserRecord } from './users.schema.ts';

/** The password hash never leaves this module's row type. */
export function presentUser(row: Selectable<UsersTable>): UserRecord {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    role: row.role,
    disabled: row.disabled,
    last_login_at: iso(row.last_login_at),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}
