import type { Kysely, Transaction, Updateable } from 'kysely';
import { authorize, authorizeOne, whereAccessible } from '../../access/access.ts';
import { isAdmin, type UserPrincipal } from '../../access/principal.ts';
import type { GroupRow, ResolvedApplication, SlaConfigurationRow } from '../../access/resources.ts';
import type { DB, SlaConfigurationsTable } from '../../db/schema.ts';
import { BUILT_IN_SLA_DAYS, type SlaScope } from '../../domain/findings/sla.ts';
import { SEVERITIES } from '../../domain/findings/severity.ts';
import { badRequest, conflict, forbidden } from '../../errors.ts';
import { recordAudit, type AuditContext } from '../../events/audit.ts';
import type { JobSender } from '../../jobs/job-map.ts';
import { presentSlaConfiguration, type Assigned } from './sla.presenter.ts';
import {
  applicationsUnder,
  assignmentsOf,
  configurationById,
  defaultConfiguration,
  groupChainConfiguration,
  nameTaken,
} from './sla.repository.ts';
import type {
  AssignSlaInput,
  CreateSlaConfigurationInput,
  SeveritiesInput,
  SlaAssignmentRecord,
  SlaConfigurationRecord,
  UpdateSlaConfigurationInput,
} from './sla.schema.ts';

/**
 * SLA configurations (domain/findings/sla.ts says what they mean for due dates). Who may do what:
 * - a global configuration (no owner group; the default is one) is read by every user and created,
 *   changed or deleted by admins only;
 * - a configuration owned by a group is created, changed and deleted by whoever may write that group
 *   (its owners and writers), and read by whoever may read the group;
 * - assigning one to a group or an application needs write there, read on the configuration, and the
 *   configuration must be global or owned by that group or one of its ancestors (a team's own
 *   configuration stays within its subtree, so its writers never change another team's due dates).
 * Every change sends, in its transaction, the `sla-recompute` job that recomputes the SLA due dates
 * it affects (modules/sla/sla.jobs.ts): the API answers at once, and the job exists exactly when the
 * change committed. At 1M findings the recompute takes minutes (docs/architecture.md, "SLA and due
 * dates"), too long for a request or for one transaction holding every row lock.
 */

type Executor = Kysely<DB> | Transaction<DB>;

/** Queues the recompute of `scope`'s SLA due dates; sent in the change's transaction. */
async function queueRecompute(jobs: JobSender, trx: Transaction<DB>, scope: SlaScope, now: Date) {
  const payload =
    scope === 'all' || !('applicationIds' in scope) ? scope : { applicationIds: [...scope.applicationIds] };
  await jobs.send(trx, 'sla-recompute', { scope: payload, now: now.toISOString() });
}

/** A configuration's fields as its audit rows show them: name, owner and each severity's days. */
function auditFields(row: SlaConfigurationRow) {
  return {
    name: row.name,
    description: row.description,
    owner_group_id: row.owner_group_id,
    ...Object.fromEntries(
      SEVERITIES.flatMap((severity) => [
        [`${severity}_days`, row[`${severity}_days`]],
        [`${severity}_enforced`, row[`${severity}_enforced`]],
      ]),
    ),
  };
}

const configurationTarget = (row: SlaConfigurationRow) => ({
  type: 'sla_configuration',
  id: row.id,
  label: row.name,
});

async function assignedVisible(
  executor: Executor,
  viewer: UserPrincipal,
  ids: readonly number[],
): Promise<Map<number, Assigned>> {
  const { groups, applications } = await assignmentsOf(executor, ids);
  const readableGroups = new Set(
    (
      await executor
        .selectFrom('groups as g')
        .select('g.id')
        .where(whereAccessible(viewer, 'group', 'read', 'g.id'))
        .execute()
    ).map((row) => row.id),
  );
  const readableApps = new Set(
    (
      await executor
        .selectFrom('applications as a')
        .select('a.id')
        .where(whereAccessible(viewer, 'application', 'read', 'a.id'))
        .execute()
    ).map((row) => row.id),
  );
  const byConfiguration = new Map<number, Assigned>(ids.map((id) => [id, { groups: [], applications: [] }]));
  for (const group of groups) {
    if (!readableGroups.has(group.id) || group.sla_configuration_id === null) continue;
    byConfiguration.get(group.sla_configuration_id)?.groups.push({ id: group.id, path: group.path });
  }
  for (const app of applications) {
    if (!readableApps.has(app.id) || app.sla_configuration_id === null) continue;
    byConfiguration.get(app.sla_configuration_id)?.applications.push({ id: app.id, name: app.name });
  }
  return byConfiguration;
}

async function present(executor: Executor, viewer: UserPrincipal, row: SlaConfigurationRow) {
  const assigned = await assignedVisible(executor, viewer, [row.id]);
  return presentSlaConfiguration(row, assigned.get(row.id));
}

/** Global configurations and those of groups the caller can read; the default first, then by name. */
export async function listSlaConfigurations(
  db: Kysely<DB>,
  viewer: UserPrincipal,
): Promise<SlaConfigurationRecord[]> {
  const rows = await db
    .selectFrom('sla_configurations as sc')
    .selectAll('sc')
    .where(whereAccessible(viewer, 'sla_configuration', 'read', 'sc.id'))
    .orderBy('sc.is_default', 'desc')
    .orderBy('sc.name')
    .execute();
  const assigned = await assignedVisible(
    db,
    viewer,
    rows.map((row) => row.id),
  );
  return rows.map((row) => presentSlaConfiguration(row, assigned.get(row.id)));
}

export async function getSlaConfiguration(
  db: Kysely<DB>,
  viewer: UserPrincipal,
  row: SlaConfigurationRow,
): Promise<SlaConfigurationRecord> {
  return present(db, viewer, row);
}

/** The columns a body's severities set; `base` fills what it leaves out (create: the built-in days). */
function severityColumns(
  input: SeveritiesInput | undefined,
  base?: SlaConfigurationRow,
): Updateable<SlaConfigurationsTable> {
  const columns: Record<string, number | boolean> = {};
  for (const severity of SEVERITIES) {
    const given = input?.[severity];
    const days = given?.days ?? base?.[`${severity}_days`] ?? BUILT_IN_SLA_DAYS[severity] ?? 365;
    const enforced = given?.enforced ?? base?.[`${severity}_enforced`] ?? true;
    columns[`${severity}_days`] = days;
    columns[`${severity}_enforced`] = enforced;
  }
  return columns;
}

/** Creates a configuration: owned by a group the caller writes, or global (admins). 409 on a taken name. */
export async function createSlaConfiguration(
  db: Kysely<DB>,
  creator: UserPrincipal,
  input: CreateSlaConfigurationInput,
  audit: AuditContext,
): Promise<SlaConfigurationRecord> {
  const ownerId = input.owner_group_id ?? null;
  if (ownerId === null && !isAdmin(creator)) {
    throw forbidden(
      'Only an admin may create a global SLA configuration; name an owner_group_id you may write',
    );
  }
  if (ownerId !== null) await authorizeOne(db, creator, 'group', String(ownerId), 'write');
  return db.transaction().execute(async (trx) => {
    if (await nameTaken(trx, input.name)) {
      throw conflict('sla_configuration_name_taken', `An SLA configuration named "${input.name}" exists`);
    }
    const row = await trx
      .insertInto('sla_configurations')
      .values({
        name: input.name,
        description: input.description ?? null,
        owner_group_id: ownerId,
        created_by: creator.id,
        ...(severityColumns(input.severities) as Record<`${(typeof SEVERITIES)[number]}_days`, number>),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    const record = await present(trx, creator, row);
    // Last: from here until commit the transaction holds the audit chain's head.
    await recordAudit(trx, audit, {
      action: 'sla_configuration.created',
      target: configurationTarget(row),
      after: auditFields(row),
    });
    return record;
  });
}

/** Changes a configuration; when its days change, the open findings it governs get their SLA due dates recomputed (a job). */
export async function updateSlaConfiguration(
  db: Kysely<DB>,
  jobs: JobSender,
  editor: UserPrincipal,
  row: SlaConfigurationRow,
  input: UpdateSlaConfigurationInput,
  audit: AuditContext,
  now: Date = new Date(),
): Promise<SlaConfigurationRecord> {
  return db.transaction().execute(async (trx) => {
    if (input.name !== undefined && (await nameTaken(trx, input.name, row.id))) {
      throw conflict('sla_configuration_name_taken', `An SLA configuration named "${input.name}" exists`);
    }
    const updated = await trx
      .updateTable('sla_configurations')
      .set({
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(input.description !== undefined ? { description: input.description } : {}),
        ...severityColumns(input.severities, row),
        updated_at: now,
      })
      .where('id', '=', row.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    const daysChanged = SEVERITIES.some(
      (severity) =>
        row[`${severity}_days`] !== updated[`${severity}_days`] ||
        row[`${severity}_enforced`] !== updated[`${severity}_enforced`],
    );
    if (daysChanged) await queueRecompute(jobs, trx, { configurationId: row.id }, now);
    const record = await present(trx, editor, updated);
    if (JSON.stringify(auditFields(row)) !== JSON.stringify(auditFields(updated))) {
      await recordAudit(trx, audit, {
        action: 'sla_configuration.updated',
        target: configurationTarget(updated),
        before: auditFields(row),
        after: auditFields(updated),
        details: { due_dates_recomputed: daysChanged },
      });
    }
    return record;
  });
}

/**
 * Deletes a configuration (not the default: 409); groups and applications it was assigned to inherit
 * again, and the open findings it governed get due dates from what they inherit.
 */
export async function deleteSlaConfiguration(
  db: Kysely<DB>,
  jobs: JobSender,
  row: SlaConfigurationRow,
  audit: AuditContext,
  now: Date = new Date(),
): Promise<void> {
  if (row.is_default) {
    throw conflict(
      'sla_default_not_deletable',
      'The default SLA configuration cannot be deleted; change it instead',
    );
  }
  await db.transaction().execute(async (trx) => {
    const applicationIds = await applicationsUnder(trx, row.id);
    await trx.deleteFrom('sla_configurations').where('id', '=', row.id).execute();
    // Resolved before the delete: afterwards nothing names the applications it governed.
    if (applicationIds.length > 0) await queueRecompute(jobs, trx, { applicationIds }, now);
    await recordAudit(trx, audit, {
      action: 'sla_configuration.deleted',
      target: configurationTarget(row),
      before: auditFields(row),
      details: { due_dates_recomputed: applicationIds.length > 0 },
    });
  });
}

/** The configuration `input` names, checked: readable by the caller, and usable in the subtree of `groupPath`. */
async function assignable(
  db: Kysely<DB>,
  user: UserPrincipal,
  input: AssignSlaInput,
  groupPath: string,
): Promise<number | null> {
  const id = input.sla_configuration_id;
  if (id === null) return null;
  const [configuration] = await authorize(db, user, 'sla_configuration', [id], 'read');
  if (!configuration || configuration.owner_group_id === null) return id;
  const owner = await db
    .selectFrom('groups')
    .select('path')
    .where('id', '=', configuration.owner_group_id)
    .executeTakeFirstOrThrow();
  if (owner.path !== groupPath && !groupPath.startsWith(`${owner.path}/`)) {
    throw badRequest(
      'sla_configuration_not_in_scope',
      `SLA configuration ${id} belongs to group "${owner.path}" and may be used only there and in its subgroups`,
      [
        {
          path: 'body.sla_configuration_id',
          message: 'must be global or owned by this group or an ancestor',
        },
      ],
    );
  }
  return id;
}

async function assignment(
  executor: Executor,
  viewer: UserPrincipal,
  own: { kind: 'application' | 'group'; assignedId: number | null },
  groupId: number,
): Promise<SlaAssignmentRecord> {
  const chain = own.assignedId === null ? await groupChainConfiguration(executor, groupId) : undefined;
  const configurationId =
    own.assignedId ?? chain?.configuration_id ?? (await defaultConfiguration(executor)).id;
  const row = await configurationById(executor, configurationId);
  const effective = row ?? (await defaultConfiguration(executor));
  const inheritedFrom = own.assignedId !== null ? own.kind : chain !== undefined ? 'group' : 'default';
  return {
    assigned_id: own.assignedId,
    effective: await present(executor, viewer, effective),
    inherited_from: inheritedFrom,
    group_path: inheritedFrom === 'group' ? (chain?.path ?? null) : null,
  };
}

export async function groupSla(db: Kysely<DB>, viewer: UserPrincipal, group: GroupRow) {
  return assignment(db, viewer, { kind: 'group', assignedId: group.sla_configuration_id }, group.id);
}

export async function applicationSla(db: Kysely<DB>, viewer: UserPrincipal, app: ResolvedApplication) {
  const row = await db
    .selectFrom('applications')
    .select('sla_configuration_id')
    .where('id', '=', app.id)
    .executeTakeFirstOrThrow();
  return assignment(db, viewer, { kind: 'application', assignedId: row.sla_configuration_id }, app.group_id);
}

/** Assigns (or with null, unassigns) a group's configuration; its subtree's open findings follow. */
export async function assignGroupSla(
  db: Kysely<DB>,
  jobs: JobSender,
  user: UserPrincipal,
  group: GroupRow,
  input: AssignSlaInput,
  audit: AuditContext,
  now: Date = new Date(),
): Promise<SlaAssignmentRecord> {
  const id = await assignable(db, user, input, group.path);
  return db.transaction().execute(async (trx) => {
    await trx
      .updateTable('groups')
      .set({ sla_configuration_id: id, updated_at: now })
      .where('id', '=', group.id)
      .execute();
    const record = await assignment(trx, user, { kind: 'group', assignedId: id }, group.id);
    if (group.sla_configuration_id !== id) {
      await queueRecompute(jobs, trx, { groupId: group.id }, now);
      await recordAudit(trx, audit, {
        action: 'group.sla_assigned',
        target: { type: 'group', id: group.id, label: group.path },
        before: { sla_configuration_id: group.sla_configuration_id },
        after: { sla_configuration_id: id },
        details: { due_dates_recomputed: true },
      });
    }
    return record;
  });
}

/** Assigns (or with null, unassigns) an application's own configuration; its open findings follow. */
export async function assignApplicationSla(
  db: Kysely<DB>,
  jobs: JobSender,
  user: UserPrincipal,
  app: ResolvedApplication,
  input: AssignSlaInput,
  audit: AuditContext,
  now: Date = new Date(),
): Promise<SlaAssignmentRecord> {
  const group = await db
    .selectFrom('groups')
    .select('path')
    .where('id', '=', app.group_id)
    .executeTakeFirstOrThrow();
  const id = await assignable(db, user, input, group.path);
  return db.transaction().execute(async (trx) => {
    const before = await trx
      .selectFrom('applications')
      .select(['sla_configuration_id', 'slug'])
      .where('id', '=', app.id)
      .forUpdate()
      .executeTakeFirstOrThrow();
    await trx
      .updateTable('applications')
      .set({ sla_configuration_id: id, updated_at: now })
      .where('id', '=', app.id)
      .execute();
    const record = await assignment(trx, user, { kind: 'application', assignedId: id }, app.group_id);
    if (before.sla_configuration_id !== id) {
      await queueRecompute(jobs, trx, { applicationIds: [app.id] }, now);
      await recordAudit(trx, audit, {
        action: 'application.sla_assigned',
        target: { type: 'application', id: app.id, label: before.slug },
        applicationId: app.id,
        before: { sla_configuration_id: before.sla_configuration_id },
        after: { sla_configuration_id: id },
        details: { due_dates_recomputed: true },
      });
    }
    return record;
  });
}
