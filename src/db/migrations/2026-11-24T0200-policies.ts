import { sql, type Kysely } from 'kysely';

/**
 * Policies and their run log. A policy's definition is stored normalized (whichever spec shape it
 * came in). A run row is written per finding a policy acted on, plus one summary row per evaluation
 * (`finding_id` null) with how many findings were evaluated and matched — not one row per finding
 * that did not match, which for a 100k upload would be 100k rows per policy.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table policies (
    id serial primary key,
    name text not null,
    scope_type text not null check (scope_type in ('application', 'group', 'global')),
    application_id integer references applications (id) on delete cascade,
    group_id integer references groups (id) on delete cascade,
    event_types text[] not null,
    conditions jsonb not null,
    actions jsonb not null,
    enabled boolean not null default true,
    created_by integer references users (id) on delete set null,
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now(),
    check ((scope_type = 'application') = (application_id is not null)),
    check ((scope_type = 'group') = (group_id is not null))
  )`.execute(db);
  await sql`create index policies_application_idx on policies (application_id) where enabled`.execute(db);
  await sql`create index policies_group_idx on policies (group_id) where enabled`.execute(db);

  await sql`create table policy_runs (
    id bigserial primary key,
    policy_id integer not null references policies (id) on delete cascade,
    finding_id integer references findings (id) on delete cascade,
    event text not null,
    matched boolean not null,
    actions jsonb,
    error text,
    depth integer not null,
    detail jsonb,
    created_at timestamptz not null default now()
  )`.execute(db);
  await sql`create index policy_runs_policy_idx on policy_runs (policy_id, id desc)`.execute(db);
}
