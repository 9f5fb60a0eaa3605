import type { Kysely } from 'kysely';
import { parseId } from '../../access/access.ts';
import type { DB } from '../../db/schema.ts';
import { recordAudit, type AuditContext } from '../../events/audit.ts';
import { badRequest, conflict, notFound } from '../../errors.ts';
import { iso } from '../../http/schemas.ts';
import type { OidcConfig } from '../../config.ts';
import { groupsFromClaim, mappedTargets } from './identity.service.ts';
import type { CreateGroupMappingInput, GroupMappingRecord } from './sso.schema.ts';

function mappingsQuery(db: Kysely<DB>) {
  return db
    .selectFrom('idp_group_mappings')
    .leftJoin('teams', 'teams.id', 'idp_group_mappings.team_id')
    .select([
      'idp_group_mappings.id',
      'idp_group_mappings.idp_group',
      'idp_group_mappings.team_id',
      'teams.name as team_name',
      'idp_group_mappings.grants_admin',
      'idp_group_mappings.created_at',
    ]);
}

function present(row: Omit<GroupMappingRecord, 'created_at'> & { created_at: Date }): GroupMappingRecord {
  return { ...row, created_at: iso(row.created_at) };
}

export async function listGroupMappings(db: Kysely<DB>): Promise<GroupMappingRecord[]> {
  const rows = await mappingsQuery(db)
    .orderBy('idp_group_mappings.idp_group')
    .orderBy('idp_group_mappings.id')
    .execute();
  return rows.map(present);
}

/** 400 when it maps to nothing, 404 for an unknown team, 409 when the same mapping exists. */
export async function createGroupMapping(
  db: Kysely<DB>,
  input: CreateGroupMappingInput,
  audit: AuditContext,
): Promise<GroupMappingRecord> {
  const teamId = input.team_id ?? null;
  const grantsAdmin = input.grants_admin ?? false;
  if (teamId === null && !grantsAdmin) {
    throw badRequest('mapping_target_missing', 'A mapping needs a team_id, grants_admin: true, or both');
  }
  if (teamId !== null) {
    const team = await db.selectFrom('teams').select('id').where('id', '=', teamId).executeTakeFirst();
    if (!team) throw notFound('Team');
  }
  const same = await db
    .selectFrom('idp_group_mappings')
    .select('id')
    .where('idp_group', '=', input.idp_group)
    .where((eb) => (teamId === null ? eb('team_id', 'is', null) : eb('team_id', '=', teamId)))
    .executeTakeFirst();
  if (same)
    throw conflict('mapping_exists', `Group "${input.idp_group}" already maps there (mapping ${same.id})`);
  const row = await db.transaction().execute(async (trx) => {
    const inserted = await trx
      .insertInto('idp_group_mappings')
      .values({ idp_group: input.idp_group, team_id: teamId, grants_admin: grantsAdmin })
      .returning('id')
      .executeTakeFirstOrThrow();
    await recordAudit(trx, audit, {
      action: 'sso.group_mapping_created',
      target: { type: 'idp_group_mapping', id: inserted.id, label: input.idp_group },
      after: { idp_group: input.idp_group, team_id: teamId, grants_admin: grantsAdmin },
    });
    return inserted;
  });
  const created = await mappingsQuery(db)
    .where('idp_group_mappings.id', '=', row.id)
    .executeTakeFirstOrThrow();
  return present(created);
}

/** Takes effect at each user's next sign-in (memberships are set then). */
export async function deleteGroupMapping(
  db: Kysely<DB>,
  idParam: string,
  audit: AuditContext,
): Promise<number> {
  const id = parseId(idParam);
  if (id === null) throw notFound('Group mapping');
  return db.transaction().execute(async (trx) => {
    const deleted = await trx
      .deleteFrom('idp_group_mappings')
      .where('id', '=', id)
      .returning(['idp_group', 'team_id', 'grants_admin'])
      .executeTakeFirst();
    if (!deleted) throw notFound('Group mapping');
    await recordAudit(trx, audit, {
      action: 'sso.group_mapping_deleted',
      target: { type: 'idp_group_mapping', id, label: deleted.idp_group },
      before: { ...deleted },
    });
    return id;
  });
}

/** The admin's view of a user's provider links: last claims, groups, and what they map to now. */
export async function userIdentities(db: Kysely<DB>, settings: OidcConfig | undefined, idParam: string) {
  const userId = parseId(idParam);
  if (userId === null) throw notFound('User');
  const user = await db.selectFrom('users').select('id').where('id', '=', userId).executeTakeFirst();
  if (!user) throw notFound('User');
  const rows = await db
    .selectFrom('user_identities')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('id')
    .execute();
  const idpTeams = await db
    .selectFrom('team_members')
    .innerJoin('teams', 'teams.id', 'team_members.team_id')
    .select(['teams.id', 'teams.name'])
    .where('team_members.user_id', '=', userId)
    .where('team_members.source', '=', 'idp')
    .orderBy('teams.id')
    .execute();
  const identities = [];
  for (const row of rows) {
    const groups = groupsFromClaim(row.last_claims[settings?.claims.groups ?? 'groups']);
    const targets = await mappedTargets(db, groups);
    const mappedTeams =
      targets.teamIds.length === 0
        ? []
        : await db
            .selectFrom('teams')
            .select(['id', 'name'])
            .where('id', 'in', targets.teamIds)
            .orderBy('id')
            .execute();
    identities.push({
      issuer: row.issuer,
      subject: row.subject,
      last_login_at: iso(row.last_login_at),
      claims: row.last_claims,
      groups,
      mapped_teams: mappedTeams,
      maps_to_admin: targets.admin,
      idp_teams: idpTeams,
      admin_from_idp: row.admin_from_idp,
    });
  }
  return { user_id: userId, identities };
}
