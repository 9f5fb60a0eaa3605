import { Type } from 'typebox';
import { Nullable, NullableTimestamp, Timestamp } from '../../http/schemas.ts';

export const ScanSchema = Type.Object(
  {
    id: Type.Integer(),
    application_id: Type.Integer(),
    version_id: Type.Integer(),
    scanner_type_id: Nullable(Type.Integer()),
    scanner_type: Nullable(Type.String()),
    tool_name: Nullable(Type.String()),
    tool_version: Nullable(Type.String()),
    file_name: Nullable(Type.String()),
    file_size: Type.Integer(),
    file_sha256: Type.String(),
    status: Type.Enum(['pending', 'processing', 'completed', 'failed']),
    error: Nullable(Type.String()),
    findings_count: Type.Integer(),
    new_findings_count: Type.Integer(),
    existing_findings_count: Type.Integer(),
    fixed_findings_count: Type.Integer(),
    reopened_findings_count: Type.Integer(),
    /** The upload's component diff: components it added to and removed from its scope. */
    components_added_count: Type.Integer(),
    components_removed_count: Type.Integer(),
    branch: Nullable(Type.String()),
    uploaded_by: Nullable(Type.Integer()),
    uploaded_via: Type.String(),
    started_at: NullableTimestamp,
    completed_at: NullableTimestamp,
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: 'Scan' },
);

export const ScanListQuery = Type.Object({
  application_id: Type.Optional(Type.Integer({ minimum: 1 })),
  version_id: Type.Optional(Type.Integer({ minimum: 1 })),
  status: Type.Optional(Type.Enum(['pending', 'processing', 'completed', 'failed'])),
  limit: Type.Integer({ minimum: 1, maximum: 500, default: 50 }),
});

export const IngestResultSchema = Type.Object(
  {
    scan: ScanSchema,
    findings_count: Type.Integer(),
    new_findings_count: Type.Integer(),
    existing_findings_count: Type.Integer(),
    fixed_findings_count: Type.Integer(),
  },
  { title: 'IngestResult' },
);
