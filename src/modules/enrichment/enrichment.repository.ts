import { sql, type Kysely, type Selectable, type Transaction } from 'kysely';
import type { DB, EnrichmentSnapshotsTable } from '../../db/schema.ts';
import type { EpssRow, KevRow, SnapshotHeader } from './sources/index.ts';

export type SnapshotRow = Selectable<EnrichmentSnapshotsTable>;

/** Snapshot columns with the day as text (the drivers parse `date` differently). */
const SNAPSHOT_COLUMNS = sql`id, source, format, version, data_date::text as data_date, released_at, row_count,
  file_name, sha256, origin, imported_by, current, created_at, updated_at`;

export async function currentSnapshot(
  db: Kysely<DB> | Transaction<DB>,
  source: 'epss' | 'kev',
): Promise<SnapshotRow | undefined> {
  const { rows } = await sql<SnapshotRow>`select ${SNAPSHOT_COLUMNS} from enrichment_snapshots
    where source = ${source} and current`.execute(db);
  return rows[0];
}

export async function snapshotByKey(
  trx: Transaction<DB>,
  header: SnapshotHeader,
): Promise<SnapshotRow | undefined> {
  const { rows } = await sql<SnapshotRow>`select ${SNAPSHOT_COLUMNS} from enrichment_snapshots
    where source = ${header.source} and data_date = ${header.dataDate}::date and version = ${header.version}`.execute(
    trx,
  );
  return rows[0];
}

export async function snapshotById(db: Kysely<DB> | Transaction<DB>, id: number): Promise<SnapshotRow> {
  const { rows } =
    await sql<SnapshotRow>`select ${SNAPSHOT_COLUMNS} from enrichment_snapshots where id = ${id}`.execute(db);
  return rows[0]!;
}

/** One import at a time per source, whichever process runs it (released at commit). */
export async function lockSource(trx: Transaction<DB>, source: 'epss' | 'kev'): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtext(${`scanhub.enrichment.${source}`}))`.execute(trx);
}

export async function createSnapshot(
  trx: Transaction<DB>,
  header: SnapshotHeader,
  provenance: {
    fileName: string | null;
    sha256: string | null;
    origin: 'upload' | 'fetch';
    importedBy: number | null;
  },
): Promise<SnapshotRow> {
  const { rows } = await sql<{ id: number }>`insert into enrichment_snapshots
      (source, format, version, data_date, released_at, file_name, sha256, origin, imported_by)
    values (${header.source}, ${header.format}, ${header.version}, ${header.dataDate}::date, ${header.releasedAt},
      ${provenance.fileName}, ${provenance.sha256}, ${provenance.origin}, ${provenance.importedBy})
    returning id`.execute(trx);
  return snapshotById(trx, rows[0]!.id);
}

/** Makes `id` its source's current snapshot. */
export async function makeCurrent(trx: Transaction<DB>, source: 'epss' | 'kev', id: number): Promise<void> {
  await sql`update enrichment_snapshots set current = false, updated_at = now()
    where source = ${source} and current and id <> ${id}`.execute(trx);
  await sql`update enrichment_snapshots set current = true, updated_at = now() where id = ${id} and not current`.execute(
    trx,
  );
}

/** Drops the rows of a source before a new snapshot replaces them. */
export async function clearRows(trx: Transaction<DB>, source: 'epss' | 'kev'): Promise<number> {
  const result =
    await sql`delete from ${sql.table(source === 'epss' ? 'epss_scores' : 'kev_entries')}`.execute(trx);
  return Number(result.numAffectedRows ?? 0n);
}

/** Upserts EPSS rows; a row already holding the same values is not written. Returns rows written. */
export async function upsertEpss(
  trx: Transaction<DB>,
  snapshotId: number,
  rows: readonly EpssRow[],
): Promise<number> {
  if (rows.length === 0) return 0;
  const result = await sql`insert into epss_scores (cve, epss, percentile, snapshot_id)
    select t.cve, t.epss, t.percentile, ${snapshotId}::integer
    from unnest(${rows.map((row) => row.cve)}::text[], ${rows.map((row) => row.epss)}::float8[],
      ${rows.map((row) => row.percentile)}::float8[]) as t(cve, epss, percentile)
    on conflict (cve) do update set epss = excluded.epss, percentile = excluded.percentile,
      snapshot_id = excluded.snapshot_id
    where (epss_scores.epss, epss_scores.percentile, epss_scores.snapshot_id)
      is distinct from (excluded.epss, excluded.percentile, excluded.snapshot_id)`.execute(trx);
  return Number(result.numAffectedRows ?? 0n);
}

export async function upsertKev(
  trx: Transaction<DB>,
  snapshotId: number,
  rows: readonly KevRow[],
): Promise<number> {
  if (rows.length === 0) return 0;
  const json = JSON.stringify(
    rows.map((row) => ({
      cve: row.cve,
      vendor_project: row.vendorProject,
      product: row.product,
      vulnerability_name: row.vulnerabilityName,
      date_added: row.dateAdded,
      short_description: row.shortDescription,
      required_action: row.requiredAction,
      due_date: row.dueDate,
      ransomware: row.ransomware,
      notes: row.notes,
      cwes: row.cwes,
    })),
  );
  const result =
    await sql`insert into kev_entries (cve, vendor_project, product, vulnerability_name, date_added,
      short_description, required_action, due_date, ransomware, notes, cwes, snapshot_id)
    select x.cve, x.vendor_project, x.product, x.vulnerability_name, x.date_added::date, x.short_description,
      x.required_action, x.due_date::date, x.ransomware, x.notes,
      array(select json_array_elements_text(x.cwes)), ${snapshotId}::integer
    from json_to_recordset(${json}::json) as x(cve text, vendor_project text, product text,
      vulnerability_name text, date_added text, short_description text, required_action text, due_date text,
      ransomware boolean, notes text, cwes json)
    on conflict (cve) do update set vendor_project = excluded.vendor_project, product = excluded.product,
      vulnerability_name = excluded.vulnerability_name, date_added = excluded.date_added,
      short_description = excluded.short_description, required_action = excluded.required_action,
      due_date = excluded.due_date, ransomware = excluded.ransomware, notes = excluded.notes,
      cwes = excluded.cwes, snapshot_id = excluded.snapshot_id
    where (kev_entries.*) is distinct from (excluded.*)`.execute(trx);
  return Number(result.numAffectedRows ?? 0n);
}

/** Sets a snapshot's row count from the rows it holds; says whether it changed. */
export async function settleRowCount(trx: Transaction<DB>, snapshot: SnapshotRow): Promise<number> {
  const table = sql.table(snapshot.source === 'epss' ? 'epss_scores' : 'kev_entries');
  const { rows } = await sql<{ row_count: number }>`update enrichment_snapshots
    set row_count = (select count(*) from ${table} where snapshot_id = ${snapshot.id})::integer, updated_at = now()
    where id = ${snapshot.id}
      and row_count <> (select count(*) from ${table} where snapshot_id = ${snapshot.id})::integer
    returning row_count`.execute(trx);
  return rows[0]?.row_count ?? snapshot.row_count;
}

export async function listCurrent(db: Kysely<DB>): Promise<SnapshotRow[]> {
  const { rows } = await sql<SnapshotRow>`select ${SNAPSHOT_COLUMNS} from enrichment_snapshots where current
    order by source`.execute(db);
  return rows;
}

export async function enrichmentSettings(
  db: Kysely<DB> | Transaction<DB>,
): Promise<{ kev_due_dates: boolean; epss_percentile_threshold: number }> {
  const row = await db
    .selectFrom('enrichment_settings')
    .select(['kev_due_dates', 'epss_percentile_threshold'])
    .executeTakeFirst();
  return row ?? { kev_due_dates: true, epss_percentile_threshold: 0.9 };
}
