import type { Kysely, Transaction } from 'kysely';
import { parseId } from '../../access/access.ts';
import type { DB } from '../../db/schema.ts';

export const DEFAULT_VERSION_NAME = 'default';

/** A version of `applicationId` by id, or by name when the reference is not an id of that application. */
export async function findVersion(db: Kysely<DB>, applicationId: number, ref: string) {
  const id = parseId(ref);
  const rows = await db
    .selectFrom('application_versions')
    .selectAll()
    .where('application_id', '=', applicationId)
    .where((eb) => (id === null ? eb('name', '=', ref) : eb.or([eb('id', '=', id), eb('name', '=', ref)])))
    .execute();
  return rows.find((row) => row.id === id) ?? rows[0];
}

export async function insertDefaultVersion(trx: Transaction<DB>, applicationId: number) {
  return trx
    .insertInto('application_versions')
    .values({ application_id: applicationId, name: DEFAULT_VERSION_NAME, is_default: true })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** No version of the application is the default any more: the first half of making another one it. */
export async function unsetDefaultVersion(trx: Transaction<DB>, applicationId: number): Promise<void> {
  await trx
    .updateTable('application_versions')
    .set({ is_default: false })
    .where('application_id', '=', applicationId)
    .execute();
}

export async function defaultVersionOf(db: Kysely<DB>, applicationId: number) {
  return db
    .selectFrom('application_versions')
    .selectAll()
    .where('application_id', '=', applicationId)
    .where('is_default', '=', true)
    .executeTakeFirst();
}
