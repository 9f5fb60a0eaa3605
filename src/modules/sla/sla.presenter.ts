import type { SlaConfigurationRow } from '../../access/resources.ts';
import { SEVERITIES } from '../../domain/findings/severity.ts';
import { iso } from '../../http/schemas.ts';
import type { SlaConfigurationRecord } from './sla.schema.ts';

export interface Assigned {
  groups: { id: number; path: string }[];
  applications: { id: number; name: string }[];
}

export function presentSlaConfiguration(
  row: SlaConfigurationRow,
  assigned: Assigned = { groups: [], applications: [] },
): SlaConfigurationRecord {
  const severities = Object.fromEntries(
    SEVERITIES.map((severity) => [
      severity,
      { days: row[`${severity}_days`], enforced: row[`${severity}_enforced`] },
    ]),
  ) as SlaConfigurationRecord['severities'];
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    is_default: row.is_default,
    owner_group_id: row.owner_group_id,
    severities,
    assigned_groups: assigned.groups,
    assigned_applications: assigned.applications,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}
