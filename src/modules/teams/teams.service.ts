import type { Kysely } from 'kysely';
import { parseId } from '../../access/access.ts';
import { isAdmin, type UserPrincipal } from '../../access/principal.ts';
import type { DB } from '../../db/schema.ts';
import { recordAudit, type AuditContext } from '../../events/audit.ts';
import { badRequest, conflict, notFound } from '../../errors.ts';
import { iso } from '../../http/schemas.ts';

async function membersOf(db: Kysely<DB>, teamIds: number[]) {
  if (teamIds.length === 0) return [];
  const rows = await db
    .selectFrom('team_members')
    .innerJoin('users', 'users.id', 'team_members.user_id')
    .select([
      'team_members.team_id',
      'team_members.user_id',
      'users.email',
      'users.name',
      'team_members.role',
      'team_members.created_at',
    ])
    .where('team_members.team_id', 'in', teamIds)
    .orderBy('team_members.user_id')
    .execute();
  return rows.map((row) => ({ ...row, created_at: iso(row.created_at) }));
}

async function presentTeams(
  db: Kysely<DB>,
  rows: { id: number; name: string; created_at: Date; updated_at: Date }[],
) {
  const members = await membersOf(
    db,
    rows.map((row) => row.id),
  );
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    members: members.filter((member) => member.team_id === row.id),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  }));
}

export async function createTeam(db: Kysely<DB>, name: string, audit: AuditContext) {
  const exists = await db.selectFrom('teams').select('id').where('name', '=', name).executeTakeFirst();
  if (exists) throw conflict('team_name_taken', `A team named "${name}" already exists`);
  const row = await db.transaction().execute(async (trx) => {
    const inserted = await trx.insertInto('teams').values({ name }).returningAll().executeTakeFirstOrThrow();
    await recordAudit(trx, audit, {
      action: 'team.created',
      target: { type: 'team', id: inserted.id, label: inserted.name },
      after: { name: inserted.name },
    });
    return inserted;
  });
  const [team] = await presentTeams(db, [row]);
  if (!team) throw new Error('a created team must present');
  return team;
}

/** Admins see every team; members see the teams they belong to. */
export async function listTeams(db: Kysely<DB>, viewer: UserPrincipal) {
  const rows = await db
    .selectFrom('teams')
    .selectAll()
    .$if(!isAdmin(viewer), (query) =>
      query.where('id', 'in', (eb) =>
        eb.selectFrom('team_members').select('team_id').where('user_id', '=', viewer.id),
      ),
    )
    .orderBy('id')
    .execute();
  return presentTeams(db, rows);
}

export async function getTeam(db: Kysely<DB>, viewer: UserPrincipal, idParam: string) {
  const teams = await listTeams(db, viewer);
  const team = teams.find((candidate) => candidate.id === parseId(idParam));
  if (!team) throw notFound('Team');
  return team;
}

function userIdFrom(body: { user_id?: number | string | undefined }): number {
  const raw = body.user_id;
  const id = raw === undefined ? null : parseId(String(raw));
  if (id === null) {
    throw badRequest('validation_failed', 'user_id must be a positive integer', [
      { path: 'body.user_id', message: 'must be a positive integer' },
    ]);
  }
  return id;
}

export async function addTeamMember(
  db: Kysely<DB>,
  teamIdParam: string,
  body: {
    user_id?: number | string | undefined;
    userId?: number | string | undefined;
    role?: string | undefined;
  },
  audit: AuditContext,
) {
  const userId = userIdFrom(body);
  const teamId = parseId(teamIdParam);
  const team =
    teamId === null
      ? undefined
      : await db.selectFrom('teams').select('id').where('id', '=', teamId).executeTakeFirst();
  if (!team) throw notFound('Team');
  const user = await db.selectFrom('users').select('id').where('id', '=', userId).executeTakeFirst();
  if (!user) throw notFound('User');
  await db.transaction().execute(async (trx) => {
    const inserted = await trx
      .insertInto('team_members')
      .values({ team_id: team.id, user_id: userId, role: body.role ?? 'member' })
      .onConflict((oc) => oc.doNothing())
      .returningAll()
      .executeTakeFirst();
    if (!inserted) throw conflict('already_member', `User ${userId} is already a member of team ${team.id}`);
    await recordAudit(trx, audit, {
      action: 'team.member_added',
      target: { type: 'team', id: team.id },
      details: { user_id: userId, role: inserted.role, source: 'manual' },
    });
  });
  const member = (await membersOf(db, [team.id])).find((candidate) => candidate.user_id === userId);
  if (!member) throw new Error('an added member must be listed');
  return member;
}

export async function removeTeamMember(
  db: Kysely<DB>,
  teamIdParam: string,
  userIdParam: string,
  audit: AuditContext,
): Promise<void> {
  const teamId = parseId(teamIdParam);
  const userId = parseId(userIdParam);
  if (teamId === null) throw notFound('Team');
  const team = await db.selectFrom('teams').select('id').where('id', '=', teamId).executeTakeFirst();
  if (!team) throw notFound('Team');
  if (userId === null) throw notFound('Team member');
  await db.transaction().execute(async (trx) => {
    const removed = await trx
      .deleteFrom('team_members')
      .where('team_id', '=', teamId)
      .where('user_id', '=', userId)
      .returning(['user_id', 'role', 'source'])
      .executeTakeFirst();
    if (!removed) throw notFound('Team member');
    await recordAudit(trx, audit, {
      action: 'team.member_removed',
      target: { type: 'team', id: teamId },
      details: { user_id: userId, role: removed.role, source: removed.source },
    });
  });
}
