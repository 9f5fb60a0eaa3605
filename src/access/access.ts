import { sql, type Expression, type Kysely, type SqlBool } from 'kysely';
import type { AccessAction, DB, Role } from '../db/schema.ts';
import { AppError, forbidden, notFound } from '../errors.ts';
import { publishedOnly } from '../domain/findings/unpublished-scans.ts';
import { isAdmin, type Principal, type UserPrincipal } from './principal.ts';
import { splitPermission, type AdminPermission } from './vocabulary.ts';

/**
 * Access, answered in one place. A user reaches an application through a grant to themselves or to
 * one of their teams, on the application, on its group, or on everything (an admin permission policy
 * with resource `*`). `write` implies `read`. Admins reach everything. An application token reads its
 * own application (its scans, findings and version comparisons, so CI can follow and gate its upload)
 * and writes nothing through these checks (it ingests through its own route).
 */

const ACCESS_RANK: Record<AccessAction, number> = { read: 1, write: 2 };

/** SQL for "the best grant `userId` holds on the application row aliased `app`": 0 none, 1 read, 2 write. */
function accessLevelSql(userId: number) {
  return sql<number>`coalesce((
    select max(case when p.action = 'write' then 2 else 1 end)
    from permission_policies p
    where (p.user_id = ${userId}
           or p.team_id in (select tm.team_id from team_members tm where tm.user_id = ${userId}))
      and (p.application_id = app.id
           or p.group_id = app.group_id
           or (p.application_id is null and p.group_id is null and p.resource is null))
  ), 0)`;
}

/** SQL for the level `principal` holds on the application row aliased `app`. */
function levelSql(principal: Principal) {
  if (principal.kind === 'application_token') {
    return sql<number>`case when app.id = ${principal.applicationId} then 1 else 0 end`;
  }
  return isAdmin(principal) ? sql<number>`2` : accessLevelSql(principal.id);
}

/**
 * SQL for a member's level on the group row aliased `g`: 2 with a write grant on the group (or
 * everything), 1 with a read grant there or any grant on one of its applications (so the group of a
 * readable application is visible).
 */
export function groupAccessLevelSql(userId: number) {
  return sql<number>`coalesce((
    select max(case when p.action = 'write' and p.application_id is null then 2 else 1 end)
    from permission_policies p
    where (p.user_id = ${userId}
           or p.team_id in (select tm.team_id from team_members tm where tm.user_id = ${userId}))
      and (p.group_id = g.id
           or (p.application_id is null and p.group_id is null and p.resource is null)
           or p.application_id in (select a.id from applications a where a.group_id = g.id))
  ), 0)`;
}

/**
 * Whether `user` may act on an administrative area (`scanner-types.update`, ...): admins always,
 * members through a permission policy on that resource and action, to themselves or a team.
 */
export async function holdsAdminPermission(
  db: Kysely<DB>,
  user: UserPrincipal,
  permission: AdminPermission,
): Promise<boolean> {
  if (isAdmin(user)) return true;
  const { resource, action } = splitPermission(permission);
  const row = await db
    .selectFrom('permission_policies as p')
    .select(sql<number>`1`.as('one'))
    .where('p.resource', '=', resource)
    .where('p.action', '=', action)
    .where((eb) =>
      eb.or([
        eb('p.user_id', '=', user.id),
        eb('p.team_id', 'in', eb.selectFrom('team_members').select('team_id').where('user_id', '=', user.id)),
      ]),
    )
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * A condition on an `applications` row aliased `app` (or on an application id column given as
 * `applicationIdColumn`) that holds when `user` may perform `action` on it. Use it in list queries so
 * members see only what they may read.
 */
export function canAccessApplication(
  principal: Principal,
  action: AccessAction,
  applicationIdColumn: string,
): Expression<SqlBool> {
  if (principal.kind === 'application_token') {
    return action === 'read'
      ? sql<SqlBool>`${sql.ref(applicationIdColumn)} = ${principal.applicationId}`
      : sql<SqlBool>`false`;
  }
  if (isAdmin(principal)) return sql<SqlBool>`true`;
  return sql<SqlBool>`${sql.ref(applicationIdColumn)} in (
    select app.id from applications app where ${accessLevelSql(principal.id)} >= ${ACCESS_RANK[action]}
  )`;
}

export interface ApplicationAccess {
  id: number;
  group_id: number;
  level: 0 | 1 | 2;
}

/** Access level of `principal` on each of `applicationIds`, in one query. */
export async function accessLevels(
  db: Kysely<DB>,
  principal: Principal,
  applicationIds: readonly number[],
): Promise<Map<number, ApplicationAccess>> {
  return levelsOn(db, levelSql(principal), applicationIds);
}

/**
 * Access level of a user who is not the caller (an assignee, a policy's target) on each of
 * `applicationIds`: asked about the account, never by building a principal for it.
 */
export async function userAccessLevels(
  db: Kysely<DB>,
  user: { id: number; role: Role },
  applicationIds: readonly number[],
): Promise<Map<number, ApplicationAccess>> {
  return levelsOn(db, user.role === 'admin' ? sql<number>`2` : accessLevelSql(user.id), applicationIds);
}

async function levelsOn(
  db: Kysely<DB>,
  level: ReturnType<typeof levelSql>,
  applicationIds: readonly number[],
): Promise<Map<number, ApplicationAccess>> {
  if (applicationIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('applications as app')
    .select(['app.id', 'app.group_id', level.as('level')])
    .where('app.id', 'in', [...applicationIds])
    .execute();
  return new Map(rows.map((row) => [row.id, { ...row, level: Number(row.level) as 0 | 1 | 2 }]));
}

/**
 * The one mapping from a level to an answer, for every resource: a caller who cannot read a thing
 * learns nothing about it (404, as if it did not exist); one who can read it but not do `action`
 * gets 403.
 */
export function requireLevel(
  level: number,
  action: AccessAction,
  what: string,
  forbiddenDetail?: string,
): void {
  if (level < ACCESS_RANK.read) throw notFound(what);
  if (level < ACCESS_RANK[action]) throw forbidden(forbiddenDetail);
}

const POSITIVE_INT = /^[1-9][0-9]{0,9}$/;

/** Parses a path id; anything that is not a positive integer names nothing (→ 404 by the caller). */
export function parseId(value: string): number | null {
  if (!POSITIVE_INT.test(value)) return null;
  const id = Number(value);
  return id <= 2_147_483_647 ? id : null;
}

/**
 * Resolves an application path parameter (id, or slug when unique among what the caller can read) and
 * checks access: unreadable → 404, readable but `write` needed → 403.
 */
export async function requireApplication(
  db: Kysely<DB>,
  principal: Principal,
  idOrSlug: string,
  action: AccessAction,
): Promise<{ id: number; group_id: number }> {
  const id = parseId(idOrSlug);
  const level = levelSql(principal);
  const candidates = await db
    .selectFrom('applications as app')
    .innerJoin('groups', 'groups.id', 'app.group_id')
    .select(['app.id', 'app.group_id', 'groups.path as group_path', level.as('level')])
    .$if(id !== null, (query) => query.where('app.id', '=', id ?? 0))
    .$if(id === null, (query) => query.where('app.slug', '=', idOrSlug))
    .execute();
  const readable = candidates.filter((candidate) => Number(candidate.level) >= ACCESS_RANK.read);
  if (readable.length === 0) throw notFound('Application');
  if (readable.length > 1) {
    throw new AppError(
      409,
      'ambiguous_slug',
      `Several applications use the slug "${idOrSlug}"; use the id or a group path`,
      {
        group_paths: readable.map((candidate) => candidate.group_path),
      },
    );
  }
  const [application] = readable as [(typeof readable)[number]];
  requireLevel(Number(application.level), action, 'Application');
  return { id: application.id, group_id: application.group_id };
}

/** SQL for the level `principal` holds on the group row aliased `g` (an application token: none). */
function groupLevelSql(principal: Principal) {
  if (principal.kind === 'application_token') return sql<number>`0`;
  return isAdmin(principal) ? sql<number>`2` : groupAccessLevelSql(principal.id);
}

/** Records that belong to one application, found by numeric id: the table that holds each. */
const APPLICATION_RECORDS = { finding: 'findings', scan: 'scans' } as const;

export type AccessTarget =
  | { kind: 'application'; ref: string }
  | { kind: 'group'; ref: string }
  | { kind: keyof typeof APPLICATION_RECORDS; ref: string };

export interface Resolved {
  id: number;
  group_id: number;
}

/** A record that belongs to one application (an application is its own). */
export interface ResolvedInApplication extends Resolved {
  application_id: number;
}

/**
 * The one access question every resource route asks: may `principal` do `action` on the record `target`
 * names? Applications are named by id or unique slug, groups by id or path, findings and scans by id;
 * each resolves to the application or group it belongs to, whose level is read in the same query.
 * Unknown or unreadable → 404, readable without the needed level → 403 (`requireLevel`).
 */
export async function requireAccess(
  db: Kysely<DB>,
  principal: Principal,
  target: Exclude<AccessTarget, { kind: 'group' }>,
  action: AccessAction,
): Promise<ResolvedInApplication>;
export async function requireAccess(
  db: Kysely<DB>,
  principal: Principal,
  target: AccessTarget,
  action: AccessAction,
): Promise<Resolved>;
export async function requireAccess(
  db: Kysely<DB>,
  principal: Principal,
  target: AccessTarget,
  action: AccessAction,
): Promise<Resolved | ResolvedInApplication> {
  if (target.kind === 'application') {
    const { id, group_id } = await requireApplication(db, principal, target.ref, action);
    return { id, application_id: id, group_id };
  }
  if (target.kind === 'group') {
    const id = parseId(target.ref);
    const row = await db
      .selectFrom('groups as g')
      .select(['g.id', groupLevelSql(principal).as('level')])
      .where((eb) =>
        id === null
          ? eb('g.path', '=', target.ref)
          : eb.or([eb('g.id', '=', id), eb('g.path', '=', target.ref)]),
      )
      .orderBy(sql`g.id = ${id ?? 0}`, 'desc')
      .executeTakeFirst();
    if (!row) throw notFound('Group');
    requireLevel(Number(row.level), action, 'Group', 'You need write permission on this group');
    return { id: row.id, group_id: row.id };
  }
  const what = target.kind === 'finding' ? 'Finding' : 'Scan';
  const id = parseId(target.ref);
  if (id === null) throw notFound(what);
  const row = await db
    .selectFrom(`${APPLICATION_RECORDS[target.kind]} as record` as 'findings as record')
    .innerJoin('applications as app', 'app.id', 'record.application_id')
    .select(['record.id', 'app.id as application_id', 'app.group_id', levelSql(principal).as('level')])
    .where('record.id', '=', id)
    .where((eb) => eb.and(target.kind === 'finding' ? publishedOnly(db, 'record.first_scan_id') : []))
    .executeTakeFirst();
  if (!row) throw notFound(what);
  requireLevel(Number(row.level), action, what);
  return { id: row.id, application_id: row.application_id, group_id: row.group_id };
}
