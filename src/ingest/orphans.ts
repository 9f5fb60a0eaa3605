import { readdir, rm } from 'node:fs/promises';
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
 * no live process owns. Uploads of live processes (PostgreSQL shared by several) are not touched.
 */
export async function discardOrphans(
  db: Kysely<DB>,
  dataDir: string,
  registry: InstanceRegistry,
): Promise<OrphansRemoved> {
  return {
    stagingRows: await discardOrphanStaging(db, registry),
    spoolFiles: await discardOrphanSpool(join(dataDir, 'uploads'), registry),
  };
}
