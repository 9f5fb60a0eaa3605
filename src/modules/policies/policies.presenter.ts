import type { Selectable } from 'kysely';
import type { PoliciesTable, PolicyRunsTable } from '../../db/schema.ts';
import { iso } from '../../http/schemas.ts';
import type { PolicyRecord } from './policies.schema.ts';

export function presentPolicy(row: Selectable<PoliciesTable>): PolicyRecord {
  return {
    id: row.id,
    name: row.name,
    scope_type: row.scope_type,
    scope_id: row.application_id ?? row.group_id,
    application_id: row.application_id,
    group_id: row.group_id,
    event_types: row.event_types,
    conditions: row.conditions,
    actions: row.actions,
    enabled: row.enabled,
    created_by: row.created_by,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

export function presentRun(row: Selectable<PolicyRunsTable>) {
  return {
    id: row.id,
    policy_id: row.policy_id,
    event: row.event,
    depth: row.depth,
    evaluated: row.evaluated,
    matched: row.finding_ids.length,
    finding_ids: row.finding_ids,
    actions: row.actions,
    error: row.error,
    created_at: iso(row.created_at),
  };
}
