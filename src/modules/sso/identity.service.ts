import type { Kysely, Transaction } from 'kysely';
import type { OidcConfig } from '../../config.ts';
import type { DB } from '../../db/schema.ts';
import { recordAudit, type AuditContext } from '../../events/audit.ts';
import { randomToken } from '../../lib/secrets.ts';
import { normalizeEmail } from '../users/email.ts';
import { hashPassword } from '../users/users.service.ts';

/**
 * Who a verified OpenID sign-in is, and what the provider's groups make of them (docs/architecture.md,
 * "Identity of people"): linked by `(issuer, sub)`; the email finds a user only at the first link (and only
 * when verified); team memberships with `source = 'idp'` are set to exactly the mapped groups at every
 * sign-in, while hand-made ones stay.
 */

/** The request's audit context with the identity provider as actor (what its groups and claims changed). */
function withIdpActor(audit: AuditContext, issuer: string, settings: OidcConfig): AuditContext {
  return { ...audit, actor: { type: 'idp', id: issuer, label: settings.providerName } };
}

/** Why a verified sign-in is still refused, as a stable word the sign-in page explains. */
export type SignInRefusal =
  | 'email_missing'
  | 'email_unverified'
  | 'email_domain_refused'
  | 'unknown_user'
  | 'account_disabled'
  | 'identity_conflict';

export class SignInRefused extends Error {
  override name = 'SignInRefused';
  constructor(readonly refusal: SignInRefusal) {
    super(`OpenID sign-in refused: ${refusal}`);
  }
}

/** Claims kept for the admin's view: protocol values that say nothing about the person are dropped. */
const UNKEPT_CLAIMS = new Set(['nonce', 'at_hash', 'c_hash', 's_hash', 'sid', 'jti']);

/** A claim's value as a list of group names (a string, or an array of strings; anything else: none). */
export function groupsFromClaim(value: unknown): string[] {
  if (typeof value === 'string') return value === '' ? [] : [value];
  if (!Array.isArray(value)) return [];
  return [...new Set(value.filter((entry): entry is string => typeof entry === 'string' && entry !== ''))];
}

function stringClaim(claims: Record<string, unknown>, name: string): string | undefined {
  const value = claims[name];
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

export interface SignInOutcome {
  userId: number;
  created: boolean;
  teamIds: number[];
  admin: boolean;
}

/** What the mappings make of a set of groups. */
export async function mappedTargets(
  db: Kysely<DB>,
  groups: string[],
): Promise<{ teamIds: number[]; admin: boolean }> {
  if (groups.length === 0) return { teamIds: [], admin: false };
  const rows = await db
    .selectFrom('idp_group_mappings')
    .select(['team_id', 'grants_admin'])
    .where('idp_group', 'in', groups)
    .execute();
  const teamIds = [...new Set(rows.flatMap((row) => (row.team_id === null ? [] : [row.team_id])))].sort(
    (a, b) => a - b,
  );
  return { teamIds, admin: rows.some((row) => row.grants_admin) };
}

async function findOrLinkUser(
  trx: Transaction<DB>,
  settings: OidcConfig,
  issuer: string,
  subject: string,
  claims: Record<string, unknown>,
): Promise<{ userId: number; created: boolean }> {
  const linked = await trx
    .selectFrom('user_identities')
    .select('user_id')
    .where('issuer', '=', issuer)
    .where('subject', '=', subject)
    .executeTakeFirst();
  const rawEmail = stringClaim(claims, settings.claims.email);
  const email = rawEmail === undefined ? undefined : normalizeEmail(rawEmail);
  const verified = claims['email_verified'] === true;
  if (settings.allowedEmailDomains.length > 0) {
    // The domain list judges the email the provider vouches for, at every sign-in.
    if (email === undefined) throw new SignInRefused('email_missing');
    if (!verified) throw new SignInRefused('email_unverified');
    const domain = email.slice(email.lastIndexOf('@') + 1);
    if (!settings.allowedEmailDomains.includes(domain)) throw new SignInRefused('email_domain_refused');
  }
  if (linked) return { userId: linked.user_id, created: false };

  if (email === undefined) throw new SignInRefused('email_missing');
  const existing = await trx
    .selectFrom('users')
    .select('id')
    .where((eb) => eb(eb.fn('lower', ['email']), '=', email))
    .executeTakeFirst();
  let userId: number;
  let created = false;
  if (existing) {
    // Linking an existing account by email is only as safe as the provider's word that it is theirs.
    if (!verified) throw new SignInRefused('email_unverified');
    const other = await trx
      .selectFrom('user_identities')
      .select('id')
      .where('user_id', '=', existing.id)
      .where('issuer', '=', issuer)
      .executeTakeFirst();
    // Already linked to another account at this provider: never re-link by email.
    if (other) throw new SignInRefused('identity_conflict');
    userId = existing.id;
  } else {
    if (!settings.createUsers) throw new SignInRefused('unknown_user');
    const row = await trx
      .insertInto('users')
      .values({
        email,
        name: stringClaim(claims, settings.claims.name) ?? email.split('@')[0] ?? email,
        // Nobody knows this password: the account signs in through the provider.
        password_hash: await hashPassword(randomToken('', 32)),
        role: 'member',
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    userId = row.id;
    created = true;
  }
  await trx.insertInto('user_identities').values({ user_id: userId, issuer, subject }).execute();
  return { userId, created };
}

/** Sets the user's provider-made memberships to exactly `teamIds`; hand-made ones are left alone. */
async function syncTeams(
  trx: Transaction<DB>,
  userId: number,
  teamIds: number[],
): Promise<{ removed: number[]; added: number[] }> {
  let removal = trx.deleteFrom('team_members').where('user_id', '=', userId).where('source', '=', 'idp');
  if (teamIds.length > 0) removal = removal.where('team_id', 'not in', teamIds);
  const removed = (await removal.returning('team_id').execute()).map((row) => row.team_id);
  if (teamIds.length === 0) return { removed, added: [] };
  const added = await trx
    .insertInto('team_members')
    .values(
      teamIds.map((teamId) => ({ team_id: teamId, user_id: userId, role: 'member', source: 'idp' as const })),
    )
    .onConflict((oc) => oc.columns(['team_id', 'user_id']).doNothing())
    .returning('team_id')
    .execute();
  return { removed, added: added.map((row) => row.team_id) };
}

/** Gives or takes back the admin role the mappings decide; a role given by hand is never taken. */
async function syncAdminRole(
  trx: Transaction<DB>,
  userId: number,
  identityId: number,
  admin: boolean,
): Promise<{ before: string; after: string } | null> {
  const user = await trx
    .selectFrom('users')
    .select(['role'])
    .where('id', '=', userId)
    .executeTakeFirstOrThrow();
  const identity = await trx
    .selectFrom('user_identities')
    .select('admin_from_idp')
    .where('id', '=', identityId)
    .executeTakeFirstOrThrow();
  if (admin && user.role !== 'admin') {
    await trx
      .updateTable('users')
      .set({ role: 'admin', updated_at: new Date() })
      .where('id', '=', userId)
      .execute();
    await trx
      .updateTable('user_identities')
      .set({ admin_from_idp: true })
      .where('id', '=', identityId)
      .execute();
    return { before: user.role, after: 'admin' };
  } else if (!admin && identity.admin_from_idp) {
    const others = await trx
      .selectFrom('users')
      .select('id')
      .where('role', '=', 'admin')
      .where('disabled', '=', false)
      .where('id', '<>', userId)
      .executeTakeFirst();
    // The last active admin keeps the role: an installation always keeps someone who can administer it.
    if (!others) return null;
    await trx
      .updateTable('users')
      .set({ role: 'member', updated_at: new Date() })
      .where('id', '=', userId)
      .execute();
    await trx
      .updateTable('user_identities')
      .set({ admin_from_idp: false })
      .where('id', '=', identityId)
      .execute();
    return { before: 'admin', after: 'member' };
  }
  return null;
}

/**
 * Finds, links or creates the user a verified sign-in names, applies the group mappings and records
 * the claims (one transaction). A refusal is a SignInRefused.
 */
export async function resolveSignIn(
  db: Kysely<DB>,
  settings: OidcConfig,
  verified: { issuer: string; subject: string; claims: Record<string, unknown> },
  audit: AuditContext,
): Promise<SignInOutcome> {
  return db.transaction().execute(async (trx) => {
    const { userId, created } = await findOrLinkUser(
      trx,
      settings,
      verified.issuer,
      verified.subject,
      verified.claims,
    );
    const user = await trx
      .selectFrom('users')
      .select('disabled')
      .where('id', '=', userId)
      .executeTakeFirstOrThrow();
    if (user.disabled) throw new SignInRefused('account_disabled');
    const groups = groupsFromClaim(verified.claims[settings.claims.groups]);
    const { teamIds, admin } = await mappedTargets(trx, groups);
    const teams = await syncTeams(trx, userId, teamIds);
    const kept = Object.fromEntries(
      Object.entries(verified.claims).filter(([name]) => !UNKEPT_CLAIMS.has(name)),
    );
    const identity = await trx
      .updateTable('user_identities')
      .set({ last_claims: JSON.stringify(kept), last_login_at: new Date() })
      .where('issuer', '=', verified.issuer)
      .where('subject', '=', verified.subject)
      .returning('id')
      .executeTakeFirstOrThrow();
    const role = await syncAdminRole(trx, userId, identity.id, admin);
    // What the provider's word changed, with the provider as actor; the sign-in itself is the user's.
    const idp = withIdpActor(audit, verified.issuer, settings);
    const target = {
      type: 'user',
      id: userId,
      label: stringClaim(verified.claims, settings.claims.email) ?? null,
    };
    await recordAudit(trx, idp, [
      ...(created ? [{ action: 'user.created', target, after: { role: 'member', source: 'idp' } }] : []),
      ...teams.added.map((teamId) => ({
        action: 'team.member_added',
        target: { type: 'team', id: teamId },
        details: { user_id: userId, role: 'member', source: 'idp' },
      })),
      ...teams.removed.map((teamId) => ({
        action: 'team.member_removed',
        target: { type: 'team', id: teamId },
        details: { user_id: userId, source: 'idp' },
      })),
      ...(role
        ? [{ action: 'user.updated', target, before: { role: role.before }, after: { role: role.after } }]
        : []),
    ]);
    return { userId, created, teamIds, admin };
  });
}

/**
 * The display name of the provider that signs this user in, when an identity of the (one)
 * configured provider is linked to them (their password is then the provider's business); else null.
 */
export async function signedInThroughProvider(
  db: Kysely<DB>,
  settings: OidcConfig | undefined,
  userId: number,
): Promise<string | null> {
  if (!settings) return null;
  const linked = await db
    .selectFrom('user_identities')
    .select('id')
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return linked ? settings.providerName : null;
}
