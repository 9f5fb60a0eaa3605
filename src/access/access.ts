import { sql, type Expression, type Kysely, type SqlBool } from 'kysely';
import type { AccessAction, DB, Role } from '../db/schema.ts';
import { AppError, forbidden, notFound } from '../errors.ts';
import { isAdmin, type UserPrincipal, type Principal } from './principal.ts';
import { ACCESS_RANK, readsWholeGroupSql, userApplicationLevelSql } from './levels.ts';
import {
  RESOURCES,
  type RecordOf,
  type RefOf,
  type ResourceKind,
  type ResourceKindName,
} from './resources.ts';
import { splitPermission, type AdminPermission } from './vocabulary.ts';

export { parseId } from './levels.ts';

/**
 * Access, answered in one place. `authorize` is the one question every resource asks — may this
 * caller do `action` on the records these references name? — for every kind a route can declare
 * (src/access/resources.ts). The route hook (src/access/route-hook.ts) asks it for the resource a
 * route's path names before the handler runs; a service asks it for references a body or query
 * carries (a policy's scope, the ids of a bulk change). A caller who cannot read a thing learns
 * nothing about it (404, as if it did not exist); one who can read it but not do `action` gets 403.
 */

/**
 * How refusals read: `each` answers for the first refused reference (`Finding not found`); `ids`
 * lists every refused id (`{ ids: [...] }`), for changes to many findings at once.
 */
export type AccessReport = 'each' | 'ids';

/**
 * Resolves `refs` of `kind` in one query and checks the caller may `action` on each, all or
 * nothing: unknown or unreadable → 404, readable without the level → 403, an ambiguous slug → 409.
 * Returns the records in the order of `refs`.
 */
export async function authorize<K extends ResourceKindName>(
  db: Kysely<DB>,
  principal: Principal,
  kind: K,
  refs: readonly RefOf<K>[],
  action: AccessAction,
  report: AccessReport = 'each',
): Promise<RecordOf<K>[]> {
  if (refs.length === 0) return [];
  const spec = RESOURCES[kind] as unknown as ResourceKind<RefOf<K>, RecordOf<K>>;
  if (report === 'ids' && refs.some((ref) => typeof ref !== 'number')) throw notFound(spec.what);
  const candidates = await spec.resolve(db, principal, refs);
  if (report === 'ids') {
    const missing = refs.filter((_ref, index) => {
      const candidate = candidates[index];
      return !candidate || candidate.level < ACCESS_RANK.read || candidate.record === undefined;
    });
    if (missing.length > 0) {
      throw new AppError(404, 'not_found', `${spec.what}${refs.length > 1 ? 's' : ''} not found`, {
        ids: missing,
      });
    }
    const readOnly = refs
      .filter((_ref, index) => (candidates[index]?.level ?? 0) < ACCESS_RANK[action])
      .map(Number)
      .sort((a, b) => a - b);
    if (readOnly.length > 0) {
      throw new AppError(
        403,
        'forbidden',
        `You may read but not change ${spec.what.toLowerCase()}(s) ${readOnly.join(', ')}`,
        { ids: readOnly },
      );
    }
  }
  return candidates.map((candidate) => {
    if (!candidate || candidate.level < ACCESS_RANK.read) throw notFound(spec.scopeWhat ?? spec.what);
    if (candidate.conflict) throw candidate.conflict;
    if (candidate.level < ACCESS_RANK[action]) throw forbidden(candidate.forbidden);
    if (candidate.record === undefined) throw notFound(spec.what);
    return candidate.record;
  });
}

/** `authorize` for one reference. */
export async function authorizeOne<K extends ResourceKindName>(
  db: Kysely<DB>,
  principal: Principal,
  kind: K,
  ref: RefOf<K>,
  action: AccessAction,
): Promise<RecordOf<K>> {
  const [record] = await authorize(db, principal, kind, [ref], action);
  return record as RecordOf<K>;
}

/** Kinds that list queries filter on. */
type ListedKind = 'application' | 'group' | 'policy' | 'sla_configuration' | 'acceptance' | 'license_policy';

/**
 * A condition on `idColumn` (holding ids of `kind`) that holds on the rows the caller may `action`:
 * what list queries use so a member sees only what they may read. The same levels as `authorize`.
 */
export function whereAccessible(
  principal: Principal,
  kind: ListedKind,
  action: AccessAction,
  idColumn: string,
): Expression<SqlBool> {
  const visibleWhere = RESOURCES[kind].visibleWhere;
  return visibleWhere ? visibleWhere(principal, action, idColumn) : sql<SqlBool>`false`;
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

export interface ApplicationAccess {
  id: number;
  group_id: number;
  level: 0 | 1 | 2;
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
  if (applicationIds.length === 0) return new Map();
  const level = user.role === 'admin' ? sql<number>`2` : userApplicationLevelSql(user.id);
  const rows = await db
    .selectFrom('applications as app')
    .select(['app.id', 'app.group_id', level.as('level')])
    .where('app.id', 'in', [...applicationIds])
    .execute();
  return new Map(rows.map((row) => [row.id, { ...row, level: Number(row.level) as 0 | 1 | 2 }]));
}

/** The permission policies (as `p`) granted to a user directly or through one of their teams. */
export function policiesOfUser(db: Kysely<DB>, userId: number) {
  return db
    .selectFrom('permission_policies as p')
    .where((eb) =>
      eb.or([
        eb('p.user_id', '=', userId),
        eb('p.team_id', 'in', eb.selectFrom('team_members').select('team_id').where('user_id', '=', userId)),
      ]),
    );
}

/**
 * What `principal` may read, in whole groups where it can: the groups (of `groupIds`, or all) whose
 * every application it reads, and whether that is every group there is and will be (the admin
 * role or a grant on everything). Readers of sums (the metrics) take whole groups from per-group
 * totals and the other readable applications one by one (`whereAccessible`).
 */
export async function wholeGroupsReadable(
  db: Kysely<DB>,
  principal: Principal,
  groupIds?: readonly number[],
): Promise<{ everything: boolean; groupIds: number[] }> {
  if (principal.kind === 'application_token') return { everything: false, groupIds: [] };
  const everything =
    isAdmin(principal) ||
    (await policiesOfUser(db, principal.id)
      .select(sql<number>`1`.as('one'))
      .where('p.application_id', 'is', null)
      .where('p.group_id', 'is', null)
      .where('p.resource', 'is', null)
      .limit(1)
      .executeTakeFirst()) !== undefined;
  if (groupIds?.length === 0) return { everything, groupIds: [] };
  let query = db.selectFrom('groups as g').select('g.id').where(readsWholeGroupSql(principal));
  if (groupIds) query = query.where('g.id', 'in', [...groupIds]);
  const rows = await query.execute();
  return { everything, groupIds: rows.map((row) => row.id) };
}
