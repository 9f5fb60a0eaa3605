import type { Selectable } from 'kysely';
import type { ScansTable } from '../../db/schema.ts';
import { iso } from '../../http/schemas.ts';

export function presentScan(row: Selectable<ScansTable>) {
  return {
    id: row.id,
    application_id: row.application_id,
    version_id: row.version_id,
    scanner_type_id: row.scanner_type_id,
    scanner_type: row.scanner_type,
    tool_name: row.tool_name,
    tool_version: row.tool_version,
    file_name: row.file_name,
    file_size: Number(row.file_size),
    file_sha256: row.file_sha256,
    status: row.status,
    error: row.error,
    findings_count: row.findings_count,
    new_findings_count: row.new_findings_count,
    existing_findings_count: row.existing_findings_count,
    fixed_findings_count: row.fixed_findings_count,
    reopened_findings_count: row.reopened_findings_count,
    components_added_count: row.components_added,
    components_removed_count: row.components_removed,
    branch: row.branch,
    uploaded_by: row.uploaded_by,
    uploaded_via: row.uploaded_via,
    started_at: iso(row.started_at),
    completed_at: iso(row.completed_at),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

export type ScanRecord = ReturnType<typeof presentScan>;
