import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('groups')
    .addColumn('id', 'integer', (c) => c.primaryKey().generatedByDefaultAsIdentity())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull().unique())
    .addColumn('created_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable('applications')
    .addColumn('id', 'integer', (c) => c.primaryKey().generatedByDefaultAsIdentity())
    .addColumn('group_id', 'integer', (c) => c.notNull().references('groups.id').onDelete('restrict'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('slug', 'text', (c) => c.notNull())
    .addColumn('repository_url', 'text')
    .addColumn('asset_criticality', 'text', (c) =>
      c.notNull().check(sql`asset_criticality in ('low', 'medium', 'high', 'critical')`),
    )
    .addColumn('api_token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('api_token_encrypted', 'text', (c) => c.notNull())
    .addColumn('api_token_prefix', 'text', (c) => c.notNull())
    .addColumn('created_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('applications_group_slug_key', ['group_id', 'slug'])
    .execute();
  await db.schema.createIndex('applications_slug_idx').on('applications').column('slug').execute();

  await db.schema
    .createTable('application_versions')
    .addColumn('id', 'integer', (c) => c.primaryKey().generatedByDefaultAsIdentity())
    .addColumn('application_id', 'integer', (c) =>
      c.notNull().references('applications.id').onDelete('cascade'),
    )
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('branch', 'text')
    .addColumn('tag', 'text')
    .addColumn('is_default', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('application_versions_name_key', ['application_id', 'name'])
    .execute();
  // At most one default version per application, enforced by the database.
  await sql`create unique index application_versions_one_default on application_versions (application_id) where is_default`.execute(
    db,
  );

  await db.schema
    .createTable('permission_policies')
    .addColumn('id', 'integer', (c) => c.primaryKey().generatedByDefaultAsIdentity())
    .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('team_id', 'integer', (c) => c.references('teams.id').onDelete('cascade'))
    .addColumn('application_id', 'integer', (c) => c.references('applications.id').onDelete('cascade'))
    .addColumn('group_id', 'integer', (c) => c.references('groups.id').onDelete('cascade'))
    .addColumn('action', 'text', (c) => c.notNull().check(sql`action in ('read', 'write')`))
    .addColumn('created_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addCheckConstraint('permission_policies_one_subject', sql`num_nonnulls(user_id, team_id) = 1`)
    .addCheckConstraint('permission_policies_one_resource', sql`num_nonnulls(application_id, group_id) <= 1`)
    .addUniqueConstraint(
      'permission_policies_grant_key',
      ['user_id', 'team_id', 'application_id', 'group_id', 'action'],
      (c) => c.nullsNotDistinct(),
    )
    .execute();
  await db.schema
    .createIndex('permission_policies_user_idx')
    .on('permission_policies')
    .column('user_id')
    .execute();
  await db.schema
    .createIndex('permission_policies_team_idx')
    .on('permission_policies')
    .column('team_id')
    .execute();
  await db.schema
    .createIndex('permission_policies_application_idx')
    .on('permission_policies')
    .column('application_id')
    .execute();

  await db.schema
    .createTable('scanner_types')
    .addColumn('id', 'integer', (c) => c.primaryKey().generatedByDefaultAsIdentity())
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('display_name', 'text', (c) => c.notNull())
    .addColumn('enabled', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}
