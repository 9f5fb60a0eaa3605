import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';

/** An upload's version, and whether resolving it created it (`scans.created_version`). */
export interface ResolvedVersion {
  id: number;
  name: string;
  created: boolean;
}

/**
 * docs/architecture.md, "The version of an upload": `version` name → found or created (with `branch` if
 * given); else `branch` → a version of that name; else the default version.
 */
export async function resolveVersion(
  trx: Transaction<DB>,
  applicationId: number,
  versionName: string | undefined,
  branch: string | undefined,
): Promise<ResolvedVersion> {
  const name = versionName ?? branch;
  if (name === undefined) {
    const found = await trx
      .selectFrom('application_versions')
      .select(['id', 'name'])
      .where('application_id', '=', applicationId)
      .where('is_default', '=', true)
      .executeTakeFirstOrThrow();
    return { ...found, created: false };
  }
  const inserted = await trx
    .insertInto('application_versions')
    .values({ application_id: applicationId, name, branch: branch ?? null })
    .onConflict((oc) => oc.columns(['application_id', 'name']).doNothing())
    .returning('id')
    .executeTakeFirst();
  const version = await trx
    .selectFrom('application_versions')
    .select(['id', 'name', 'branch'])
    .where('application_id', '=', applicationId)
    .where('name', '=', name)
    .executeTakeFirstOrThrow();
  if (branch !== undefined && version.branch !== branch) {
    await trx
      .updateTable('application_versions')
      .set({ branch, updated_at: new Date() })
      .where('id', '=', version.id)
      .execute();
  }
  return { id: version.id, name: version.name, created: inserted !== undefined };
}

/**
 * Deletes the versions among `versionIds` that uploads created (`scans.created_version`) when
 * nothing uses them any more: not the default version, no scan, no finding. Called once the scans
 * of failed uploads are gone; a version another upload has opened a scan in since stays.
 */
export async function dropUnusedVersions(
  db: Kysely<DB> | Transaction<DB>,
  versionIds: readonly number[],
): Promise<number> {
  if (versionIds.length === 0) return 0;
  const deleted = await sql`delete from application_versions v
    where v.id in (${sql.join(versionIds)}) and not v.is_default
      and not exists (select 1 from scans s where s.version_id = v.id)
      and not exists (select 1 from findings f where f.version_id = v.id)`.execute(db);
  return Number(deleted.numAffectedRows ?? 0);
}
