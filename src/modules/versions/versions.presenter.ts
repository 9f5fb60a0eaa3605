import type { Selectable } from 'kysely';
import type { ApplicationVersionsTable } from '../../db/schema.ts';
import { iso } from '../../http/schemas.ts';
import type { VersionRecord } from './versions.schema.ts';

export function presentVersion(row: Selectable<ApplicationVersionsTable>): VersionRecord {
  return {
    id: row.id,
    application_id: row.application_id,
    name: row.name,
    branch: row.branch,
    tag: row.tag,
    is_default: row.is_default,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}
