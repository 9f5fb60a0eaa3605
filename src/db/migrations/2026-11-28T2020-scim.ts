import { sql, type Kysely } from 'kysely';

/**
 * SCIM 2.0 provisioning (RFC 7643/7644, src/modules/scim/):
 * - `scim_tokens`: the bearer tokens an identity provider's provisioning presents, shown once at
 *   creation and kept only as their SHA-256 (like API keys).
 * - `users.scim_user_name` keeps the `userName` the provider chose when it is not the email itself;
 *   `users.scim_external_id` the provider's `externalId`; `users.scim_removed_at` marks a user the
 *   provider deleted: SCIM no longer finds it, while its past (findings assigned, comments) stays, so
 *   the user row is disabled, not deleted.
 * - `teams.scim_managed` marks the teams SCIM created: SCIM lists and changes only those, and
 *   `team_members.source = 'scim'` tells the memberships it made.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('scim_tokens')
    .addColumn('id', 'integer', (c) => c.primaryKey().generatedByDefaultAsIdentity())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('last_used_at', 'timestamptz')
    .addColumn('revoked_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema.alterTable('users').addColumn('scim_user_name', 'text').execute();
  await db.schema.alterTable('users').addColumn('scim_external_id', 'text').execute();
  await db.schema.alterTable('users').addColumn('scim_removed_at', 'timestamptz').execute();
  await sql`create unique index users_scim_user_name_key on users (lower(scim_user_name)) where scim_user_name is not null`.execute(
    db,
  );

  await db.schema
    .alterTable('teams')
    .addColumn('scim_managed', 'boolean', (c) => c.notNull().defaultTo(false))
    .execute();
  await db.schema.alterTable('teams').addColumn('scim_external_id', 'text').execute();

  await sql`alter table team_members drop constraint team_members_source_check`.execute(db);
  await sql`alter table team_members add constraint team_members_source_check check (source in ('manual', 'idp', 'scim'))`.execute(
    db,
  );
}
