import { sql, type Kysely } from 'kysely';
import { ACCESS_RANK, applicationLevelSql, groupLevelSql } from '../../access/levels.ts';
import type { Principal } from '../../access/principal.ts';
import type { GroupRow, ResolvedApplication } from '../../access/resources.ts';
import type { AccessAction, DB } from '../../db/schema.ts';
import type { AccessEntry, AccessList } from './access-list.schema.ts';
import { parseSubject, type Grant } from './permissions.service.ts';

/**
 * The read and write grants reaching an application (its own, its group's, everything's) or a group
 * (its own, everything's), with the names they give access to. Admin-area policies are left out: they
 * grant no access to applications.
 */
async function entriesReaching(
  db: Kysely<DB>,
  target: { applicationId: number | null; groupId: number },
): Promise<AccessEntry[]> {
  const rows = await db
    .selectFrom('permission_policies as p')
    .leftJoin('users as u', 'u.id', 'p.user_id')
    .leftJoin('teams as t', 't.id', 'p.team_id')
    .leftJoin('groups as g', 'g.id', 'p.group_id')
    .select([
      'p.id',
      'p.user_id',
      'p.team_id',
      'p.application_id',
      'p.group_id',
      'p.action',
      'u.name as user_name',
      'u.email as user_email',
      't.name as team_name',
      'g.name as group_name',
      'g.path as group_path',
    ])
    .where('p.action', 'in', ['read', 'write'])
    .where((eb) =>
      eb.or([
        ...(target.applicationId === null ? [] : [eb('p.application_id', '=', target.applicationId)]),
        eb('p.group_id', '=', target.groupId),
        eb.and([
          eb('p.application_id', 'is', null),
          eb('p.group_id', 'is', null),
          eb('p.resource', 'is', null),
        ]),
      ]),
    )
    .orderBy(sql`case when p.application_id is not null then 0 when p.group_id is not null then 1 else 2 end`)
    .orderBy('p.id')
    .execute();
  return rows.map((row) => {
    const isUser = row.user_id !== null;
    const direct =
      target.applicationId === null ? row.group_id !== null : row.application_id === target.applicationId;
    return {
      permission_id: row.id,
      subject: isUser ? `user:${row.user_id}` : `team:${row.team_id}`,
      subject_kind: isUser ? 'user' : 'team',
      name: (isUser ? row.user_name : row.team_name) ?? '',
      email: isUser ? (row.user_email ?? null) : null,
      action: row.action as AccessAction,
      source: direct ? 'direct' : row.group_id !== null ? 'group' : 'everything',
      group:
        !direct && row.group_id !== null
          ? { id: row.group_id, name: row.group_name ?? '', path: row.group_path ?? '' }
          : null,
    };
  });
}

/** Who may read or write an application, and why (the route hook checked the caller reads it). */
export async function applicationAccessList(
  db: Kysely<DB>,
  caller: Principal,
  app: ResolvedApplication,
): Promise<AccessList> {
  const { level } = await db
    .selectFrom('applications as app')
    .select(applicationLevelSql(caller).as('level'))
    .where('app.id', '=', app.id)
    .executeTakeFirstOrThrow();
  return {
    entries: await entriesReaching(db, { applicationId: app.id, groupId: app.group_id }),
    can_administer: Number(level) >= ACCESS_RANK.write,
  };
}

/** Who may read or write the applications of a group through a grant on it (or on everything). */
export async function groupAccessList(
  db: Kysely<DB>,
  caller: Principal,
  group: GroupRow,
): Promise<AccessList> {
  const { level } = await db
    .selectFrom('groups as g')
    .select(groupLevelSql(caller).as('level'))
    .where('g.id', '=', group.id)
    .executeTakeFirstOrThrow();
  return {
    entries: await entriesReaching(db, { applicationId: null, groupId: group.id }),
    can_administer: Number(level) >= ACCESS_RANK.write,
  };
}

/** A read or write grant on a group (the route hook checked the caller writes it). */
export function groupGrant(group: GroupRow, body: { subject: string; action: AccessAction }): Grant {
  return {
    ...parseSubject(body.subject),
    application_id: null,
    group_id: group.id,
    resource: null,
    action: body.action,
  };
}
