import { randomBytes } from 'node:crypto';
import type { Insertable } from 'kysely';
import type { UserPrincipal } from '../../src/access/principal.ts';
import type { AccessAction, FindingsTable } from '../../src/db/schema.ts';
import { systemAuditContext } from '../../src/events/audit.ts';
import { createApiKey } from '../../src/modules/api-keys/api-keys.service.ts';
import { createApplication } from '../../src/modules/applications/applications.service.ts';
import { createGroup } from '../../src/modules/groups/groups.service.ts';
import { createUser } from '../../src/modules/users/users.service.ts';
import type { TestApp } from './test-app.ts';

/** Small builders with overrides; every test makes its own rows. */

const unique = (): string => randomBytes(4).toString('hex');

/** What the builders' own writes record in the audit trail: set-up, not a request. */
export const TEST_AUDIT = systemAuditContext('test set-up');

export interface TestUser {
  id: number;
  email: string;
  role: 'admin' | 'member';
  principal: UserPrincipal;
  key: string;
  /** Headers that authenticate as this user by API key. */
  headers: { 'x-api-key': string };
}

export async function makeUser(
  t: TestApp,
  overrides: { role?: 'admin' | 'member'; email?: string; password?: string } = {},
): Promise<TestUser> {
  const role = overrides.role ?? 'member';
  const user = await createUser(
    t.db,
    {
      email: overrides.email ?? `user-${unique()}@example.test`,
      password: overrides.password ?? 'correct horse battery staple',
      role,
    },
    TEST_AUDIT,
  );
  const principal: UserPrincipal = {
    kind: 'user',
    id: user.id,
    email: user.email,
    name: user.name,
    role,
    via: 'api_key',
  };
  // As the user would, signed in: keys are made by sessions only.
  const { key } = await createApiKey(
    t.db,
    { ...principal, via: 'session' },
    { name: 'test key' },
    TEST_AUDIT,
  );
  return { id: user.id, email: user.email, role, principal, key, headers: { 'x-api-key': key } };
}

export async function makeGroup(
  t: TestApp,
  owner: TestUser,
  overrides: { path?: string; name?: string } = {},
) {
  const path = overrides.path ?? `group-${unique()}`;
  return createGroup(t.db, owner.principal, { name: overrides.name ?? path, path }, TEST_AUDIT);
}

export async function makeApplication(
  t: TestApp,
  owner: TestUser,
  overrides: {
    slug?: string;
    groupId?: number;
    assetCriticality?: 'low' | 'medium' | 'high' | 'critical';
  } = {},
) {
  const groupId = overrides.groupId ?? (await makeGroup(t, owner)).id;
  const slug = overrides.slug ?? `app-${unique()}`;
  return createApplication(
    t.db,
    t.secrets,
    owner.principal,
    {
      name: slug,
      slug,
      group_id: groupId,
      asset_criticality: overrides.assetCriticality ?? 'medium',
    },
    TEST_AUDIT,
  );
}

/** Grants `user` an action on an application directly. */
export async function grant(
  t: TestApp,
  user: TestUser,
  applicationId: number,
  action: AccessAction,
): Promise<void> {
  await t.db
    .insertInto('permission_policies')
    .values({ user_id: user.id, application_id: applicationId, action })
    .execute();
}

/** The id of an application's default version. */
export async function defaultVersionId(t: TestApp, applicationId: number): Promise<number> {
  const version = await t.db
    .selectFrom('application_versions')
    .select('id')
    .where('application_id', '=', applicationId)
    .where('is_default', '=', true)
    .executeTakeFirstOrThrow();
  return version.id;
}

/** The id of a registered scanner type. */
export async function scannerTypeId(t: TestApp, name = 'sarif'): Promise<number> {
  const type = await t.db
    .selectFrom('scanner_types')
    .select('id')
    .where('name', '=', name)
    .executeTakeFirstOrThrow();
  return type.id;
}

/** A finding row written directly (no ingest), for tests of the findings API. */
/** EPSS a test finding may be given: written to `finding_epss` (migration 2026-11-29T1600), not `findings`. */
export interface FindingEpss {
  epss?: number | null;
  epss_percentile?: number | null;
  epss_snapshot_id?: number | null;
}

export async function makeFinding(
  t: TestApp,
  applicationId: number,
  overrides: Partial<Insertable<FindingsTable>> & FindingEpss = {},
) {
  const { epss = null, epss_percentile = null, epss_snapshot_id = null, ...columns } = overrides;
  const version = columns.version_id ?? (await defaultVersionId(t, applicationId));
  const fingerprint = `fp-${unique()}`;
  const severity = columns.severity ?? 'high';
  const rank = { critical: 5, high: 4, medium: 3, low: 2, info: 1 }[severity];
  const row = await t.db
    .insertInto('findings')
    .values({
      application_id: applicationId,
      version_id: version,
      scanner_type_id: await scannerTypeId(t),
      fingerprint,
      identity_base: fingerprint,
      kind: 'code',
      title: `Finding ${unique()}`,
      severity,
      severity_rank: rank,
      status: 'open',
      tool_name: 'TestTool',
      file_path: 'src/app.ts',
      line: 10,
      risk_score: 50,
      risk_severity: 8,
      risk_exploitation: 0.2,
      risk_age: 0,
      risk_asset: 0.65,
      risk_formula_version: 1,
      ...columns,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  if (epss !== null) {
    await t.db
      .insertInto('finding_epss')
      .values({
        finding_id: row.id,
        application_id: row.application_id,
        epss,
        percentile: epss_percentile,
        snapshot_id: epss_snapshot_id,
      })
      .execute();
  }
  return { ...row, epss, epss_percentile, epss_snapshot_id: epss === null ? null : epss_snapshot_id };
}

/** The four people most access tests start from: an admin and three members with no grant yet. */
export interface People {
  admin: TestUser;
  writer: TestUser;
  reader: TestUser;
  outsider: TestUser;
}

export async function makePeople(t: TestApp): Promise<People> {
  return {
    admin: await makeUser(t, { role: 'admin' }),
    writer: await makeUser(t),
    reader: await makeUser(t),
    outsider: await makeUser(t),
  };
}

/** An application the admin made, which `writer` may write and `reader` may read. */
export async function grantedApplication(
  t: TestApp,
  { admin, writer, reader }: Pick<People, 'admin' | 'writer' | 'reader'>,
): ReturnType<typeof makeApplication> {
  const application = await makeApplication(t, admin);
  await grant(t, writer, application.id, 'write');
  await grant(t, reader, application.id, 'read');
  return application;
}

/** The people and one application they hold their grants on. */
export interface Cast extends People {
  applicationId: number;
}

export async function makeCast(t: TestApp): Promise<Cast> {
  const people = await makePeople(t);
  return { ...people, applicationId: (await grantedApplication(t, people)).id };
}
