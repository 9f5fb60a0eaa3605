import { sql, type Kysely, type SqlBool } from 'kysely';
import { authorizeOne, userAccessLevels, whereAccessible } from '../../access/access.ts';
import type { PolicyRow } from '../../access/resources.ts';
import { isAdmin, type UserPrincipal } from '../../access/principal.ts';
import type { DB, PolicyScopeType } from '../../db/schema.ts';
import { recordAudit, type AuditContext } from '../../events/audit.ts';
import { normalizeDefinition, type PolicyDefinition } from '../../domain/policies/definition.ts';
import { badRequest, forbidden } from '../../errors.ts';
import { presentPolicy, presentRun } from './policies.presenter.ts';
import type { CreatePolicyInput, PatchPolicyInput, PolicyRecord, RunsQueryInput } from './policies.schema.ts';

/**
 * Policies: who may see and change them. A global policy acts on every application, so only an
 * admin writes one; members see it (it changes their findings). An application or group policy
 * needs write on its application or group to create, change, delete or try; read to see.
 */

export interface Scope {
  scope_type: PolicyScopeType;
  application_id: number | null;
  group_id: number | null;
}

type ScopeInput = Pick<CreatePolicyInput, 'scope_type' | 'scope_id' | 'application_id' | 'group_id'>;

const scopeIssue = (path: string, message: string) =>
  badRequest('validation_failed', `${path.slice(1)} ${message}`, [{ path, message }]);

/** Reads `scope_type` and `scope_id` (or its aliases) and checks the caller may write there. */
export async function resolveScope(db: Kysely<DB>, user: UserPrincipal, input: ScopeInput): Promise<Scope> {
  const type: PolicyScopeType | undefined =
    input.scope_type ??
    (input.application_id !== undefined ? 'application' : input.group_id !== undefined ? 'group' : undefined);
  if (!type) throw scopeIssue('/scope_type', 'is required (application, group or global)');
  if (type === 'global') {
    if (input.scope_id !== undefined || input.application_id !== undefined || input.group_id !== undefined) {
      throw scopeIssue('/scope_id', 'must be absent for a global policy');
    }
    if (!isAdmin(user)) throw forbidden('Only an admin may write a global policy');
    return { scope_type: 'global', application_id: null, group_id: null };
  }
  const alias = type === 'application' ? input.application_id : input.group_id;
  const other = type === 'application' ? input.group_id : input.application_id;
  if (other !== undefined)
    throw scopeIssue(
      type === 'application' ? '/group_id' : '/application_id',
      `does not fit scope_type ${type}`,
    );
  if (input.scope_id !== undefined && alias !== undefined && input.scope_id !== alias) {
    throw scopeIssue('/scope_id', `differs from ${type}_id`);
  }
  const id = input.scope_id ?? alias;
  if (id === undefined) throw scopeIssue('/scope_id', `is required for scope_type ${type}`);
  if (type === 'application') {
    const app = await authorizeOne(db, user, 'application', String(id), 'write');
    return { scope_type: type, application_id: app.id, group_id: null };
  }
  const group = await authorizeOne(db, user, 'group', String(id), 'write');
  return { scope_type: type, application_id: null, group_id: group.id };
}

/**
 * The normalized definition, with every assignee checked to exist, be enabled and — for an
 * application policy — be able to read the application (a finding must not go to someone who
 * cannot see it; for group and global scopes that is checked finding by finding only by triage).
 */
export async function checkedDefinition(
  db: Kysely<DB>,
  input: Parameters<typeof normalizeDefinition>[0],
  scope: Scope,
): Promise<PolicyDefinition> {
  const result = normalizeDefinition(input);
  if ('issues' in result) {
    throw badRequest(
      'validation_failed',
      `The policy is invalid: ${result.issues[0]?.path} ${result.issues[0]?.message}`,
      result.issues,
    );
  }
  const { definition } = result;
  for (const [index, action] of definition.actions.entries()) {
    if (action.type !== 'assign_to') continue;
    const user = await db
      .selectFrom('users')
      .select(['id', 'role', 'disabled'])
      .where('id', '=', action.target)
      .executeTakeFirst();
    const path = `/actions/${index}/target`;
    if (!user || user.disabled) {
      throw badRequest('validation_failed', `assign_to names ${user ? 'a disabled' : 'no such'} user`, [
        { path, message: user ? 'user is disabled' : 'no such user' },
      ]);
    }
    if (scope.application_id !== null) {
      const levels = await userAccessLevels(db, user, [scope.application_id]);
      if ((levels.get(scope.application_id)?.level ?? 0) < 1) {
        throw badRequest('validation_failed', 'assign_to names a user who cannot read the application', [
          { path, message: 'user cannot read the application' },
        ]);
      }
    }
  }
  return definition;
}

/** The columns of a whole policy body (POST and PUT): its scope, checked, and its definition, normalized. */
async function policyColumns(db: Kysely<DB>, user: UserPrincipal, input: CreatePolicyInput) {
  const scope = await resolveScope(db, user, input);
  const definition = await checkedDefinition(db, input, scope);
  return {
    name: input.name,
    ...scope,
    ...definitionColumns(definition),
    enabled: input.enabled ?? true,
  };
}

const definitionColumns = (definition: PolicyDefinition) => ({
  event_types: definition.eventTypes,
  conditions: JSON.stringify(definition.conditions),
  actions: JSON.stringify(definition.actions),
});

export async function createPolicy(
  db: Kysely<DB>,
  user: UserPrincipal,
  input: CreatePolicyInput,
  audit: AuditContext,
): Promise<PolicyRecord> {
  const columns = await policyColumns(db, user, input);
  const row = await db.transaction().execute(async (trx) => {
    const inserted = await trx
      .insertInto('policies')
      .values({ ...columns, created_by: user.id })
      .returningAll()
      .executeTakeFirstOrThrow();
    await recordAudit(trx, audit, policyAudit('policy.created', null, inserted));
    return inserted;
  });
  return presentPolicy(row);
}

export async function listPolicies(db: Kysely<DB>, user: UserPrincipal): Promise<PolicyRecord[]> {
  const rows = await db
    .selectFrom('policies as p')
    .selectAll()
    .where(whereAccessible(user, 'policy', 'read', 'p.id'))
    .orderBy('p.id')
    .execute();
  return rows.map(presentPolicy);
}

export function getPolicy(policy: PolicyRow): PolicyRecord {
  return presentPolicy(policy);
}

/** PUT: a whole new policy in place of the old one (its scope may move where the caller may write). */
export async function replacePolicy(
  db: Kysely<DB>,
  user: UserPrincipal,
  existing: PolicyRow,
  input: CreatePolicyInput,
  audit: AuditContext,
): Promise<PolicyRecord> {
  const columns = await policyColumns(db, user, input);
  const row = await db.transaction().execute(async (trx) => {
    const updated = await trx
      .updateTable('policies')
      .set({ ...columns, updated_at: new Date() })
      .where('id', '=', existing.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await recordAudit(trx, audit, policyAudit('policy.updated', existing, updated));
    return updated;
  });
  return presentPolicy(row);
}

/** PATCH: name, enabled, or parts of the definition; the rest stays as stored. */
export async function patchPolicy(
  db: Kysely<DB>,
  existing: PolicyRow,
  input: PatchPolicyInput,
  audit: AuditContext,
): Promise<PolicyRecord> {
  const touchesDefinition =
    input.event_types !== undefined ||
    input.trigger !== undefined ||
    input.conditions !== undefined ||
    input.actions !== undefined;
  const definition = touchesDefinition
    ? await checkedDefinition(
        db,
        {
          ...(input.event_types === undefined && input.trigger === undefined
            ? { event_types: existing.event_types }
            : { event_types: input.event_types, trigger: input.trigger }),
          conditions: input.conditions ?? existing.conditions,
          actions: input.actions ?? existing.actions,
        },
        existing,
      )
    : undefined;
  const row = await db.transaction().execute(async (trx) => {
    const updated = await trx
      .updateTable('policies')
      .set({
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
        ...(definition ? definitionColumns(definition) : {}),
        updated_at: new Date(),
      })
      .where('id', '=', existing.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await recordAudit(trx, audit, policyAudit('policy.updated', existing, updated));
    return updated;
  });
  return presentPolicy(row);
}

export async function deletePolicy(db: Kysely<DB>, existing: PolicyRow, audit: AuditContext): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('policies').where('id', '=', existing.id).execute();
    await recordAudit(trx, audit, policyAudit('policy.deleted', existing, null));
  });
}

/** A policy's audit row: its stored definition before and after (a webhook action's secret is masked). */
function policyAudit(action: string, before: PolicyRow | null, after: PolicyRow | null) {
  const fields = (row: PolicyRow) => ({
    name: row.name,
    scope_type: row.scope_type,
    application_id: row.application_id,
    group_id: row.group_id,
    event_types: row.event_types,
    conditions: row.conditions,
    actions: row.actions,
    enabled: row.enabled,
  });
  const row = (after ?? before)!;
  return {
    action,
    target: { type: 'policy', id: row.id, label: row.name },
    applicationId: row.application_id ?? null,
    before: before ? fields(before) : null,
    after: after ? fields(after) : null,
  };
}

export async function listRuns(db: Kysely<DB>, policy: PolicyRow, query: RunsQueryInput) {
  const rows = await db
    .selectFrom('policy_runs')
    .selectAll()
    .where('policy_id', '=', policy.id)
    .$if(query.before !== undefined, (q) => q.where('id', '<', query.before ?? 0))
    .$if(query.finding_id !== undefined, (q) =>
      q.where(sql<SqlBool>`${query.finding_id ?? 0}::integer = any(finding_ids)`),
    )
    .orderBy('id', 'desc')
    .limit(query.limit ?? 100)
    .execute();
  return rows.map(presentRun);
}
