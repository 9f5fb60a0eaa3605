import type { Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';

/**
 * DESIGN.md §5 step 2: `version` name → found or created (with `branch` if given); else `branch` →
 * a version of that name; else the default version.
 */
export async function resolveVersion(
  trx: Transaction<DB>,
  applicationId: number,
  versionName: string | undefined,
  branch: string | undefined,
): Promise<{ id: number; name: string }> {
  const name = versionName ?? branch;
  if (name === undefined) {
    return trx
      .selectFrom('application_versions')
      .select(['id', 'name'])
      .where('application_id', '=', applicationId)
      .where('is_default', '=', true)
      .executeTakeFirstOrThrow();
  }
  await trx
    .insertInto('application_versions')
    .values({ application_id: applicationId, name, branch: branch ?? null })
    .onConflict((oc) => oc.columns(['application_id', 'name']).doNothing())
    .execute();
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
  return { id: version.id, name: version.name };
}
