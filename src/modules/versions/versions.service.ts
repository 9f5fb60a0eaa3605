import type { Kysely } from 'kysely';
import type { InApplication, ResolvedApplication, VersionRow } from '../../access/resources.ts';
import type { DB } from '../../db/schema.ts';
import { recordAudit, type AuditContext } from '../../events/audit.ts';
import { conflict } from '../../errors.ts';
import { presentVersion } from './versions.presenter.ts';
import { unsetDefaultVersion } from './versions.repository.ts';
import type { CreateVersionInput, UpdateVersionInput, VersionRecord } from './versions.schema.ts';

const nameTaken = (name: string) =>
  conflict('version_name_taken', `A version named "${name}" already exists`);

async function assertNameFree(db: Kysely<DB>, applicationId: number, name: string, exceptId = 0) {
  const row = await db
    .selectFrom('application_versions')
    .select('id')
    .where('application_id', '=', applicationId)
    .where('name', '=', name)
    .where('id', '!=', exceptId)
    .executeTakeFirst();
  if (row) throw nameTaken(name);
}

export async function listVersions(db: Kysely<DB>, app: ResolvedApplication): Promise<VersionRecord[]> {
  const rows = await db
    .selectFrom('application_versions')
    .selectAll()
    .where('application_id', '=', app.id)
    .orderBy('id')
    .execute();
  return rows.map(presentVersion);
}

export async function createVersion(
  db: Kysely<DB>,
  app: ResolvedApplication,
  input: CreateVersionInput,
): Promise<VersionRecord> {
  await assertNameFree(db, app.id, input.name);
  return db.transaction().execute(async (trx) => {
    if (input.is_default) await unsetDefaultVersion(trx, app.id);
    const row = await trx
      .insertInto('application_versions')
      .values({
        application_id: app.id,
        name: input.name,
        branch: input.branch ?? null,
        tag: input.tag ?? null,
        is_default: input.is_default ?? false,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return presentVersion(row);
  });
}

export async function updateVersion(
  db: Kysely<DB>,
  { application: app, record: version }: InApplication<VersionRow>,
  input: UpdateVersionInput,
): Promise<VersionRecord> {
  if (input.name !== undefined) await assertNameFree(db, app.id, input.name, version.id);
  return db.transaction().execute(async (trx) => {
    if (input.is_default && !version.is_default) await unsetDefaultVersion(trx, app.id);
    const row = await trx
      .updateTable('application_versions')
      .set({
        ...(input.name === undefined ? {} : { name: input.name }),
        ...(input.branch === undefined ? {} : { branch: input.branch }),
        ...(input.tag === undefined ? {} : { tag: input.tag }),
        ...(input.is_default ? { is_default: true } : {}),
        updated_at: new Date(),
      })
      .where('id', '=', version.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    return presentVersion(row);
  });
}

/** Deletes a version and what belongs to it; the default version → 409 until another is default. */
/** Deleting a version deletes its findings and scans: who did it, and what it removed, is kept. */
export async function deleteVersion(
  db: Kysely<DB>,
  { record: version }: InApplication<VersionRow>,
  audit: AuditContext,
) {
  if (version.is_default) {
    throw conflict(
      'default_version',
      'The default version cannot be deleted; make another version the default first',
    );
  }
  const counts = await versionContentCounts(db, version.id);
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('application_versions').where('id', '=', version.id).execute();
    await recordAudit(trx, audit, {
      action: 'version.deleted',
      target: { type: 'version', id: version.id, label: version.name },
      applicationId: version.application_id,
      details: { ...counts },
    });
  });
}

/** How many findings and scans belong to a version (what deleting it removes). */
export async function versionContentCounts(db: Kysely<DB>, versionId: number) {
  const row = await db
    .selectNoFrom((eb) => [
      eb
        .selectFrom('findings')
        .select(eb.fn.countAll<string>().as('n'))
        .where('version_id', '=', versionId)
        .as('finding_count'),
      eb
        .selectFrom('scans')
        .select(eb.fn.countAll<string>().as('n'))
        .where('version_id', '=', versionId)
        .as('scan_count'),
    ])
    .executeTakeFirstOrThrow();
  return { finding_count: Number(row.finding_count), scan_count: Number(row.scan_count) };
}
