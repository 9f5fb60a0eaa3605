import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { recordAudit, type AuditContext, type AuditEntry } from '../../events/audit.ts';
import { iso } from '../../http/schemas.ts';
import { ScimError, scimBadRequest, scimNotFound } from './scim-errors.ts';
import { filterCondition, idCondition, textValue, type FilterAttributes } from './scim-filter.ts';
import {
  listResponse,
  page,
  patched,
  projected,
  referencesByOwner,
  type ScimReference,
} from './scim-resource.ts';
import {
  GROUP_SCHEMA,
  ScimGroupBody,
  type ScimGroupInput,
  type ScimListQueryInput,
  type ScimPatchInput,
} from './scim.schema.ts';

/**
 * SCIM Groups over scanhub's teams (RFC 7643 §4.2). SCIM sees and changes only the teams it created
 * (`teams.scim_managed`): a team made in scanhub is never renamed, emptied or deleted by a
 * provisioning run, and a SCIM group may not take its name. Members are users by id; a group's
 * members are set to exactly what the provider says (memberships it adds are `source = 'scim'`).
 */

interface TeamRow {
  id: number;
  name: string;
  scim_external_id: string | null;
  created_at: Date;
  updated_at: Date;
}

const FILTERS: FilterAttributes = {
  displayname: (value) => sql`lower(teams.name) = ${textValue('displayName', value).toLowerCase()}`,
  externalid: (value) => sql`teams.scim_external_id = ${textValue('externalId', value)}`,
  id: (value) => idCondition(sql.ref('teams.id'), value),
  members: (value) =>
    sql`exists (select 1 from team_members where team_members.team_id = teams.id and ${idCondition(
      sql.ref('team_members.user_id'),
      value,
    )})`,
};

const managedTeams = (db: Kysely<DB>) =>
  db
    .selectFrom('teams')
    .select(['teams.id', 'teams.name', 'teams.scim_external_id', 'teams.created_at', 'teams.updated_at'])
    .where('teams.scim_managed', '=', true);

async function membersOf(db: Kysely<DB>, teamIds: number[]): Promise<Map<number, ScimReference[]>> {
  if (teamIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('team_members')
    .innerJoin('users', 'users.id', 'team_members.user_id')
    .select(['team_members.team_id as owner', 'users.id', 'users.name'])
    .where('team_members.team_id', 'in', teamIds)
    .orderBy('users.id')
    .execute();
  return referencesByOwner(rows);
}

function present(row: TeamRow, base: string, members: ScimReference[]): Record<string, unknown> {
  return {
    schemas: [GROUP_SCHEMA],
    id: String(row.id),
    ...(row.scim_external_id === null ? {} : { externalId: row.scim_external_id }),
    displayName: row.name,
    members: members.map((member) => ({ ...member, type: 'User', $ref: `${base}/Users/${member.value}` })),
    meta: {
      resourceType: 'Group',
      created: iso(row.created_at),
      lastModified: iso(row.updated_at),
      location: `${base}/Groups/${row.id}`,
    },
  };
}

async function findTeam(db: Kysely<DB>, idParam: string, lock = false): Promise<TeamRow> {
  const row = await managedTeams(db)
    .where(idCondition(sql.ref('teams.id'), idParam))
    .$if(lock, (query) => query.forUpdate())
    .executeTakeFirst();
  if (!row) throw scimNotFound('Group', idParam);
  return row;
}

async function presentOne(db: Kysely<DB>, row: TeamRow, base: string) {
  return present(row, base, (await membersOf(db, [row.id])).get(row.id) ?? []);
}

export async function getScimGroup(db: Kysely<DB>, base: string, idParam: string, query: ScimListQueryInput) {
  return projected(await presentOne(db, await findTeam(db, idParam), base), query);
}

export async function listScimGroups(db: Kysely<DB>, base: string, query: ScimListQueryInput) {
  const where = query.filter === undefined ? sql<boolean>`true` : filterCondition(query.filter, FILTERS);
  const { offset, limit, startIndex } = page(query);
  const total = await db
    .selectFrom('teams')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .where('teams.scim_managed', '=', true)
    .where(where)
    .executeTakeFirstOrThrow();
  const rows =
    limit === 0
      ? []
      : await managedTeams(db).where(where).orderBy('teams.id').offset(offset).limit(limit).execute();
  // Members are fetched only when the answer shows them (Entra ID asks with excludedAttributes=members).
  const showsMembers = Object.hasOwn(projected({ members: true }, query), 'members');
  const members = showsMembers
    ? await membersOf(
        db,
        rows.map((row) => row.id),
      )
    : new Map<number, ScimReference[]>();
  const resources = rows.map((row) => projected(present(row, base, members.get(row.id) ?? []), query));
  return listResponse(resources, Number(total.count), startIndex);
}

/** The member ids a body names; each must be a user SCIM can see (else a 400 naming it). */
async function memberIds(trx: Transaction<DB>, input: ScimGroupInput): Promise<number[]> {
  const wanted = [...new Set((input.members ?? []).map((member) => member.value))];
  if (wanted.length === 0) return [];
  const ids = wanted.map((value) => (/^[1-9][0-9]{0,9}$/.test(value) ? Number(value) : NaN));
  const bad = wanted.find(
    (_value, index) => !Number.isSafeInteger(ids[index]) || (ids[index] ?? 0) > 2_147_483_647,
  );
  if (bad !== undefined) throw scimBadRequest('invalidValue', `Member ${bad} is not a user id`);
  const found = await trx
    .selectFrom('users')
    .select('id')
    .where('id', 'in', ids)
    .where('scim_removed_at', 'is', null)
    .execute();
  const known = new Set(found.map((row) => row.id));
  const missing = ids.find((id) => !known.has(id));
  if (missing !== undefined) throw scimBadRequest('invalidValue', `Member ${missing} is not a user`);
  return ids;
}

async function assertNameFree(trx: Transaction<DB>, name: string, exceptId?: number): Promise<void> {
  const taken = await trx
    .selectFrom('teams')
    .select(['id', 'scim_managed'])
    .where((eb) => eb(eb.fn('lower', ['name']), '=', name.toLowerCase()))
    .$if(exceptId !== undefined, (query) => query.where('id', '<>', exceptId ?? 0))
    .executeTakeFirst();
  if (!taken) return;
  throw new ScimError(
    409,
    taken.scim_managed
      ? `A group named "${name}" already exists`
      : `A team made in scanhub is named "${name}"; SCIM manages only the teams it creates`,
    'uniqueness',
  );
}

/** Sets the team's members to exactly `userIds`; who joined and who left. */
async function setMembers(
  trx: Transaction<DB>,
  teamId: number,
  userIds: number[],
): Promise<{ added: number[]; removed: number[] }> {
  let removal = trx.deleteFrom('team_members').where('team_id', '=', teamId);
  if (userIds.length > 0) removal = removal.where('user_id', 'not in', userIds);
  const removed = (await removal.returning('user_id').execute()).map((row) => row.user_id);
  if (userIds.length === 0) return { added: [], removed };
  const added = await trx
    .insertInto('team_members')
    .values(
      userIds.map((userId) => ({
        team_id: teamId,
        user_id: userId,
        role: 'member',
        source: 'scim' as const,
      })),
    )
    .onConflict((oc) => oc.columns(['team_id', 'user_id']).doNothing())
    .returning('user_id')
    .execute();
  return { added: added.map((row) => row.user_id), removed };
}

/**
 * The audit rows of a provisioning change to a group (a team): the team's own row, then one per
 * membership it added or removed, as a hand-made change writes them. One statement, written last.
 */
async function auditGroupChange(
  trx: Transaction<DB>,
  audit: AuditContext,
  team: { id: number; name: string },
  teamEntry: AuditEntry | null,
  members: { added: number[]; removed: number[] },
): Promise<void> {
  const target = { type: 'team', id: team.id, label: team.name };
  await recordAudit(trx, audit, [
    ...(teamEntry ? [teamEntry] : []),
    ...members.added.map((userId) => ({
      action: 'team.member_added',
      target,
      details: { user_id: userId, role: 'member', source: 'scim' },
    })),
    ...members.removed.map((userId) => ({
      action: 'team.member_removed',
      target,
      details: { user_id: userId, source: 'scim' },
    })),
  ]);
}

function checkSchemas(input: ScimGroupInput): void {
  if (!input.schemas.includes(GROUP_SCHEMA))
    throw scimBadRequest('invalidSyntax', `schemas must list ${GROUP_SCHEMA}`);
}

export async function createScimGroup(
  db: Kysely<DB>,
  base: string,
  input: ScimGroupInput,
  audit: AuditContext,
) {
  checkSchemas(input);
  const id = await db.transaction().execute(async (trx) => {
    await assertNameFree(trx, input.displayName);
    const members = await memberIds(trx, input);
    const row = await trx
      .insertInto('teams')
      .values({ name: input.displayName, scim_managed: true, scim_external_id: input.externalId ?? null })
      .returning('id')
      .executeTakeFirstOrThrow();
    const changed = await setMembers(trx, row.id, members);
    await auditGroupChange(
      trx,
      audit,
      { id: row.id, name: input.displayName },
      {
        action: 'team.created',
        target: { type: 'team', id: row.id, label: input.displayName },
        after: { name: input.displayName, scim_external_id: input.externalId ?? null },
        details: { source: 'scim' },
      },
      changed,
    );
    return row.id;
  });
  return getScimGroup(db, base, String(id), {});
}

async function store(
  trx: Transaction<DB>,
  team: TeamRow,
  input: ScimGroupInput,
  audit: AuditContext,
): Promise<void> {
  checkSchemas(input);
  await assertNameFree(trx, input.displayName, team.id);
  const members = await memberIds(trx, input);
  await trx
    .updateTable('teams')
    .set({ name: input.displayName, scim_external_id: input.externalId ?? null, updated_at: new Date() })
    .where('id', '=', team.id)
    .execute();
  const changed = await setMembers(trx, team.id, members);
  const before = { name: team.name, scim_external_id: team.scim_external_id };
  const after = { name: input.displayName, scim_external_id: input.externalId ?? null };
  const renamed = JSON.stringify(before) !== JSON.stringify(after);
  await auditGroupChange(
    trx,
    audit,
    { id: team.id, name: input.displayName },
    renamed
      ? {
          action: 'team.updated',
          target: { type: 'team', id: team.id, label: input.displayName },
          before,
          after,
          details: { source: 'scim' },
        }
      : null,
    changed,
  );
}

export async function replaceScimGroup(
  db: Kysely<DB>,
  base: string,
  idParam: string,
  input: ScimGroupInput,
  audit: AuditContext,
) {
  await db.transaction().execute(async (trx) => store(trx, await findTeam(trx, idParam, true), input, audit));
  return getScimGroup(db, base, idParam, {});
}

export async function patchScimGroup(
  db: Kysely<DB>,
  base: string,
  idParam: string,
  body: ScimPatchInput,
  audit: AuditContext,
) {
  await db.transaction().execute(async (trx) => {
    const team = await findTeam(trx, idParam, true);
    const current = await presentOne(trx, team, base);
    await store(trx, team, patched<ScimGroupInput>(current, body, ScimGroupBody), audit);
  });
  return getScimGroup(db, base, idParam, {});
}

export async function deleteScimGroup(db: Kysely<DB>, idParam: string, audit: AuditContext): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const team = await findTeam(trx, idParam, true);
    const members = await trx
      .selectFrom('team_members')
      .select('user_id')
      .where('team_id', '=', team.id)
      .execute();
    await trx.deleteFrom('teams').where('id', '=', team.id).execute();
    await recordAudit(trx, audit, {
      action: 'team.deleted',
      target: { type: 'team', id: team.id, label: team.name },
      before: { name: team.name, scim_external_id: team.scim_external_id },
      details: { source: 'scim', members: members.length },
    });
  });
}
