import { sql, type Kysely } from 'kysely';

/**
 * Permission policies may name an administrative resource (`scanner-types`, `teams`, ...) instead
 * of an application, a group or everything; such a policy grants its action there and nothing on
 * applications. The vocabulary lives in src/access/vocabulary.ts; the checks here keep rows sane.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table permission_policies add column resource text`.execute(db);
  await sql`alter table permission_policies drop constraint permission_policies_one_resource`.execute(db);
  await sql`alter table permission_policies add constraint permission_policies_one_resource
    check (num_nonnulls(application_id, group_id, resource) <= 1)`.execute(db);
  await sql`alter table permission_policies drop constraint permission_policies_action_check`.execute(db);
  await sql`alter table permission_policies add constraint permission_policies_action_check
    check ((resource is null and action in ('read', 'write'))
        or (resource is not null and action in ('read', 'create', 'update')))`.execute(db);
  await sql`alter table permission_policies drop constraint permission_policies_grant_key`.execute(db);
  await sql`alter table permission_policies add constraint permission_policies_grant_key
    unique nulls not distinct (user_id, team_id, application_id, group_id, resource, action)`.execute(db);
}
