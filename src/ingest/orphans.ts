import { readdir, rm, rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { PROCESS_INSTANCE_ID, type InstanceRegistry } from './process-instance.ts';

export interface OrphansRemoved {
  stagingRows: number;
  spoolFiles: number;
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
 * Spool files of processes that are gone. Files of queued async uploads are kept: the restart
 * resumes those scans from them.
 */
async function discardOrphanSpool(
  db: Kysely<DB>,
  uploadsDir: string,
  registry: InstanceRegistry,
): Promise<number> {
  const queued = await db
    .selectFrom('scans')
    .select('spool_path')
    .where('status', 'in', ['pending', 'processing'])
    .where('spool_path', 'is not', null)
    .execute();
  const keep = new Set(queued.map((scan) => scan.spool_path));
  let removed = 0;
  const removeUnqueued = async (path: string) => {
    if (keep.has(path)) return;
    await rm(path, { force: true });
    removed++;
  };
  for (const entry of await entriesOf(uploadsDir)) {
    const path = join(uploadsDir, entry.name);
    // Spooled straight into uploads/ by versions without per-process directories.
    if (!entry.isDirectory()) {
      await removeUnqueued(path);
      continue;
    }
    if (entry.name === PROCESS_INSTANCE_ID || (await registry.isLive(entry.name))) continue;
    for (const file of await entriesOf(path)) await removeUnqueued(join(path, file.name));
    await rmdir(path).catch(() => undefined); // still holds a queued upload's file
  }
  return removed;
}

/**
 * At start: removes what uploads interrupted by a crash left behind — staging rows and spool files
 * no live process owns. Uploads of live processes (PostgreSQL shared by several) are not touched.
 */
export async function discardOrphans(
  db: Kysely<DB>,
  dataDir: string,
  registry: InstanceRegistry,
): Promise<OrphansRemoved> {
  return {
    stagingRows: await discardOrphanStaging(db, registry),
    spoolFiles: await discardOrphanSpool(db, join(dataDir, 'uploads'), registry),
  };
}
