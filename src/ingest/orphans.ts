import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { PROCESS_INSTANCE_ID, type InstanceRegistry } from './process-instance.ts';
import { dropUnusedVersions } from './resolve-version.ts';

export interface OrphansRemoved {
  stagingRows: number;
  spoolFiles: number;
  /** Findings of merges that never completed (PGlite merges in chunks), and their sync scans. */
  unpublishedFindings: number;
  unfinishedScans: number;
  /** Versions those scans' uploads had created, unused by anything else. */
  createdVersions: number;
}

/**
 * What a chunked merge (PGlite, landing/pglite-chunked-merge.ts) interrupted by a crash left: findings whose scan
 * never completed — hidden by the process that died, and never counted by the ledger, so deleted
 * without a trace — and the scan of a sync upload, `processing` with no stored upload to finish it
 * from, with the version its upload created if nothing else uses it. Safe beside live processes on
 * PostgreSQL: there a merge is one transaction, whose findings (and version) no one else sees before
 * it completes the scan, and an async scan keeps its stored upload until its job has marked it
 * completed or failed.
 */
async function discardUnfinishedMerges(
  db: Kysely<DB>,
): Promise<Pick<OrphansRemoved, 'unpublishedFindings' | 'unfinishedScans' | 'createdVersions'>> {
  // Nearly every start finds nothing unfinished. Asked first, this question spares the deletes
  // below, whose first planning loads findings' dozen indexes and the foreign keys onto scans: on
  // PGlite, 170–230 ms of each start, against ~8 ms for the question (a new empty database, 4 starts).
  const unfinished = await sql<{ any: boolean }>`
    select exists (select 1 from scans where status <> 'completed')
      or exists (select 1 from finding_counts_unpublished) as any`.execute(db);
  if (!unfinished.rows[0]?.any) return { unpublishedFindings: 0, unfinishedScans: 0, createdVersions: 0 };
  return db.transaction().execute(async (trx) => {
    const findings = await sql`delete from findings f where exists (
      select 1 from scans s where s.id = f.first_scan_id and s.status <> 'completed')`.execute(trx);
    // Their counts, set apart by scan, now sum to zero (rows of merges still running elsewhere
    // are not committed, so not seen).
    await sql`delete from finding_counts_unpublished u where not exists (
      select 1 from scans s where s.id = u.scan_id and s.status = 'completed')`.execute(trx);
    const scans = await sql<{ version_id: number; created_version: boolean }>`
      delete from scans s where s.status = 'processing'
        and not exists (select 1 from upload_chunks c where c.scan_id = s.id)
      returning version_id, created_version`.execute(trx);
    const created = scans.rows.filter((scan) => scan.created_version).map((scan) => scan.version_id);
    return {
      unpublishedFindings: Number(findings.numAffectedRows ?? 0),
      unfinishedScans: scans.rows.length,
      createdVersions: await dropUnusedVersions(trx, [...new Set(created)]),
    };
  });
}

/** Staging rows of uploads whose process is gone (keys without an instance id included). */
async function discardOrphanStaging(db: Kysely<DB>, registry: InstanceRegistry): Promise<number> {
  const owners = await sql<{ instance: string }>`
    select distinct split_part(upload_key, '-', 2) as instance from ingest_staging`.execute(db);
  let removed = 0;
  for (const { instance } of owners.rows) {
    if (await registry.isLive(instance)) continue;
    const result = await sql`
      delete from ingest_staging where split_part(upload_key, '-', 2) = ${instance}`.execute(db);
    removed += Number(result.numAffectedRows ?? 0);
  }
  return removed;
}

async function entriesOf(dir: string) {
  try {
    return await readdir(dir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/**
 * Spool files of processes that are gone. Nothing in them is needed any more: an async upload is
 * stored in the database with its pending scan, and a worker restores it from there.
 */
async function discardOrphanSpool(uploadsDir: string, registry: InstanceRegistry): Promise<number> {
  let removed = 0;
  for (const entry of await entriesOf(uploadsDir)) {
    const path = join(uploadsDir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name === PROCESS_INSTANCE_ID || (await registry.isLive(entry.name))) continue;
      removed += (await entriesOf(path)).length;
    } else {
      removed++; // spooled straight into uploads/ by versions without per-process directories
    }
    await rm(path, { recursive: true, force: true });
  }
  return removed;
}

/**
 * At start: removes what uploads interrupted by a crash left behind — staging rows and spool files
 * no live process owns, findings and scans of merges that never completed. Uploads of live
 * processes (PostgreSQL shared by several) are not touched.
 */
export async function discardOrphans(
  db: Kysely<DB>,
  dataDir: string,
  registry: InstanceRegistry,
): Promise<OrphansRemoved> {
  return {
    stagingRows: await discardOrphanStaging(db, registry),
    spoolFiles: await discardOrphanSpool(join(dataDir, 'uploads'), registry),
    ...(await discardUnfinishedMerges(db)),
  };
}
