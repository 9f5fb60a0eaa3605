import { sql, type Kysely, type Selectable } from 'kysely';
import type { ResolvedApplication } from '../../access/resources.ts';
import type { UserPrincipal } from '../../access/principal.ts';
import { actionsOf, isAdminResource, type PolicyAction } from '../../access/vocabulary.ts';
import type { AccessAction, DB, PermissionPoliciesTable } from '../../db/schema.ts';
import { badRequest, conflict, notFound } from '../../errors.ts';
import { recordAudit, type AuditContext } from '../../events/audit.ts';
import { iso } from '../../http/schemas.ts';

/** A grant in the API's words, parsed into the table's columns. */
export interface Grant {
  user_id: number | null;
  team_id: number | null;
  application_id: number | null;
  group_id: number | null;
  /** An administrative resource (vocabulary.ts), or null for application grants. */
  resource: string | null;
  action: PolicyAction;
}

export function presentPermission(row: Selectable<PermissionPoliciesTable>) {
  const subject = row.user_id !== null ? `user:${row.user_id}` : `team:${row.team_id}`;
  const resource =
    row.application_id !== null
      ? `application:${row.application_id}`
      : row.group_id !== null
        ? `group:${row.group_id}`
        : (row.resource ?? '*');
  return {
    id: row.id,
    subject,
    resource,
    action: row.action as PolicyAction,
    created_at: iso(row.created_at),
  };
}

export function parseSubject(subject: string): Pick<Grant, 'user_id' | 'team_id'> {
  const [kind, id] = subject.split(':');
  return kind === 'user' ? { user_id: Number(id), team_id: null } : { user_id: null, team_id: Number(id) };
}

/**
 * An admin policy's `resource` and `action` as a grant's columns. An action the resource does not
 * take (`scanner-types` + `write`) is a 400 naming the ones it does.
 */
export function parseResource(
  resource: string,
  action: PolicyAction,
): Pick<Grant, 'application_id' | 'group_id' | 'resource' | 'action'> {
  const allowed = actionsOf(resource);
  if (!allowed.includes(action)) {
    throw badRequest('validation_failed', `Resource "${resource}" takes the actions ${allowed.join(', ')}`, [
      { path: 'body.action', message: `must be one of ${allowed.join(', ')} for ${resource}` },
    ]);
  }
  if (isAdminResource(resource)) return { application_id: null, group_id: null, resource, action };
  if (resource === '*') return { application_id: null, group_id: null, resource: null, action };
  const [kind, id] = resource.split(':');
  return kind === 'application'
    ? { application_id: Number(id), group_id: null, resource: null, action }
    : { application_id: null, group_id: Number(id), resource: null, action };
}

/** 404 when the user, team, application or group a grant names does not exist. */
async function assertReferentsExist(db: Kysely<DB>, grant: Grant) {
  const checks: [keyof DB, number | null, string][] = [
    ['users', grant.user_id, 'User'],
    ['teams', grant.team_id, 'Team'],
    ['applications', grant.application_id, 'Application'],
    ['groups', grant.group_id, 'Group'],
  ];
  for (const [table, id, label] of checks) {
    if (id === null) continue;
    const row = await db
      .selectFrom(table)
      .select(sql<number>`1`.as('one'))
      .where(sql.ref('id'), '=', id)
      .executeTakeFirst();
    if (!row) throw notFound(label);
  }
}

function grantFilter(grant: Grant) {
  return sql<boolean>`user_id is not distinct from ${grant.user_id}
    and team_id is not distinct from ${grant.team_id}
    and application_id is not distinct from ${grant.application_id}
    and group_id is not distinct from ${grant.group_id}
    and resource is not distinct from ${grant.resource}
    and action = ${grant.action}`;
}

/** Adds a grant; the same grant twice → 409 `permission_exists`. */
export async function addGrant(db: Kysely<DB>, actor: UserPrincipal, grant: Grant, audit: AuditContext) {
  await assertReferentsExist(db, grant);
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .insertInto('permission_policies')
      .values({ ...grant, created_by: actor.id })
      .onConflict((oc) => oc.constraint('permission_policies_grant_key').doNothing())
      .returningAll()
      .executeTakeFirst();
    if (!row) throw conflict('permission_exists', 'This permission already exists');
    const permission = presentPermission(row);
    await recordAudit(trx, audit, grantAudit('permission.granted', permission));
    return permission;
  });
}

/** A grant's audit row: who (subject) may do what (action) on which resource. */
function grantAudit(action: string, permission: ReturnType<typeof presentPermission>) {
  const applicationId = /^application:(\d+)$/.exec(permission.resource);
  return {
    action,
    target: {
      type: 'permission',
      id: permission.id,
      label: `${permission.subject} ${permission.action} ${permission.resource}`,
    },
    applicationId: applicationId ? Number(applicationId[1]) : null,
    details: { subject: permission.subject, resource: permission.resource, permission: permission.action },
  };
}

/** Removes a grant; an absent one → 404. */
export async function removeGrant(db: Kysely<DB>, grant: Grant, audit: AuditContext) {
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .deleteFrom('permission_policies')
      .where(grantFilter(grant))
      .returningAll()
      .executeTakeFirst();
    if (!row) throw notFound('Permission');
    const permission = presentPermission(row);
    await recordAudit(trx, audit, grantAudit('permission.revoked', permission));
    return { ...permission, deleted: true };
  });
}

export async function listApplicationGrants(db: Kysely<DB>, app: ResolvedApplication) {
  const rows = await db
    .selectFrom('permission_policies')
    .selectAll()
    .where('application_id', '=', app.id)
    .orderBy('id')
    .execute();
  return rows.map(presentPermission);
}

export function applicationGrant(
  app: ResolvedApplication,
  body: { subject: string; action: AccessAction },
): Grant {
  return {
    ...parseSubject(body.subject),
    application_id: app.id,
    group_id: null,
    resource: null,
    action: body.action,
  };
}

/** Admin list, optionally filtered by a subject prefix such as `user:` or `team:3`. */
export async function listAllGrants(db: Kysely<DB>, subjectPrefix: string | undefined) {
  const rows = await db.selectFrom('permission_policies').selectAll().orderBy('id').execute();
  const all = rows.map(presentPermission);
  return subjectPrefix ? all.filter((grant) => grant.subject.startsWith(subjectPrefix)) : all;
}

/** The older `{application_id, user_id, permission}` shape as a grant. */
export function legacyGrant(
  app: ResolvedApplication,
  body: {
    application_id: number | string;
    user_id?: number | string | undefined;
    team_id?: number | string | undefined;
    permission: AccessAction;
  },
): Grant {
  const subjectId = body.user_id ?? body.team_id;
  if (subjectId === undefined) {
    throw badRequest('validation_failed', 'user_id is required', [
      { path: 'body.user_id', message: 'is required' },
    ]);
  }
  return {
    user_id: body.user_id !== undefined ? Number(body.user_id) : null,
    team_id: body.user_id === undefined ? Number(subjectId) : null,
    application_id: app.id,
    group_id: null,
    resource: null,
    action: body.permission,
  };
}
