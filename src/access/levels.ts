import { sql } from 'kysely';
import type { AccessAction } from '../db/schema.ts';
import { isAdmin, type Principal } from './principal.ts';

/**
 * The level a caller holds on a row, as SQL: 0 none, 1 read, 2 write. A user reaches an application
 * through a grant to themselves or to one of their teams, on the application, on its group, or on
 * everything (a permission policy with no application, group or resource). `write` implies `read`.
 * Admins hold 2 everywhere. An application token reads its own application and nothing else.
 * Every resource kind (src/access/resources.ts) reads its level from one of these.
 */

export const ACCESS_RANK: Record<AccessAction, number> = { read: 1, write: 2 };

/** SQL for "the best grant `userId` holds on the application row aliased `app`". */
export function userApplicationLevelSql(userId: number) {
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
export function applicationLevelSql(principal: Principal) {
  if (principal.kind === 'application_token') {
    return sql<number>`case when app.id = ${principal.applicationId} then 1 else 0 end`;
  }
  return isAdmin(principal) ? sql<number>`2` : userApplicationLevelSql(principal.id);
}

/**
 * SQL for the level `principal` holds on the group row aliased `g`: 2 with a write grant on the group
 * (or everything), 1 with a read grant there or any grant on one of its applications (so the group of
 * a readable application is visible). An application token sees no group.
 */
export function groupLevelSql(principal: Principal) {
  if (principal.kind === 'application_token') return sql<number>`0`;
  if (isAdmin(principal)) return sql<number>`2`;
  return sql<number>`coalesce((
    select max(case when p.action = 'write' and p.application_id is null then 2 else 1 end)
    from permission_policies p
    where (p.user_id = ${principal.id}
           or p.team_id in (select tm.team_id from team_members tm where tm.user_id = ${principal.id}))
      and (p.group_id = g.id
           or (p.application_id is null and p.group_id is null and p.resource is null)
           or p.application_id in (select a.id from applications a where a.group_id = g.id))
  ), 0)`;
}

/**
 * SQL: whether `principal` reads every application of the group row aliased `g`, now and later (a
 * grant on the group or on everything, or the admin role), so sums over the whole group are theirs
 * to see. Grants on single applications of the group do not make it whole.
 */
export function readsWholeGroupSql(principal: Principal) {
  if (principal.kind === 'application_token') return sql<boolean>`false`;
  if (isAdmin(principal)) return sql<boolean>`true`;
  return sql<boolean>`exists (
    select 1 from permission_policies p
    where (p.user_id = ${principal.id}
           or p.team_id in (select tm.team_id from team_members tm where tm.user_id = ${principal.id}))
      and p.application_id is null
      and (p.group_id = g.id or (p.group_id is null and p.resource is null))
  )`;
}

/**
 * SQL for the level `principal` holds on the policy row aliased `pol`: its scope's level (the
 * application's or the group's); a global policy is readable by every user and written by admins.
 */
export function policyLevelSql(principal: Principal) {
  if (principal.kind === 'application_token') return sql<number>`0`;
  if (isAdmin(principal)) return sql<number>`2`;
  return sql<number>`case pol.scope_type
    when 'global' then 1
    when 'application' then (select ${applicationLevelSql(principal)} from applications app where app.id = pol.application_id)
    else (select ${groupLevelSql(principal)} from groups g where g.id = pol.group_id)
  end`;
}

/**
 * SQL for the level `principal` holds on the SLA configuration row aliased `sc`: a global one
 * (no owner group: the default and those admins made) is readable by every user and written by
 * admins; one a group owns has that group's level (write on the group: its owners and writers).
 */
export function slaConfigurationLevelSql(principal: Principal) {
  if (principal.kind === 'application_token') return sql<number>`0`;
  if (isAdmin(principal)) return sql<number>`2`;
  return sql<number>`case when sc.owner_group_id is null then 1
    else (select ${groupLevelSql(principal)} from groups g where g.id = sc.owner_group_id) end`;
}

/**
 * SQL for the level `principal` holds on the licence policy row aliased `lp`: as for SLA
 * configurations, a global one is read by every user and written by admins; one a group owns has
 * that group's level.
 */
export function licensePolicyLevelSql(principal: Principal) {
  if (principal.kind === 'application_token') return sql<number>`0`;
  if (isAdmin(principal)) return sql<number>`2`;
  return sql<number>`case when lp.owner_group_id is null then 1
    else (select ${groupLevelSql(principal)} from groups g where g.id = lp.owner_group_id) end`;
}

/**
 * SQL for the level `principal` holds on the acceptance row aliased `acc`: its application's level,
 * or for one over a whole group, the group's (write needs write on the group).
 */
export function acceptanceLevelSql(principal: Principal) {
  if (principal.kind === 'application_token') return sql<number>`0`;
  if (isAdmin(principal)) return sql<number>`2`;
  return sql<number>`case when acc.application_id is not null
    then (select ${applicationLevelSql(principal)} from applications app where app.id = acc.application_id)
    else (select ${groupLevelSql(principal)} from groups g where g.id = acc.group_id)
  end`;
}

const POSITIVE_INT = /^[1-9][0-9]{0,9}$/;

/** Parses a path id; anything that is not a positive integer names nothing (→ 404 by the caller). */
export function parseId(value: string): number | null {
  if (!POSITIVE_INT.test(value)) return null;
  const id = Number(value);
  return id <= 2_147_483_647 ? id : null;
}
