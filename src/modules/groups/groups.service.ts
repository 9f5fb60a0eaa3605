import type { Kysely, Selectable } from 'kysely';
import { whereAccessible } from '../../access/access.ts';
import { isAdmin, type UserPrincipal } from '../../access/principal.ts';
import type { DB, GroupsTable } from '../../db/schema.ts';
import { recordAudit, type AuditContext } from '../../events/audit.ts';
import { conflict } from '../../errors.ts';
import { iso } from '../../http/schemas.ts';

export function presentGroup(row: Selectable<GroupsTable>) {
  return {
    id: row.id,
    name: row.name,
    path: row.path,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

/** Creates a group; its creator gets write on it. A taken path → 409 `group_path_taken`. */
export async function createGroup(
  db: Kysely<DB>,
  creator: UserPrincipal,
  input: { name: string; path: string },
  audit: AuditContext,
) {
  return db.transaction().execute(async (trx) => {
    const taken = await trx
      .selectFrom('groups')
      .select('id')
      .where('path', '=', input.path)
      .executeTakeFirst();
    if (taken) throw conflict('group_path_taken', `A group with path "${input.path}" already exists`);
    const row = await trx
      .insertInto('groups')
      .values({ name: input.name, path: input.path, created_by: creator.id })
      .returningAll()
      .executeTakeFirstOrThrow();
    if (!isAdmin(creator)) {
      await trx
        .insertInto('permission_policies')
        .values({ user_id: creator.id, group_id: row.id, action: 'write', created_by: creator.id })
        .execute();
    }
    await recordAudit(trx, audit, {
      action: 'group.created',
      target: { type: 'group', id: row.id, label: row.path },
      after: { name: row.name, path: row.path },
      ...(isAdmin(creator) ? {} : { details: { creator_granted: 'write' } }),
    });
    return presentGroup(row);
  });
}

export async function listGroups(db: Kysely<DB>, viewer: UserPrincipal) {
  const rows = await db
    .selectFrom('groups as g')
    .selectAll()
    .where(whereAccessible(viewer, 'group', 'read', 'g.id'))
    .orderBy('g.path')
    .execute();
  return rows.map(presentGroup);
}
