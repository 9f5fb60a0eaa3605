import type { Kysely, Selectable } from 'kysely';
import { authorizeOne, whereAccessible } from '../../access/access.ts';
import type { ResolvedApplication } from '../../access/resources.ts';
import { isAdmin, type UserPrincipal } from '../../access/principal.ts';
import type { ApplicationsTable, DB } from '../../db/schema.ts';
import { badRequest, conflict } from '../../errors.ts';
import { iso } from '../../http/schemas.ts';
import { randomToken, sha256Hex, type SecretBox } from '../../lib/secrets.ts';
import { recomputeRisk } from '../findings/risk.repository.ts';
import { presentVersion } from '../versions/versions.presenter.ts';
import { defaultVersionOf, insertDefaultVersion } from '../versions/versions.repository.ts';
import type {
  ApplicationRecord,
  CreateApplicationInput,
  UpdateApplicationInput,
} from './applications.schema.ts';

const TOKEN_PREFIX = 'sht_';
const VISIBLE_TOKEN_LENGTH = 12;

type ApplicationRow = Selectable<ApplicationsTable> & { group_path: string };

function presentApplication(row: ApplicationRow): ApplicationRecord {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    group_id: row.group_id,
    group_path: row.group_path,
    repository_url: row.repository_url,
    asset_criticality: row.asset_criticality,
    api_token_prefix: row.api_token_prefix,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

function applicationsQuery(db: Kysely<DB>) {
  return db
    .selectFrom('applications as app')
    .innerJoin('groups', 'groups.id', 'app.group_id')
    .selectAll('app')
    .select('groups.path as group_path');
}

/** A fresh token: the raw value for the response, its hash for lookup, a sealed copy at rest. */
function issueToken(secrets: SecretBox) {
  const token = randomToken(TOKEN_PREFIX);
  return {
    token,
    columns: {
      api_token_hash: sha256Hex(token),
      api_token_encrypted: secrets.seal(token),
      api_token_prefix: token.slice(0, VISIBLE_TOKEN_LENGTH),
    },
  };
}

async function assertSlugFree(db: Kysely<DB>, groupId: number, slug: string, exceptId = 0) {
  const row = await db
    .selectFrom('applications')
    .select('id')
    .where('group_id', '=', groupId)
    .where('slug', '=', slug)
    .where('id', '!=', exceptId)
    .executeTakeFirst();
  if (row) throw conflict('slug_taken', `An application with slug "${slug}" already exists in this group`);
}

export async function listApplications(db: Kysely<DB>, user: UserPrincipal): Promise<ApplicationRecord[]> {
  const rows = await applicationsQuery(db)
    .where(whereAccessible(user, 'application', 'read', 'app.id'))
    .orderBy('app.id')
    .execute();
  return rows.map(presentApplication);
}

/**
 * Creates an application in a group the caller may write to, with its default version and API
 * token, in one transaction. A member creator gets write on it.
 */
export async function createApplication(
  db: Kysely<DB>,
  secrets: SecretBox,
  user: UserPrincipal,
  input: CreateApplicationInput,
) {
  const groupRef = input.group_id;
  if (groupRef === undefined) {
    throw badRequest('validation_failed', 'group_id is required', [
      { path: 'body.group_id', message: 'is required' },
    ]);
  }
  const group = await authorizeOne(db, user, 'group', String(groupRef), 'write');
  await assertSlugFree(db, group.id, input.slug);
  const { token, columns } = issueToken(secrets);
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .insertInto('applications')
      .values({
        group_id: group.id,
        name: input.name,
        slug: input.slug,
        repository_url: input.repository_url ?? null,
        asset_criticality: input.asset_criticality ?? 'medium',
        created_by: user.id,
        ...columns,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    const version = await insertDefaultVersion(trx, row.id);
    if (!isAdmin(user)) {
      await trx
        .insertInto('permission_policies')
        .values({ user_id: user.id, application_id: row.id, action: 'write', created_by: user.id })
        .execute();
    }
    return {
      ...presentApplication({ ...row, group_path: group.path }),
      default_version: presentVersion(version),
      api_token: token,
    };
  });
}

export async function getApplication(db: Kysely<DB>, { id }: ResolvedApplication) {
  const row = await applicationsQuery(db).where('app.id', '=', id).executeTakeFirstOrThrow();
  const version = await defaultVersionOf(db, id);
  return { ...presentApplication(row), default_version: version ? presentVersion(version) : null };
}

export async function updateApplication(
  db: Kysely<DB>,
  { id, group_id }: ResolvedApplication,
  input: UpdateApplicationInput,
): Promise<ApplicationRecord> {
  if (input.slug !== undefined) await assertSlugFree(db, group_id, input.slug, id);
  const repositoryUrl = input.repository_url;
  const criticality = input.asset_criticality;
  await db.transaction().execute(async (trx) => {
    const before = await trx
      .selectFrom('applications')
      .select('asset_criticality')
      .where('id', '=', id)
      .forUpdate()
      .executeTakeFirstOrThrow();
    await trx
      .updateTable('applications')
      .set({
        ...(input.name === undefined ? {} : { name: input.name }),
        ...(input.slug === undefined ? {} : { slug: input.slug }),
        ...(repositoryUrl === undefined ? {} : { repository_url: repositoryUrl }),
        ...(criticality === undefined ? {} : { asset_criticality: criticality }),
        updated_at: new Date(),
      })
      .where('id', '=', id)
      .execute();
    // Asset criticality is M in every finding's risk score.
    if (criticality !== undefined && criticality !== before.asset_criticality) {
      await recomputeRisk(trx, { applicationId: id });
    }
  });
  return presentApplication(await applicationsQuery(db).where('app.id', '=', id).executeTakeFirstOrThrow());
}

/** Deletes the application and everything it owns (versions, grants, scans, findings) in one transaction. */
export async function deleteApplication(db: Kysely<DB>, { id }: ResolvedApplication) {
  await db.transaction().execute(async (trx) => {
    // Foreign keys cascade from applications to everything below them.
    await trx.deleteFrom('applications').where('id', '=', id).execute();
  });
  return { id, deleted: true };
}

export async function regenerateToken(db: Kysely<DB>, secrets: SecretBox, { id }: ResolvedApplication) {
  const { token, columns } = issueToken(secrets);
  await db
    .updateTable('applications')
    .set({ ...columns, updated_at: new Date() })
    .where('id', '=', id)
    .execute();
  return { id, api_token: token, api_token_prefix: columns.api_token_prefix };
}
