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

const INCOMING = { epss: 'enrichment_incoming_epss', kev: 'enrichment_incoming_kev' } as const;

/**
 * Opens the temporary table a file's rows are staged in (dropped at commit), so that the rows an
 * import changes can be told from those it restates (`settleEpss`, `settleKev`).
 */
export async function startStaging(trx: Transaction<DB>, source: 'epss' | 'kev'): Promise<void> {
  const columns =
    source === 'epss'
      ? sql`cve text not null, epss double precision not null, percentile double precision not null`
      : sql`cve text not null, vendor_project text not null, product text not null,
          vulnerability_name text not null, date_added date not null, short_description text not null,
          required_action text not null, due_date date not null, ransomware boolean not null,
          notes text not null, cwes text[] not null`;
  await sql`create temporary table ${sql.table(INCOMING[source])} (
    n integer generated always as identity, ${columns}) on commit drop`.execute(trx);
}

/** Stages a batch of EPSS rows (`startStaging` first). */
export async function stageEpss(trx: Transaction<DB>, rows: readonly EpssRow[]): Promise<void> {
  if (rows.length === 0) return;
  await sql`insert into enrichment_incoming_epss (cve, epss, percentile)
    select * from unnest(${rows.map((row) => row.cve)}::text[], ${rows.map((row) => row.epss)}::float8[],
      ${rows.map((row) => row.percentile)}::float8[])`.execute(trx);
}

/** Stages KEV rows (`startStaging` first). */
export async function stageKev(trx: Transaction<DB>, rows: readonly KevRow[]): Promise<void> {
  if (rows.length === 0) return;
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
  await sql`insert into enrichment_incoming_kev (cve, vendor_project, product, vulnerability_name, date_added,
      short_description, required_action, due_date, ransomware, notes, cwes)
    select x.cve, x.vendor_project, x.product, x.vulnerability_name, x.date_added::date, x.short_description,
      x.required_action, x.due_date::date, x.ransomware, x.notes, array(select json_array_elements_text(x.cwes))
    from json_to_recordset(${json}::json) as x(cve text, vendor_project text, product text,
      vulnerability_name text, date_added text, short_description text, required_action text, due_date text,
      ransomware boolean, notes text, cwes json)`.execute(trx);
}

/**
 * Brings a source's rows to the staged ones, set-wise: a row whose values differ (or a new CVE) is
 * written and stamped with `snapshotId`; a row stating what the table already holds is not written
 * and keeps the snapshot that set it; with `replace` (a new snapshot), CVEs the file no longer names
 * are dropped. Every CVE written or dropped is recorded in `enrichment_changes`, which the re-score
 * reads (migration 2026-11-30T1200). The last of a CVE's staged rows wins. Returns the rows written
 * or dropped.
 */
async function settle(
  trx: Transaction<DB>,
  source: 'epss' | 'kev',
  snapshotId: number,
  replace: boolean,
): Promise<number> {
  const incoming = sql.table(INCOMING[source]);
  const table = sql.table(source === 'epss' ? 'epss_scores' : 'kev_entries');
  // Temporary tables have no statistics until analysed: the anti-join below wants a hash.
  await sql`analyze ${incoming}`.execute(trx);
  const written =
    source === 'epss'
      ? sql`insert into epss_scores (cve, epss, percentile, snapshot_id)
          select cve, epss, percentile, ${snapshotId}::integer from latest
          on conflict (cve) do update set epss = excluded.epss, percentile = excluded.percentile,
            snapshot_id = excluded.snapshot_id
          where (epss_scores.epss, epss_scores.percentile) is distinct from (excluded.epss, excluded.percentile)
          returning cve`
      : sql`insert into kev_entries (cve, vendor_project, product, vulnerability_name, date_added,
            short_description, required_action, due_date, ransomware, notes, cwes, snapshot_id)
          select cve, vendor_project, product, vulnerability_name, date_added, short_description,
            required_action, due_date, ransomware, notes, cwes, ${snapshotId}::integer from latest
          on conflict (cve) do update set vendor_project = excluded.vendor_project, product = excluded.product,
            vulnerability_name = excluded.vulnerability_name, date_added = excluded.date_added,
            short_description = excluded.short_description, required_action = excluded.required_action,
            due_date = excluded.due_date, ransomware = excluded.ransomware, notes = excluded.notes,
            cwes = excluded.cwes, snapshot_id = excluded.snapshot_id
          where (kev_entries.vendor_project, kev_entries.product, kev_entries.vulnerability_name,
              kev_entries.date_added, kev_entries.short_description, kev_entries.required_action,
              kev_entries.due_date, kev_entries.ransomware, kev_entries.notes, kev_entries.cwes)
            is distinct from (excluded.vendor_project, excluded.product, excluded.vulnerability_name,
              excluded.date_added, excluded.short_description, excluded.required_action, excluded.due_date,
              excluded.ransomware, excluded.notes, excluded.cwes)
          returning cve`;
  const { rows } = await sql<{ changed: number }>`
    with latest as (select distinct on (cve) * from ${incoming} order by cve, n desc),
    written as (${written}),
    gone as (
      delete from ${table} s
      where ${replace} and not exists (select 1 from ${incoming} i where i.cve = s.cve)
      returning s.cve),
    recorded as (
      insert into enrichment_changes (cve)
      select cve from written union select cve from gone
      on conflict (cve) do update set seq = excluded.seq
      returning 1)
    select ((select count(*) from written) + (select count(*) from gone)
      + 0 * (select count(*) from recorded))::integer as changed`.execute(trx);
  return rows[0]?.changed ?? 0;
}

export const settleEpss = (trx: Transaction<DB>, snapshotId: number, replace: boolean) =>
  settle(trx, 'epss', snapshotId, replace);
export const settleKev = (trx: Transaction<DB>, snapshotId: number, replace: boolean) =>
  settle(trx, 'kev', snapshotId, replace);

/**
 * Sets the current snapshot's row count from the rows its source holds (rows it restated keep the
 * snapshot that set them, but are its data all the same); says whether it changed.
 */
export async function settleRowCount(trx: Transaction<DB>, snapshot: SnapshotRow): Promise<number> {
  const table = sql.table(snapshot.source === 'epss' ? 'epss_scores' : 'kev_entries');
  const { rows } = await sql<{ row_count: number }>`update enrichment_snapshots
    set row_count = (select count(*) from ${table})::integer, updated_at = now()
    where id = ${snapshot.id} and row_count <> (select count(*) from ${table})::integer
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
