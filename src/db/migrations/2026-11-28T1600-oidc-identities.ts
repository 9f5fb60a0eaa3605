import { sql, type Kysely } from 'kysely';

/**
 * Sign-in through an OpenID provider (docs/architecture.md, "Identity of people"):
 * - `user_identities` links a user to the provider's `(issuer, sub)`; after the first link the email
 *   is never used to find the user again. It keeps the last sign-in's claims (never tokens) for the
 *   admin's "why is Alice not in team X" view, and whether the admin role came from the provider.
 * - `team_members.source` tells memberships the provider's groups made (`idp`) from those made by
 *   hand (`manual`), so a sign-in resets exactly the former.
 * - `idp_group_mappings` maps a provider group to a team and/or to the admin role.
 * - `oidc_pending_logins` holds one row per started sign-in (PKCE verifier, nonce), keyed by the hash
 *   of its `state`; the callback deletes it, so a replayed callback finds nothing.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('user_identities')
    .addColumn('id', 'integer', (c) => c.primaryKey().generatedByDefaultAsIdentity())
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('issuer', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('last_claims', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('admin_from_idp', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('last_login_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('user_identities_issuer_subject_key', ['issuer', 'subject'])
    .addUniqueConstraint('user_identities_user_issuer_key', ['user_id', 'issuer'])
    .execute();

  await sql`alter table team_members add column source text not null default 'manual' check (source in ('manual', 'idp'))`.execute(
    db,
  );

  await db.schema
    .createTable('idp_group_mappings')
    .addColumn('id', 'integer', (c) => c.primaryKey().generatedByDefaultAsIdentity())
    .addColumn('idp_group', 'text', (c) => c.notNull())
    .addColumn('team_id', 'integer', (c) => c.references('teams.id').onDelete('cascade'))
    .addColumn('grants_admin', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addCheckConstraint('idp_group_mappings_target', sql`team_id is not null or grants_admin`)
    .execute();
  await sql`create unique index idp_group_mappings_group_team_key on idp_group_mappings (idp_group, coalesce(team_id, 0))`.execute(
    db,
  );

  await db.schema
    .createTable('oidc_pending_logins')
    .addColumn('state_hash', 'text', (c) => c.primaryKey())
    .addColumn('code_verifier', 'text', (c) => c.notNull())
    .addColumn('nonce', 'text', (c) => c.notNull())
    .addColumn('return_to', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .execute();
}
