import type { Kysely, Selectable, Transaction } from 'kysely';
import { authorizeOne, whereAccessible } from '../../access/access.ts';
import type { ResolvedApplication } from '../../access/resources.ts';
import { isAdmin, type UserPrincipal } from '../../access/principal.ts';
import type { ApplicationsTable, DB } from '../../db/schema.ts';
import { recordAudit, type AuditContext } from '../../events/audit.ts';
import { badRequest, conflict } from '../../errors.ts';
import { iso } from '../../http/schemas.ts';
import { randomToken, sha256Hex, type SecretBox } from '../../lib/secrets.ts';
import { recomputeDueDates } from '../../domain/findings/sla.ts';
import type { JobSender } from '../../jobs/job-map.ts';
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
  audit: AuditContext,
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
    // The application token is created with it: its prefix is recorded, never the token.
    await recordAudit(trx, audit, {
      action: 'application.created',
      target: { type: 'application', id: row.id, label: `${group.path}/${row.slug}` },
      applicationId: row.id,
      after: {
        name: row.name,
        slug: row.slug,
        group_id: row.group_id,
        repository_url: row.repository_url,
        asset_criticality: row.asset_criticality,
        api_token_prefix: row.api_token_prefix,
      },
      ...(isAdmin(user) ? {} : { details: { creator_granted: 'write' } }),
    });
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
  { db, jobs }: { db: Kysely<DB>; jobs: Pick<JobSender, 'sendMany'> },
  user: UserPrincipal,
  { id, group_id }: ResolvedApplication,
  input: UpdateApplicationInput,
  audit: AuditContext,
): Promise<ApplicationRecord> {
  // A move needs write on the target group too, and the slug free there.
  const target =
    input.group_id === undefined
      ? undefined
      : await authorizeOne(db, user, 'group', String(input.group_id), 'write');
  const groupId = target?.id ?? group_id;
  if (input.slug !== undefined || groupId !== group_id) {
    const slug =
      input.slug ??
      (await db.selectFrom('applications').select('slug').where('id', '=', id).executeTakeFirstOrThrow())
        .slug;
    await assertSlugFree(db, groupId, slug, id);
  }
  const repositoryUrl = input.repository_url;
  const criticality = input.asset_criticality;
  await db.transaction().execute(async (trx) => {
    const before = await trx
      .selectFrom('applications')
      .select(['name', 'slug', 'repository_url', 'asset_criticality', 'group_id'])
      .where('id', '=', id)
      .forUpdate()
      .executeTakeFirstOrThrow();
    const after = await trx
      .updateTable('applications')
      .set({
        ...(input.name === undefined ? {} : { name: input.name }),
        ...(input.slug === undefined ? {} : { slug: input.slug }),
        ...(repositoryUrl === undefined ? {} : { repository_url: repositoryUrl }),
        ...(criticality === undefined ? {} : { asset_criticality: criticality }),
        ...(target === undefined ? {} : { group_id: target.id }),
        updated_at: new Date(),
      })
      .where('id', '=', id)
      .returning(['name', 'slug', 'repository_url', 'asset_criticality', 'group_id'])
      .executeTakeFirstOrThrow();
    // Asset criticality is M in every finding's risk score.
    if (criticality !== undefined && criticality !== before.asset_criticality) {
      await recomputeRisk(trx, { applicationId: id });
    }
    if (after.group_id !== before.group_id) await moved(trx, jobs, id);
    if (JSON.stringify(before) !== JSON.stringify(after)) {
      await recordAudit(trx, audit, {
        action: 'application.updated',
        target: { type: 'application', id, label: after.slug },
        applicationId: id,
        before: { ...before },
        after: { ...after },
      });
    }
  });
  return presentApplication(await applicationsQuery(db).where('app.id', '=', id).executeTakeFirstOrThrow());
}

/**
 * What follows the group an application is in, after a move: the licence policies in force (a
 * group's cover its subgroups' applications) are evaluated again on each of its versions, and its
 * findings' due dates follow the new group's SLA chain; both committed with the move.
 */
async function moved(
  trx: Transaction<DB>,
  jobs: Pick<JobSender, 'sendMany'>,
  applicationId: number,
): Promise<void> {
  await recomputeDueDates(trx, { applicationIds: [applicationId] });
  const versions = await trx
    .selectFrom('application_versions')
    .select('id')
    .where('application_id', '=', applicationId)
    .orderBy('id')
    .execute();
  if (versions.length > 0) {
    await jobs.sendMany(
      trx,
      'license-evaluate',
      versions.map((version) => ({ versionId: version.id })),
    );
  }
}

/** Deletes the application and everything it owns (versions, grants, scans, findings) in one transaction. */
export async function deleteApplication(db: Kysely<DB>, { id }: ResolvedApplication, audit: AuditContext) {
  await db.transaction().execute(async (trx) => {
    // Foreign keys cascade from applications to everything below them.
    const deleted = await trx
      .deleteFrom('applications')
      .where('id', '=', id)
      .returning(['name', 'slug', 'group_id'])
      .executeTakeFirst();
    await recordAudit(trx, audit, {
      action: 'application.deleted',
      target: { type: 'application', id, label: deleted?.slug ?? null },
      applicationId: id,
      before: deleted ? { ...deleted } : null,
    });
  });
  return { id, deleted: true };
}

export async function regenerateToken(
  db: Kysely<DB>,
  secrets: SecretBox,
  { id }: ResolvedApplication,
  audit: AuditContext,
) {
  const { token, columns } = issueToken(secrets);
  await db.transaction().execute(async (trx) => {
    const before = await trx
      .selectFrom('applications')
      .select(['slug', 'api_token_prefix'])
      .where('id', '=', id)
      .forUpdate()
      .executeTakeFirstOrThrow();
    await trx
      .updateTable('applications')
      .set({ ...columns, updated_at: new Date() })
      .where('id', '=', id)
      .execute();
    // The prefixes tell the tokens apart; the old token stops working now.
    await recordAudit(trx, audit, {
      action: 'application_token.regenerated',
      target: { type: 'application', id, label: before.slug },
      applicationId: id,
      before: { api_token_prefix: before.api_token_prefix },
      after: { api_token_prefix: columns.api_token_prefix },
    });
  });
  return { id, api_token: token, api_token_prefix: columns.api_token_prefix };
}
