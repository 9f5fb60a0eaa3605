import { iso } from '../../http/schemas.ts';
import type { SnapshotRow } from './enrichment.repository.ts';
import type { Static } from 'typebox';
import type { SnapshotSchema } from './enrichment.schema.ts';

export type SnapshotRecord = Static<typeof SnapshotSchema>;

const DAY_MS = 86_400_000;

/** Whole days from the snapshot's data date to `now`. */
export function ageDays(dataDate: string, now: Date): number {
  return Math.max(0, Math.floor((now.getTime() - Date.parse(`${dataDate}T00:00:00Z`)) / DAY_MS));
}

export function presentSnapshot(row: SnapshotRow, now: Date = new Date()): SnapshotRecord {
  return {
    id: row.id,
    source: row.source,
    format: row.format,
    version: row.version,
    data_date: row.data_date,
    released_at: iso(row.released_at),
    row_count: row.row_count,
    file_name: row.file_name,
    sha256: row.sha256,
    origin: row.origin,
    imported_by: row.imported_by,
    current: row.current,
    age_days: ageDays(row.data_date, now),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}
