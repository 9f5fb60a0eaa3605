import { sql, type Kysely } from 'kysely';

/**
 * Policies and their run log. A policy's definition is stored normalized (whichever spec shape it
 * came in). A run is one evaluation of one policy on one change: how many findings it looked at,
 * which it acted on (ids in one array: a policy confirming 100k new findings writes one row, not
 * 100k), what it did and what failed.
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
    event text not null,
    depth integer not null,
    evaluated integer not null,
    finding_ids integer[] not null,
    actions jsonb,
    error text,
    created_at timestamptz not null default now()
  )`.execute(db);
  await sql`create index policy_runs_policy_idx on policy_runs (policy_id, id desc)`.execute(db);
}
