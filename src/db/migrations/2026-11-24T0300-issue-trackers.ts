import { sql, type Kysely } from 'kysely';

/**
 * Issue trackers (one per application) and the issues linked to findings. A link row is claimed
 * (inserted, unique per finding and tracker) before any provider call, so two workers or a retry can
 * never both create a ticket; `state` says how far it got and what the tracker last said. A job
 * holds `lease_until` while it talks to the provider (no transaction is held across HTTP calls), so
 * two jobs for one link never search-then-create at the same time.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table issue_trackers (
    id serial primary key,
    application_id integer not null unique references applications (id) on delete cascade,
    provider text not null check (provider in ('jira', 'github', 'gitlab')),
    auth_type text not null check (auth_type in ('token', 'basic')),
    username text,
    token_sealed text not null,
    token_last4 text not null,
    base_url text not null,
    project_key text,
    issue_type text,
    repository text,
    project_id text,
    severity_threshold text not null default 'high',
    auto_create boolean not null default true,
    close_on_fix boolean not null default true,
    labels text[] not null default '{}',
    closed_status text not null default 'fixed',
    webhook_secret_sealed text not null,
    created_by integer references users (id) on delete set null,
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now()
  )`.execute(db);

  await sql`create table tracker_issues (
    id serial primary key,
    tracker_id integer not null references issue_trackers (id) on delete cascade,
    finding_id integer not null references findings (id) on delete cascade,
    provider text not null,
    external_id text,
    external_key text,
    url text,
    state text not null default 'pending' check (state in ('pending', 'open', 'closed', 'failed')),
    last_synced_at timestamptz,
    last_error text,
    lease_until timestamptz,
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now(),
    unique (finding_id, tracker_id)
  )`.execute(db);
  await sql`create index tracker_issues_tracker_key_idx on tracker_issues (tracker_id, external_key)`.execute(
    db,
  );
}
