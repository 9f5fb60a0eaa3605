import type { LicensePolicyRow } from '../../access/resources.ts';
import { iso } from '../../http/schemas.ts';
import type { LicensePolicyRecord } from './license-policies.schema.ts';

export function presentLicensePolicy(row: LicensePolicyRow): LicensePolicyRecord {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    owner_group_id: row.owner_group_id,
    mode: row.mode,
    licenses: row.licenses,
    severity: row.severity,
    enabled: row.enabled,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}
