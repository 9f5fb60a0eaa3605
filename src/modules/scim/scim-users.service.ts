import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { recordAudit, type AuditContext } from '../../events/audit.ts';
import { iso } from '../../http/schemas.ts';
import { randomToken } from '../../lib/secrets.ts';
import { normalizeEmail } from '../users/email.ts';
import { hashPassword } from '../users/users.service.ts';
import { ScimError, scimBadRequest, scimNotFound } from './scim-errors.ts';
import { filterCondition, idCondition, textValue, type FilterAttributes } from './scim-filter.ts';
import {
  listResponse,
  page,
  patched,
  projected,
  referencesByOwner,
  type ScimReference,
} from './scim-resource.ts';
import {
  ScimUserBody,
  USER_SCHEMA,
  scimBoolean,
  type ScimListQueryInput,
  type ScimPatchInput,
  type ScimUserInput,
} from './scim.schema.ts';

/**
 * SCIM Users over scanhub's users (RFC 7643 §4.1): `userName` is the email unless the provider chose
 * another name; `active: false` disables the account, ends its sessions and revokes its API keys in
 * the same transaction; DELETE does the same and hides the user from SCIM, keeping its history. The
 * last active admin is never disabled. Provisioned people have no usable password: they sign in
 * through the provider (OpenID Connect).
 */

const USER_COLUMNS = [
  'users.id',
  'users.email',
  'users.name',
  'users.disabled',
  'users.scim_user_name',
  'users.scim_external_id',
  'users.created_at',
  'users.updated_at',
] as const;

interface UserRow {
  id: number;
  email: string;
  name: string;
  disabled: boolean;
  scim_user_name: string | null;
  scim_external_id: string | null;
  created_at: Date;
  updated_at: Date;
}

const FILTERS: FilterAttributes = {
  username: (value) => {
    const name = textValue('userName', value).toLowerCase();
    return sql`lower(coalesce(users.scim_user_name, users.email)) = ${name}`;
  },
  externalid: (value) => sql`users.scim_external_id = ${textValue('externalId', value)}`,
  id: (value) => idCondition(sql.ref('users.id'), value),
  emails: (value) => sql`lower(users.email) = ${textValue('emails.value', value).toLowerCase()}`,
  active: (value) => {
    if (typeof value !== 'boolean')
      throw scimBadRequest('invalidFilter', 'active is compared with true or false');
    return sql`users.disabled = ${!value}`;
  },
};

async function groupsOf(db: Kysely<DB>, userIds: number[]): Promise<Map<number, ScimReference[]>> {
  if (userIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('team_members')
    .innerJoin('teams', 'teams.id', 'team_members.team_id')
    .select(['team_members.user_id as owner', 'teams.id', 'teams.name'])
    .where('team_members.user_id', 'in', userIds)
    .where('teams.scim_managed', '=', true)
    .orderBy('teams.id')
    .execute();
  return referencesByOwner(rows);
}

function present(row: UserRow, base: string, groups: ScimReference[]): Record<string, unknown> {
  return {
    schemas: [USER_SCHEMA],
    id: String(row.id),
    ...(row.scim_external_id === null ? {} : { externalId: row.scim_external_id }),
    userName: row.scim_user_name ?? row.email,
    name: { formatted: row.name },
    displayName: row.name,
    emails: [{ value: row.email, type: 'work', primary: true }],
    active: !row.disabled,
    groups: groups.map((group) => ({ ...group, $ref: `${base}/Groups/${group.value}` })),
    meta: {
      resourceType: 'User',
      created: iso(row.created_at),
      lastModified: iso(row.updated_at),
      location: `${base}/Users/${row.id}`,
    },
  };
}

async function presentOne(db: Kysely<DB>, row: UserRow, base: string) {
  return present(row, base, (await groupsOf(db, [row.id])).get(row.id) ?? []);
}

const visibleUsers = (db: Kysely<DB>) =>
  db.selectFrom('users').select(USER_COLUMNS).where('users.scim_removed_at', 'is', null);

async function findUser(db: Kysely<DB>, idParam: string, lock = false): Promise<UserRow> {
  const row = await visibleUsers(db)
    .where(idCondition(sql.ref('users.id'), idParam))
    .$if(lock, (query) => query.forUpdate())
    .executeTakeFirst();
  if (!row) throw scimNotFound('User', idParam);
  return row;
}

export async function getScimUser(db: Kysely<DB>, base: string, idParam: string, query: ScimListQueryInput) {
  return projected(await presentOne(db, await findUser(db, idParam), base), query);
}

export async function listScimUsers(db: Kysely<DB>, base: string, query: ScimListQueryInput) {
  const where = query.filter === undefined ? sql<boolean>`true` : filterCondition(query.filter, FILTERS);
  const { offset, limit, startIndex } = page(query);
  const total = await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .where('users.scim_removed_at', 'is', null)
    .where(where)
    .executeTakeFirstOrThrow();
  const rows =
    limit === 0
      ? []
      : await visibleUsers(db).where(where).orderBy('users.id').offset(offset).limit(limit).execute();
  const groups = await groupsOf(
    db,
    rows.map((row) => row.id),
  );
  const resources = rows.map((row) => projected(present(row, base, groups.get(row.id) ?? []), query));
  return listResponse(resources, Number(total.count), startIndex);
}

/** What scanhub keeps of a User body. */
interface UserFields {
  email: string;
  scimUserName: string | null;
  name: string;
  externalId: string | null;
  active: boolean | undefined;
}

const EMAIL_SHAPE = /^[^\s@]+@[^\s@]+$/;

function fieldsOf(input: ScimUserInput): UserFields {
  if (!input.schemas.includes(USER_SCHEMA))
    throw scimBadRequest('invalidSyntax', `schemas must list ${USER_SCHEMA}`);
  if (input.password !== undefined) {
    throw scimBadRequest(
      'mutability',
      'scanhub keeps no passwords for provisioned users (they sign in through the identity provider): turn off password sync',
    );
  }
  const emails = input.emails ?? [];
  const chosen =
    emails.find((email) => scimBoolean(email.primary) === true) ??
    emails.find((email) => email.type === 'work') ??
    emails[0];
  const rawEmail = chosen?.value ?? (EMAIL_SHAPE.test(input.userName) ? input.userName : undefined);
  if (rawEmail === undefined || !EMAIL_SHAPE.test(rawEmail) || rawEmail.length > 254) {
    throw scimBadRequest(
      'invalidValue',
      'A user needs an email address: in emails (primary) or as its userName',
    );
  }
  const email = normalizeEmail(rawEmail);
  const given = [input.name?.givenName, input.name?.familyName].filter(Boolean).join(' ');
  const name = (input.displayName ?? input.name?.formatted ?? (given || email.split('@')[0]) ?? email).slice(
    0,
    200,
  );
  const active = input.active === undefined ? undefined : scimBoolean(input.active);
  if (input.active !== undefined && active === undefined)
    throw scimBadRequest('invalidValue', 'active must be true or false');
  return {
    email,
    scimUserName: input.userName.toLowerCase() === email ? null : input.userName,
    name,
    externalId: input.externalId ?? null,
    active,
  };
}

async function assertFree(trx: Transaction<DB>, fields: UserFields, exceptId?: number): Promise<void> {
  const taken = await trx
    .selectFrom('users')
    .select('id')
    .where((eb) =>
      eb.or([
        eb(eb.fn('lower', ['email']), '=', fields.email),
        eb(
          sql`lower(coalesce(scim_user_name, email))`,
          '=',
          (fields.scimUserName ?? fields.email).toLowerCase(),
        ),
      ]),
    )
    .where('scim_removed_at', 'is', null)
    .$if(exceptId !== undefined, (query) => query.where('id', '<>', exceptId ?? 0))
    .executeTakeFirst();
  if (taken) throw new ScimError(409, 'A user with this userName or email already exists', 'uniqueness');
}

/** Disables a user: sessions end and API keys are revoked at once; never the last active admin. */
async function disable(trx: Transaction<DB>, userId: number): Promise<void> {
  const user = await trx
    .selectFrom('users')
    .select(['role', 'disabled'])
    .where('id', '=', userId)
    .executeTakeFirstOrThrow();
  if (user.role === 'admin' && !user.disabled) {
    const other = await trx
      .selectFrom('users')
      .select('id')
      .where('role', '=', 'admin')
      .where('disabled', '=', false)
      .where('id', '<>', userId)
      .executeTakeFirst();
    if (!other)
      throw new ScimError(409, 'The last active admin cannot be deactivated or deleted', 'mutability');
  }
  const now = new Date();
  await trx.updateTable('users').set({ disabled: true, updated_at: now }).where('id', '=', userId).execute();
  await trx.deleteFrom('sessions').where('user_id', '=', userId).execute();
  await trx
    .updateTable('api_keys')
    .set({ revoked_at: now, updated_at: now })
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .execute();
}

async function store(
  trx: Transaction<DB>,
  userId: number,
  fields: UserFields,
  wasDisabled: boolean,
): Promise<void> {
  await trx
    .updateTable('users')
    .set({
      email: fields.email,
      name: fields.name,
      scim_user_name: fields.scimUserName,
      scim_external_id: fields.externalId,
      updated_at: new Date(),
    })
    .where('id', '=', userId)
    .execute();
  if (fields.active === false && !wasDisabled) await disable(trx, userId);
  if (fields.active === true && wasDisabled)
    await trx
      .updateTable('users')
      .set({ disabled: false, updated_at: new Date() })
      .where('id', '=', userId)
      .execute();
}

/** A user's fields as their audit rows show them (a provisioned user has no password to show). */
async function auditFields(trx: Transaction<DB>, userId: number) {
  const row = await trx
    .selectFrom('users')
    .select(['email', 'name', 'role', 'disabled', 'scim_user_name', 'scim_external_id'])
    .where('id', '=', userId)
    .executeTakeFirstOrThrow();
  return { ...row };
}

type UserAuditFields = Awaited<ReturnType<typeof auditFields>>;

/**
 * The audit row of what a provisioning request did to a user, last in its transaction (it holds the
 * chain's head until commit): deactivated when it switched the account off, else updated; nothing
 * when nothing changed (identity providers resend unchanged users on every sync).
 */
async function auditUserChange(
  trx: Transaction<DB>,
  audit: AuditContext,
  userId: number,
  before: UserAuditFields,
): Promise<void> {
  const after = await auditFields(trx, userId);
  if (JSON.stringify(before) === JSON.stringify(after)) return;
  const action =
    !before.disabled && after.disabled
      ? 'user.deactivated'
      : before.disabled && !after.disabled
        ? 'user.reactivated'
        : 'user.updated';
  await recordAudit(trx, audit, {
    action,
    target: { type: 'user', id: userId, label: after.email },
    before,
    after,
    details: { source: 'scim' },
  });
}

export async function createScimUser(
  db: Kysely<DB>,
  base: string,
  input: ScimUserInput,
  audit: AuditContext,
) {
  const fields = fieldsOf(input);
  // Hashed before the transaction: argon2 takes tens of milliseconds. Nobody knows this password.
  const unusable = await hashPassword(randomToken('', 32));
  const id = await db.transaction().execute(async (trx) => {
    await assertFree(trx, fields);
    // A user the provider deleted earlier comes back as the same account (its history with it).
    const removed = await trx
      .selectFrom('users')
      .select(['id', 'disabled'])
      .where((eb) => eb(eb.fn('lower', ['email']), '=', fields.email))
      .where('scim_removed_at', 'is not', null)
      .executeTakeFirst();
    if (removed) {
      const before = await auditFields(trx, removed.id);
      await trx.updateTable('users').set({ scim_removed_at: null }).where('id', '=', removed.id).execute();
      await store(trx, removed.id, { ...fields, active: fields.active ?? true }, removed.disabled);
      await recordAudit(trx, audit, {
        action: 'user.created',
        target: { type: 'user', id: removed.id, label: fields.email },
        before,
        after: await auditFields(trx, removed.id),
        details: { source: 'scim', restored: true },
      });
      return removed.id;
    }
    const row = await trx
      .insertInto('users')
      .values({
        email: fields.email,
        name: fields.name,
        password_hash: unusable,
        role: 'member',
        disabled: fields.active === false,
        scim_user_name: fields.scimUserName,
        scim_external_id: fields.externalId,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await recordAudit(trx, audit, {
      action: 'user.created',
      target: { type: 'user', id: row.id, label: fields.email },
      after: await auditFields(trx, row.id),
      details: { source: 'scim' },
    });
    return row.id;
  });
  return presentOne(db, await findUser(db, String(id)), base);
}

export async function replaceScimUser(
  db: Kysely<DB>,
  base: string,
  idParam: string,
  input: ScimUserInput,
  audit: AuditContext,
) {
  const fields = fieldsOf(input);
  await db.transaction().execute(async (trx) => {
    const current = await findUser(trx, idParam, true);
    await assertFree(trx, fields, current.id);
    const before = await auditFields(trx, current.id);
    await store(trx, current.id, fields, current.disabled);
    await auditUserChange(trx, audit, current.id, before);
  });
  return getScimUser(db, base, idParam, {});
}

export async function patchScimUser(
  db: Kysely<DB>,
  base: string,
  idParam: string,
  body: ScimPatchInput,
  audit: AuditContext,
) {
  await db.transaction().execute(async (trx) => {
    const current = await findUser(trx, idParam, true);
    const input = patched<ScimUserInput>(present(current, base, []), body, ScimUserBody);
    const fields = fieldsOf(input);
    await assertFree(trx, fields, current.id);
    const before = await auditFields(trx, current.id);
    await store(trx, current.id, fields, current.disabled);
    await auditUserChange(trx, audit, current.id, before);
  });
  return getScimUser(db, base, idParam, {});
}

export async function deleteScimUser(db: Kysely<DB>, idParam: string, audit: AuditContext): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const current = await findUser(trx, idParam, true);
    const before = await auditFields(trx, current.id);
    if (!current.disabled) await disable(trx, current.id);
    await trx
      .deleteFrom('team_members')
      .where('user_id', '=', current.id)
      .where('team_id', 'in', (eb) => eb.selectFrom('teams').select('id').where('scim_managed', '=', true))
      .execute();
    await trx
      .updateTable('users')
      .set({
        scim_removed_at: new Date(),
        scim_user_name: null,
        scim_external_id: null,
        updated_at: new Date(),
      })
      .where('id', '=', current.id)
      .execute();
    // Last: from here until commit the transaction holds the audit chain's head.
    await recordAudit(trx, audit, {
      action: 'user.deleted',
      target: { type: 'user', id: current.id, label: current.email },
      before,
      details: { source: 'scim', kept_as: 'disabled' },
    });
  });
}
