import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { SlaConfigurationRow } from '../../access/resources.ts';
import { effectiveConfigurationIdSql } from '../../domain/findings/sla.ts';

type Executor = Kysely<DB> | Transaction<DB>;

export async function configurationById(
  executor: Executor,
  id: number,
): Promise<SlaConfigurationRow | undefined> {
  return executor.selectFrom('sla_configurations').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function nameTaken(executor: Executor, name: string, exceptId?: number): Promise<boolean> {
  const row = await executor
    .selectFrom('sla_configurations')
    .select('id')
    .where('name', '=', name)
    .$if(exceptId !== undefined, (query) => query.where('id', '<>', exceptId ?? 0))
    .executeTakeFirst();
  return row !== undefined;
}

/** Groups and applications a configuration is assigned to directly. */
export async function assignmentsOf(executor: Executor, configurationIds: readonly number[]) {
  if (configurationIds.length === 0) return { groups: [], applications: [] };
  const [groups, applications] = await Promise.all([
    executor
      .selectFrom('groups')
      .select(['id', 'path', 'sla_configuration_id'])
      .where('sla_configuration_id', 'in', [...configurationIds])
      .orderBy('path')
      .execute(),
    executor
      .selectFrom('applications')
      .select(['id', 'name', 'group_id', 'sla_configuration_id'])
      .where('sla_configuration_id', 'in', [...configurationIds])
      .orderBy('name')
      .execute(),
  ]);
  return { groups, applications };
}

/** Applications whose configuration in force is `configurationId`. */
export async function applicationsUnder(executor: Executor, configurationId: number): Promise<number[]> {
  const { rows } = await sql<{ id: number }>`
    select app.id from applications app join groups g on g.id = app.group_id
    where ${effectiveConfigurationIdSql} = ${configurationId}`.execute(executor);
  return rows.map((row) => row.id);
}

/** The group's own configuration, else its nearest ancestor's (with that group's path), else none. */
export async function groupChainConfiguration(
  executor: Executor,
  groupId: number,
): Promise<{ configuration_id: number; path: string } | undefined> {
  const { rows } = await sql<{ configuration_id: number; path: string }>`
    select anc.sla_configuration_id as configuration_id, anc.path
    from groups g join groups anc on anc.id = g.id or starts_with(g.path, anc.path || '/')
    where g.id = ${groupId} and anc.sla_configuration_id is not null
    order by length(anc.path) desc limit 1`.execute(executor);
  return rows[0];
}

export async function defaultConfiguration(executor: Executor): Promise<SlaConfigurationRow> {
  return executor
    .selectFrom('sla_configurations')
    .selectAll()
    .where('is_default', '=', true)
    .executeTakeFirstOrThrow();
}
